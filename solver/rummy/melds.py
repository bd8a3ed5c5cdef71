"""Meld classification (R2-R4): is an ordered list of cards a sequence, a group, or neither?

A *reading* says what every card stands for. A meld is valid when exactly one reading
remains after the writer's ``=`` annotations are applied; two or more readings with
different wild values make it ambiguous, which is reported, never guessed (SPEC §2).
Among readings, those that use more natural cards are preferred: in mexe-mexe ``2H 2S 2D``
is a group of 2s, not a sequence of two wild 2s around a natural one (docs/rules.md).
"""

from __future__ import annotations

import functools
import operator
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TypeVar

from solver.core.cards import SUIT_GLYPHS, SUITS, Card, TableCard, WildValue, rank_name
from solver.core.rulesets import AceRule, Ruleset, SuitRule, rank_of_position

CLASSIFY_CACHE_SIZE = 16384  # melds: about 1 KB each, so some 16 MB when full
PASSING_CACHE_SIZE = 1024  # melds made by a call (a solve's rebuilt table), for that call

INTERNED: dict[int, tuple[TableCard, ...]] = {}
"""The melds the parse interned (``position.interned_meld``), by id: they recur across
calls, so the memos below keep them long; other tuples (a solve's rebuilt melds, new objects
each call) recur only within their call and are kept in a small memo of their own. An entry
holds its meld, so a live meld whose id is here is that meld."""

T = TypeVar("T")


_WRITTEN_VALUE = operator.attrgetter("value")


class MeldKind(Enum):
    """The two kinds of meld."""

    SEQUENCE = "sequence"
    GROUP = "group"


@dataclass(frozen=True)
class Reading:
    """One way to read a meld: what each card stands for, position by position."""

    kind: MeldKind
    values: tuple[WildValue, ...]  # per card; a natural card stands for itself
    wild: tuple[bool, ...]  # per card: acting as a wild
    positions: tuple[int, ...] = ()  # sequences: rank positions, 1 = low ace, 14 = high ace
    suit: str | None = None  # same-suit sequences: their suit
    rank: int = 0  # groups: their rank

    @property
    def naturals(self) -> int:
        return sum(1 for w in self.wild if not w)

    def normalized(self, cards: Sequence[TableCard]) -> tuple[TableCard, ...]:
        """The meld with every wild's value written out (``JK=9H``)."""
        # A written value is a WildValue, always true: ``any`` over them finds one in C.
        if not any(self.wild) and not any(map(_WRITTEN_VALUE, cards)):
            return tuple(cards)  # all natural and written so: the meld itself
        return tuple(
            TableCard(tc.card, value if is_wild else None)
            for tc, value, is_wild in zip(cards, self.values, self.wild, strict=True)
        )

    @property
    def key(self) -> tuple[object, ...]:
        return (self.kind, self.values, self.wild)


@dataclass(frozen=True)
class MeldClassification:
    """The verdict on one meld: its single reading, or why it has none (or several)."""

    cards: tuple[TableCard, ...]
    readings: tuple[Reading, ...]
    reason: str = ""
    # Readings with fewer naturals and other values (mexe-mexe 2s): the move's judge falls
    # back on them only where no preferred reading is legal (docs/rules.md, R4).
    fallbacks: tuple[Reading, ...] = ()

    @property
    def ok(self) -> bool:
        return len(self.readings) == 1

    @property
    def ambiguous(self) -> bool:
        return len(self.readings) > 1

    @property
    def reading(self) -> Reading:
        if len(self.readings) != 1:
            raise ValueError(f"meld {_codes(self.cards)} has no single reading: {self.reason}")
        return self.readings[0]

    @property
    def kind(self) -> MeldKind | None:
        return self.readings[0].kind if self.ok else None

    @property
    def normalized(self) -> tuple[TableCard, ...]:
        return self.reading.normalized(self.cards) if self.ok else self.cards


def _codes(cards: Sequence[TableCard]) -> str:
    return " ".join(tc.code for tc in cards)


def card_text(card: Card) -> str:
    """A card for a player's eyes: ``7♥``, ``10♠``, ``JK``."""
    if card.special:
        return card.code
    return f"{rank_name(card.rank)}{SUIT_GLYPHS[card.suit]}"


def _anchor(ruleset: Ruleset, cards: Sequence[TableCard]) -> tuple[int, TableCard] | None:
    """The first card that cannot act as a wild, with its index: every reading must read it
    as itself, which pins a sequence's start and suit, or a group's rank."""
    for k, tc in enumerate(cards):
        if not ruleset.is_wild_card(tc.card):
            return k, tc
    return None


def _fits_naturally(tc: TableCard, rank: int, suit: str | None) -> bool:
    """Can the card stand for itself as ``rank`` (of ``suit``, where one is fixed)?"""
    card = tc.card
    return (
        tc.value is None
        and card.is_ordinary
        and card.rank == rank
        and (suit is None or card.suit == suit)
    )


def _sequence_readings(ruleset: Ruleset, cards: Sequence[TableCard]) -> list[Reading]:
    n = len(cards)
    allowed = ruleset.sequence_positions
    same_suit = ruleset.melds.sequence_suits is SuitRule.SAME_SUIT
    suits: tuple[str | None, ...] = SUITS if same_suit else (None,)
    out: list[Reading] = []
    if n > ruleset.melds.max_sequence:
        return out
    # Only the starts and suits where the anchor stands for itself can give a reading
    # (``_sequence_at`` rejects the others), so they alone are tried, in the same order.
    anchor = _anchor(ruleset, cards)
    for start in allowed:
        positions = tuple(range(start, start + n))
        if positions[-1] not in allowed:
            break
        for suit in suits:
            if anchor is not None:
                k, tc = anchor
                if not _fits_naturally(tc, rank_of_position(positions[k]), suit):
                    continue
            reading = _sequence_at(ruleset, cards, positions, suit)
            if reading is not None:
                out.append(reading)
    return out


def _sequence_at(
    ruleset: Ruleset, cards: Sequence[TableCard], positions: tuple[int, ...], suit: str | None
) -> Reading | None:
    values: list[WildValue] = []
    wild: list[bool] = []
    for tc, pos in zip(cards, positions, strict=True):
        rank = rank_of_position(pos)
        card = tc.card
        if _fits_naturally(tc, rank, suit):
            values.append(WildValue(rank, card.suit))
            wild.append(False)
            continue
        if not ruleset.is_wild_card(card):
            return None
        value = WildValue(rank, suit)
        if tc.value is not None and not _annotation_fits(tc.value, value, suit is not None):
            return None
        values.append(value)
        wild.append(True)
    if all(wild):
        return None
    return Reading(MeldKind.SEQUENCE, tuple(values), tuple(wild), positions, suit, 0)


def _annotation_fits(declared: WildValue, value: WildValue, suit_fixed: bool) -> bool:
    """Does a written ``=`` value agree with the value the reading gives the wild?"""
    if declared.rank != value.rank:
        return False
    return not (suit_fixed and declared.suit is not None and declared.suit != value.suit)


def _group_readings(ruleset: Ruleset, cards: Sequence[TableCard]) -> list[Reading]:
    n = len(cards)
    if not ruleset.melds.group_min <= n <= ruleset.melds.group_max:
        return []
    out: list[Reading] = []
    anchor = _anchor(ruleset, cards)
    for rank in range(1, 14):
        # As for sequences: ``_group_of`` has no reading where the anchor is not natural.
        if anchor is not None and not _fits_naturally(anchor[1], rank, None):
            continue
        reading = _group_of(ruleset, cards, rank)
        if reading is not None:
            out.append(reading)
    return out


def _group_of(ruleset: Ruleset, cards: Sequence[TableCard], rank: int) -> Reading | None:
    distinct = ruleset.melds.group_suits_distinct
    taken: set[str] = set()
    values: list[WildValue | None] = []
    wild: list[bool] = []
    # Naturals first, so that a duplicate 2 in a group of 2s becomes the wild one.
    for tc in cards:
        card = tc.card
        fits = tc.value is None and card.is_ordinary and card.rank == rank
        if fits and (not distinct or card.suit not in taken):
            taken.add(card.suit)
            values.append(WildValue(rank, card.suit))
            wild.append(False)
            continue
        values.append(None)
        wild.append(True)
    if all(wild):
        return None
    declared_suits: list[str] = []
    final: list[WildValue] = []
    for tc, value in zip(cards, values, strict=True):
        if value is not None:
            final.append(value)
            continue
        if not ruleset.is_wild_card(tc.card):
            return None
        declared = tc.value
        if declared is not None and declared.rank != rank:
            return None
        suit = declared.suit if declared is not None else None
        if suit is not None:
            declared_suits.append(suit)
        final.append(WildValue(rank, suit))
    if distinct:
        # A wild stands for one of the missing suits (R3); a written suit must be missing.
        if any(s in taken for s in declared_suits) or len(set(declared_suits)) < len(
            declared_suits
        ):
            return None
        if len(cards) > len(SUITS):
            return None
    return Reading(MeldKind.GROUP, tuple(final), tuple(wild), (), None, rank)


def readings(ruleset: Ruleset, cards: Sequence[TableCard]) -> list[Reading]:
    """Every reading of the meld that agrees with its annotations, most naturals first."""
    found: dict[tuple[object, ...], Reading] = {}
    for reading in _sequence_readings(ruleset, cards) + _group_readings(ruleset, cards):
        found.setdefault(reading.key, reading)
    return sorted(found.values(), key=lambda r: -r.naturals)


class RulesetKey:
    """A ruleset as a cache key. ``Ruleset`` is not hashable (it holds mappings): the key
    hashes its ``id`` and compares rulesets by value, identity first (the usual case)."""

    __slots__ = ("_hash", "ruleset")

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self._hash = hash(ruleset.id)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RulesetKey):
            return NotImplemented
        return other.ruleset is self.ruleset or other.ruleset == self.ruleset


_KEYS: dict[int, RulesetKey] = {}
_MOST_KEYS = 1024  # rulesets are module constants; tests make a few hundred more at most


def ruleset_key(ruleset: Ruleset) -> RulesetKey:
    """The one key of this ruleset object: a cache lookup then finds its entry by identity,
    without comparing rulesets (a call looks up some fifty melds). The key holds the
    ruleset, so its ``id`` is never another's while the key is kept."""
    key = _KEYS.get(id(ruleset))
    if key is None:
        if len(_KEYS) >= _MOST_KEYS:
            _KEYS.clear()
        key = _KEYS[id(ruleset)] = RulesetKey(ruleset)
    return key


def memo_by_meld_object(
    compute: Callable[[RulesetKey, tuple[TableCard, ...]], T],
) -> Callable[[RulesetKey, Sequence[TableCard]], T]:
    """``compute`` of a meld, remembered per meld *object*, found by its id.

    A parsed meld is one object per text (``position.parse_melds`` interns them), and
    looking one up by value hashes every card (a Python ``__hash__`` each, some 200 per
    ValidateMove). An entry holds its meld, so no other object can have that id while the
    entry is there; ``is`` checks both. Only a tuple is remembered (a list may change): an
    interned one long, any other in a small memo (``INTERNED``)."""
    memo: dict[int, tuple[tuple[TableCard, ...], RulesetKey, T]] = {}
    passing: dict[int, tuple[tuple[TableCard, ...], RulesetKey, T]] = {}

    def lookup(key: RulesetKey, cards: Sequence[TableCard]) -> T:
        known = memo.get(id(cards)) or passing.get(id(cards))
        if known is not None and known[0] is cards and known[1] is key:
            return known[2]
        meld = tuple(cards)
        value = compute(key, meld)
        if meld is cards:
            lasting = id(meld) in INTERNED
            kept = memo if lasting else passing
            if len(kept) >= (CLASSIFY_CACHE_SIZE if lasting else PASSING_CACHE_SIZE):
                kept.clear()
            kept[id(meld)] = (meld, key, value)
        return value

    return lookup


def memo_by_meld_and_reading(
    compute: Callable[[RulesetKey, tuple[TableCard, ...], Reading | None], T],
) -> Callable[[RulesetKey, Sequence[TableCard], Reading | None], T]:
    """``compute`` of a meld under one of its readings, remembered per meld *object* and
    reading *object*, as ``memo_by_meld_object`` does per meld: the parse interns melds and
    ``classify``'s cache gives a meld the same readings every time, so a meld that recurs
    costs a look-up. An entry holds both, so neither id can be another's while it is there."""
    memo: dict[tuple[int, int], tuple[tuple[TableCard, ...], Reading | None, RulesetKey, T]] = {}
    passing: dict[tuple[int, int], tuple[tuple[TableCard, ...], Reading | None, RulesetKey, T]]
    passing = {}

    def lookup(key: RulesetKey, cards: Sequence[TableCard], reading: Reading | None) -> T:
        ids = (id(cards), id(reading))
        known = memo.get(ids) or passing.get(ids)
        if known is not None and known[0] is cards and known[1] is reading and known[2] is key:
            return known[3]
        meld = tuple(cards)
        value = compute(key, meld, reading)
        if meld is cards:
            lasting = id(meld) in INTERNED
            kept = memo if lasting else passing
            if len(kept) >= (CLASSIFY_CACHE_SIZE if lasting else PASSING_CACHE_SIZE):
                kept.clear()
            kept[(id(meld), id(reading))] = (meld, reading, key, value)
        return value

    return lookup


def _normalized_by_reading(
    key: RulesetKey, meld: tuple[TableCard, ...], reading: Reading | None
) -> tuple[TableCard, ...]:
    del key  # the reading decides alone
    return meld if reading is None else reading.normalized(meld)


_normalized_memo = memo_by_meld_and_reading(_normalized_by_reading)


def normalized_meld(
    ruleset: Ruleset, cards: Sequence[TableCard], reading: Reading
) -> tuple[TableCard, ...]:
    """``reading.normalized(cards)``, one object per meld object and reading: the same meld
    read the same way in call after call is not rebuilt card by card, and the answer's
    codes, kept per meld object (``service.convert``), are found again."""
    return _normalized_memo(ruleset_key(ruleset), cards, reading)


def classify(ruleset: Ruleset, cards: Sequence[TableCard]) -> MeldClassification:
    """Decide sequence / group / invalid (with the reason) / ambiguous for one meld."""
    return _classify_meld(ruleset_key(ruleset), cards)


def classify_all(
    ruleset: Ruleset, melds: Iterable[Sequence[TableCard]]
) -> list[MeldClassification]:
    """``classify`` of every meld, the ruleset's key found once (a table's melds are some
    fifteen look-ups a call, twice: the position's and the move's)."""
    return list(map(functools.partial(_classify_meld, ruleset_key(ruleset)), melds))


# A verdict is a pure function of immutable inputs, and most melds of a move are the
# table's own, already classified when the position was parsed: they cost a lookup.
@functools.lru_cache(maxsize=CLASSIFY_CACHE_SIZE)
def _classify_cached(key: RulesetKey, meld: tuple[TableCard, ...]) -> MeldClassification:
    return _classify(key.ruleset, meld)


_classify_meld = memo_by_meld_object(_classify_cached)


def _classify(ruleset: Ruleset, meld: tuple[TableCard, ...]) -> MeldClassification:
    problem = _basic_problem(ruleset, meld)
    if problem:
        return MeldClassification(meld, (), problem)
    found = readings(ruleset, meld)
    if not found:
        return MeldClassification(meld, (), _diagnose(ruleset, meld))
    best = found[0].naturals
    preferred = tuple(r for r in found if r.naturals == best)
    values = {(r.kind, r.values) for r in preferred}
    fallbacks: dict[tuple[object, ...], Reading] = {}
    for r in found[len(preferred) :]:  # most naturals first: one reading per set of values
        if (r.kind, r.values) not in values:
            fallbacks.setdefault((r.kind, r.values), r)
    if len(preferred) > 1:
        reason = ambiguity_reason(meld, preferred)
        return MeldClassification(meld, preferred, reason, tuple(fallbacks.values()))
    return MeldClassification(meld, preferred, fallbacks=tuple(fallbacks.values()))


def ambiguity_reason(cards: Sequence[TableCard], found: Sequence[Reading]) -> str:
    """Why a meld needs its wilds' values written: the readings it has."""
    options = " or ".join(_describe(r) for r in found[:3])
    return (
        f"{_codes(cards)} is ambiguous: it reads as {options}; "
        "write each wild's value (e.g. JK=9) to say which"
    )


def describe_reading(reading: Reading) -> str:
    """A short phrase: ``a group of 7s`` or ``the sequence 6-7-8``."""
    return _describe(reading)


def _describe(reading: Reading) -> str:
    if reading.kind is MeldKind.GROUP:
        return f"a group of {rank_name(reading.rank)}s"
    ranks = "-".join(rank_name(rank_of_position(p)) for p in reading.positions)
    suit = f" in {SUIT_GLYPHS[reading.suit]}" if reading.suit else ""
    return f"the sequence {ranks}{suit}"


def foreign_card(ruleset: Ruleset, card: Card) -> str:
    """Why ``card`` cannot be in play in this ruleset ("" when it can): no JK in shangai."""
    if card.special and not ruleset.is_wild_card(card):
        return f"{card.code} is not a card of {ruleset.id}"
    return ""


def value_on_natural(ruleset: Ruleset, tc: TableCard) -> str:
    """Why ``tc`` is written wrongly ("" when it is not): a value after '=' on a card that
    is not wild (SPEC §2)."""
    if tc.value is not None and not ruleset.is_wild_card(tc.card):
        return f"{tc.code}: only a wild card may carry a value after '='"
    return ""


def _basic_problem(ruleset: Ruleset, meld: tuple[TableCard, ...]) -> str:
    if len(meld) < min(ruleset.melds.min_sequence, ruleset.melds.group_min):
        return f"{_codes(meld)}: a meld needs at least {ruleset.melds.group_min} cards (R2, R3)"
    for tc in meld:
        # Wrong whatever meld the card is in.
        problem = foreign_card(ruleset, tc.card) or value_on_natural(ruleset, tc)
        if problem:
            return problem
    if all(ruleset.is_always_wild(tc.card) or tc.value is not None for tc in meld):
        return f"{_codes(meld)}: a meld needs at least one natural card (R4)"
    return ""


def _diagnose(ruleset: Ruleset, meld: tuple[TableCard, ...]) -> str:
    """Why no reading exists, in a sentence a player understands."""
    text = _codes(meld)
    naturals = [tc.card for tc in meld if tc.value is None and not ruleset.is_wild_card(tc.card)]
    if not naturals:
        naturals = [tc.card for tc in meld if tc.value is None and tc.card.is_ordinary]
    # Written values count as what they stand for: JK=7H JK=7H 7S is a group of 7s.
    values = [tc.value for tc in meld if tc.value is not None]
    ranks = {c.rank for c in naturals} | {v.rank for v in values}
    if len(ranks) == 1 and len(naturals) + len(values) >= 2:
        rank = rank_name(next(iter(ranks)))
        if len(meld) > ruleset.melds.group_max:
            return f"{text}: a group of {rank}s has at most {ruleset.melds.group_max} cards (R3)"
        claimed = naturals + [Card(v.rank, v.suit) for v in values if v.suit]
        dup = [c for c, k in Counter(claimed).items() if k > 1 or _suit_clash(c, claimed)]
        if ruleset.melds.group_suits_distinct and dup:
            return (
                f"{text}: two {card_text(dup[0])} in one group; "
                "a group's suits must all differ (R3)"
            )
        annotated = [tc for tc in meld if tc.value is not None]
        if annotated:
            return f"{text}: {annotated[0].code} does not stand for a {rank} in this group (R3)"
        return f"{text} is not a valid group (R3)"
    if len(meld) > ruleset.melds.max_sequence:
        return f"{text}: a sequence has at most {ruleset.melds.max_sequence} cards (R2)"
    if ruleset.melds.sequence_suits is SuitRule.SAME_SUIT and len({c.suit for c in naturals}) > 1:
        return f"{text}: a sequence's cards must all be of one suit (R2)"
    if any(tc.value is not None for tc in meld):
        return f"{text}: a wild's written value does not match its place in the sequence (R2)"
    return (
        f"{text} is neither a group (one rank, different suits) nor a sequence "
        "(consecutive ranks in ascending order, no wrap, ace as this game allows) (R2, R3)"
    )


def _suit_clash(card: Card, naturals: list[Card]) -> bool:
    return sum(1 for c in naturals if c.suit == card.suit) > 1


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``11th``, ``22nd``: how prose counts melds (from 1)."""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


_CITED = re.compile(r"\((R\d+|C\d+|F\d+)")


def cited_rule(reason: str, default: str) -> str:
    """The first ruling a reason cites (``(R2, R3)`` -> ``R2``), so a violation's ``rule``
    agrees with its sentence; ``default`` where the reason cites none."""
    found = _CITED.search(reason)
    return found.group(1) if found else default


def repair_hint(ruleset: Ruleset, cards: Sequence[TableCard]) -> str:
    """What would make an invalid meld of natural cards valid, when that is obvious: the
    same cards written ascending, or the ace where this ruleset allows it (R2). Empty when
    nothing obvious would."""
    if any(tc.value is not None or not tc.card.is_ordinary for tc in cards) or len(cards) < 3:
        return ""
    naturals = [tc.card for tc in cards]
    ranks = {c.rank for c in naturals}
    if len(ranks) != len(naturals):
        return ""
    ace = ruleset.melds.ace
    if 1 in ranks and _consecutive(ranks, ace_high=True) and ace is AceRule.LOW_ONLY:
        return f"the ace is low only in {ruleset.name}: Q-K-A is no sequence here (R2)"
    if 1 in ranks and _consecutive(ranks, ace_high=False) and ace is AceRule.HIGH_ONLY:
        return f"the ace is high only in {ruleset.name}: A-2-3 is no sequence here (R2)"
    for ace_high in (False, True):
        ordered = sorted(
            cards, key=lambda tc: 14 if ace_high and tc.card.rank == 1 else tc.card.rank
        )
        if list(ordered) != list(cards) and classify(ruleset, tuple(ordered)).ok:
            return f"sequences are written ascending: {_codes(ordered)}"
    return ""


def _consecutive(ranks: set[int], ace_high: bool) -> bool:
    positions = sorted(14 if ace_high and r == 1 else r for r in ranks)
    return positions == list(range(positions[0], positions[0] + len(positions)))
