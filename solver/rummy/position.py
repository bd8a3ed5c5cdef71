"""Positions and moves of the rummy family, parsed from card codes and checked for sanity.

A malformed position (bad code, unknown ruleset, more copies of a card than the deck has,
an invalid or ambiguous meld on the table) raises ``InvalidRequest`` with a field path
per problem, relative to the position (``table[2].cards[1]``, ``hand[0]``, ``players``).
"""

from __future__ import annotations

import functools
import operator
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import cast

from solver.contract.melds import classify_table_meld
from solver.core.cards import Card, TableCard, parse_card, parse_table_card
from solver.core.errors import InvalidRequest, NotationError, ProblemCollector
from solver.core.registry import service_of
from solver.core.rulesets import RULESETS, Ruleset, get_ruleset
from solver.rummy.melds import (
    INTERNED,
    MeldClassification,
    RulesetKey,
    classify_all,
    foreign_card,
    ruleset_key,
    value_on_natural,
)

Meld = tuple[TableCard, ...]
TableCount = tuple[tuple[Meld, ...], Counter[Card]]
"""A table and the count of its cards the parse made (the referee counts them again)."""

# Bounds that keep every request small enough to answer fast (SPEC §5).
MAX_MELDS = 60
MAX_CARDS_PER_MELD = 14


@dataclass(frozen=True)
class Turn:
    """What has happened this turn so far (fields a ruleset does not use are ignored)."""

    cards_drawn: int = 0
    stock_empty: bool = False
    has_melded_sequence: bool = False
    has_opened: bool = False
    deal_number: int = 0


@dataclass(frozen=True)
class Position:
    """A table, the hand of the player to move, and the turn state."""

    ruleset: Ruleset
    players: int
    table: tuple[Meld, ...]
    hand: tuple[Card, ...]
    turn: Turn = field(default_factory=Turn)
    readings: tuple[MeldClassification, ...] = ()  # the table's melds, classified
    counted: TableCount | None = field(default=None, compare=False, repr=False)

    def table_cards(self) -> Counter[Card]:
        return _table_cards(self.table, self.counted)


@dataclass(frozen=True)
class Move:
    """A play: the whole table after it, cards a mexe-mexe player takes back, knock, discard."""

    table: tuple[Meld, ...]
    to_hand: tuple[Card, ...] = ()
    knock: bool = False
    discard: Card | None = None
    counted: TableCount | None = field(default=None, compare=False, repr=False)

    def table_cards(self) -> Counter[Card]:
        return _table_cards(self.table, self.counted)


def _table_cards(table: tuple[Meld, ...], counted: TableCount | None) -> Counter[Card]:
    """A fresh count of the table's cards: a copy of the parse's own count where it counted
    this very table (``dataclasses.replace`` with another table does not reuse it)."""
    if counted is not None and counted[0] is table:
        return Counter(counted[1])
    return Counter([tc.card for meld in table for tc in meld])


def resolve_ruleset(ruleset_id: str, players: int, errors: ProblemCollector) -> Ruleset | None:
    """Look up the ruleset and check the player count, recording problems."""
    ruleset = get_ruleset(ruleset_id)
    if ruleset is None:
        # The ids a client may send, so a typo is fixed without a second look-up; the echoed
        # id is cut so that a long one cannot push the list out of the capped description.
        known = ", ".join(RULESETS)
        errors.add("ruleset", f"unknown ruleset {ruleset_id[:40]!r} (known rulesets: {known})")
        return None
    if not ruleset.min_players <= players <= ruleset.max_players:
        errors.add(
            "players",
            f"{ruleset.id} is for {ruleset.min_players}-{ruleset.max_players} players, "
            f"not {players}",
        )
    return ruleset


def parse_cards(texts: Sequence[str], path: str, errors: ProblemCollector) -> list[Card]:
    try:  # every code readable (the usual case): no loop in Python
        return list(map(parse_card, texts))
    except NotationError:
        pass  # read again one by one, naming each bad code
    cards: list[Card] = []
    for i, text in enumerate(texts):
        try:
            cards.append(parse_card(text))
        except NotationError as exc:
            errors.add(f"{path}[{i}]", str(exc))
    return cards


def parse_melds(melds: Sequence[Sequence[str]], path: str, errors: ProblemCollector) -> list[Meld]:
    if len(melds) > MAX_MELDS:
        errors.add(path, f"at most {MAX_MELDS} melds, not {len(melds)}")
        return []
    # Every meld seen before (the usual case: a move repeats its table, and melds recur):
    # found without a loop in Python. Only melds within the bound are interned.
    found = list(map(_MELDS.get, map(tuple, melds)))
    if None not in found:
        return cast(list[Meld], found)
    out: list[Meld] = []
    for m, meld in enumerate(melds):
        if len(meld) > MAX_CARDS_PER_MELD:
            errors.add(f"{path}[{m}].cards", f"at most {MAX_CARDS_PER_MELD} cards in a meld")
            continue
        try:  # every code readable (the usual case): one look-up
            out.append(interned_meld(tuple(meld)))
            continue
        except NotationError:
            pass  # read again one by one, naming each bad code
        parsed: list[TableCard] = []
        for c, text in enumerate(meld):
            try:
                parsed.append(parse_table_card(text))
            except NotationError as exc:
                errors.add(f"{path}[{m}].cards[{c}]", str(exc))
        out.append(tuple(parsed))
    return out


# One meld object per text: a move repeats most of its position's melds, and the meld
# caches (melds.classify, table_change.meld_key) find an interned meld by identity.
_MELDS: dict[tuple[str, ...], Meld] = {}
_MOST_MELDS = 16384


_ON_CLEAR: list[Callable[[], None]] = []


def interned_meld(codes: tuple[str, ...]) -> Meld:
    """The one meld object of these canonical codes (raises NotationError for a bad one,
    remembering nothing): a request's parse, and a solver writing a meld the table or an
    earlier answer holds, get the object the meld caches (``melds.classify``,
    ``table_change.meld_key``, the answer's encoding) already know."""
    meld = _MELDS.get(codes)
    if meld is None:
        meld = tuple(map(parse_table_card, codes))
        if len(_MELDS) >= _MOST_MELDS:
            _MELDS.clear()
            INTERNED.clear()
            for clear in _ON_CLEAR:
                clear()
        _MELDS[codes] = meld
        INTERNED[id(meld)] = meld
    return meld


def on_interned_melds_cleared(clear: Callable[[], None]) -> None:
    """Call ``clear`` whenever the interned melds are forgotten (every ``_MOST_MELDS`` new
    ones): a caller's own index of them (``service.rummy.convert``'s by request bytes) is
    then forgotten too, so that every meld it gives is one the meld memos keep long."""
    _ON_CLEAR.append(clear)


_SPECIAL = operator.attrgetter("special")


def _any_foreign(ruleset: Ruleset, cards: Iterable[Card]) -> bool:
    """Whether any of ``cards`` is foreign to the ruleset's deck; only a special card can be,
    and those are few: found in C, then asked one by one."""
    return any(foreign_card(ruleset, card) for card in filter(_SPECIAL, cards))


def check_playable(
    ruleset: Ruleset, cards: Iterable[tuple[str, Card]], errors: ProblemCollector
) -> None:
    """Every card must belong to this ruleset's deck (no BROOM in rummy, no JK in shangai)."""
    for path, card in cards:
        problem = foreign_card(ruleset, card)
        if problem:
            errors.add(path, problem)


def check_counts(
    ruleset: Ruleset,
    players: int,
    counts: Counter[Card],
    path: str | Callable[[Card], str],
    errors: ProblemCollector,
) -> None:
    """No more copies of a card than the deck holds (R1); ``path`` names the field, or gives
    it per card. A card foreign to the deck is ``check_playable``'s to name, once."""
    deck = _deck(ruleset_key(ruleset), players)
    if not deck:
        return
    # Within the deck (the usual case), told without a loop in Python; a card foreign to
    # the deck counts 0 there, so it takes the loop below, which leaves it to check_playable.
    if all(map(operator.le, counts.values(), map(deck.__getitem__, counts))):
        return
    excess = ((c, n) for c, n in counts.items() if n > deck[c] and not foreign_card(ruleset, c))
    for card, count in sorted(excess):
        errors.add(
            path if isinstance(path, str) else path(card),
            f"{count} copies of {card.code}, but the {ruleset.id} deck for {players} "
            f"players has {deck[card]}",
        )


# Read twice per ValidateMove (the position, the move) and never changed: made once per
# ruleset and player count, not a Counter of the whole deck per call.
@functools.lru_cache(maxsize=256)
def _deck(key: RulesetKey, players: int) -> Counter[Card]:
    return key.ruleset.deck(players)


def check_deal_number(ruleset: Ruleset, deal: int, path: str, errors: ProblemCollector) -> None:
    """A contract game's deal is one of its deals (carioca: 1-7, C2); others ignore it."""
    last = ruleset.last_deal
    if last and not 1 <= deal <= last:
        errors.add(path, f"{ruleset.id} deals are 1-{last}, not {deal}")


def _report_invalid_meld(
    ruleset: Ruleset, m: int, meld: Meld, reason: str, errors: ProblemCollector
) -> None:
    """A meld of the position's table that is no meld: named at the card where one card is
    wrong whatever meld it is in (``9H=9H``; a card foreign to the deck, which
    ``check_playable`` has named already), else at the meld with the reason."""
    card_level = False
    for c, tc in enumerate(meld):
        if foreign_card(ruleset, tc.card):
            card_level = True
        elif problem := value_on_natural(ruleset, tc):
            errors.add(f"table[{m}].cards[{c}]", problem)
            card_level = True
    if not card_level:
        errors.add(f"table[{m}]", f"invalid meld on the table: {reason}")


def parse_position(
    ruleset_id: str,
    players: int,
    table: Sequence[Sequence[str]],
    hand: Sequence[str],
    turn: Turn | None = None,
    *,
    melds: Sequence[Meld] | None = None,
) -> Position:
    """Build a Position from card codes, or raise InvalidRequest listing every problem.

    ``melds``, when given, are the table's melds already read: at most ``MAX_MELDS``, each
    the interned meld this parse made of its codes before (``table`` is then not read)."""
    errors = ProblemCollector()
    ruleset = resolve_ruleset(ruleset_id, players, errors)
    melds = list(melds) if melds is not None else parse_melds(table, "table", errors)
    hand_cards = parse_cards(hand, "hand", errors)
    turn = turn or Turn()
    if turn.cards_drawn < 0 or turn.cards_drawn > 100:
        errors.add("turn.cards_drawn", f"cards_drawn must be 0-100, not {turn.cards_drawn}")
    if ruleset is None or errors.problems:
        errors.raise_if_any()
        raise AssertionError("unreachable")
    if service_of(ruleset) != "RummyService":
        errors.add("ruleset", f"{ruleset.id} is a fishing game: use {service_of(ruleset)}")
        errors.raise_if_any()
    check_deal_number(ruleset, turn.deal_number, "turn.deal_number", errors)
    # Only a special card can be foreign to the deck: paths are written for those alone (a
    # path per card was a fifth of parsing a position).
    check_playable(
        ruleset, ((f"hand[{i}]", c) for i, c in enumerate(hand_cards) if c.special), errors
    )
    table_cards = [tc.card for meld in melds for tc in meld]
    table_counts = Counter(table_cards)
    counts = Counter(table_counts)
    counts.update(hand_cards)
    # A table without a special card foreign to the deck (most; a joker is in most decks)
    # has nothing check_playable could name.
    any_special = _any_foreign(ruleset, table_cards)
    # A contract game's table holds melds grown by lay-offs (carioca: trios past 3 cards,
    # sequences up to 14, C5), not the opening's exact shapes.
    if ruleset.contract_rules is None:
        readings = classify_all(ruleset, melds)
    else:
        readings = [classify_table_meld(ruleset, meld) for meld in melds]
    # The problems meld by meld, in the table's order; a table of valid melds without a
    # special card (the usual one) has none.
    if any_special or not all(len(verdict.readings) == 1 for verdict in readings):
        for m, (meld, verdict) in enumerate(zip(melds, readings, strict=True)):
            if any_special:
                specials = (
                    (f"table[{m}].cards[{c}]", tc.card)
                    for c, tc in enumerate(meld)
                    if tc.card.special
                )
                check_playable(ruleset, specials, errors)
            if not verdict.ok:
                _report_invalid_meld(ruleset, m, meld, verdict.reason, errors)
    # An excess is named where the client can fix it: the hand when it holds the card.
    in_hand = set(hand_cards)
    check_counts(ruleset, players, counts, lambda c: "hand" if c in in_hand else "table", errors)
    errors.raise_if_any()
    read = tuple(melds)
    return Position(
        ruleset, players, read, tuple(hand_cards), turn, tuple(readings), (read, table_counts)
    )


def parse_move(
    position: Position,
    table: Sequence[Sequence[str]],
    to_hand: Sequence[str] = (),
    knock: bool = False,
    discard: str = "",
    *,
    melds: Sequence[Meld] | None = None,
) -> Move:
    """Build a Move from card codes, or raise InvalidRequest (paths relative to the move).

    An invalid meld in the move is *not* an error here: it is a violation the validator
    reports. Only what cannot be a card, or cannot exist in the deck, is malformed.
    ``melds``: the table's melds already read, as for ``parse_position``.
    """
    errors = ProblemCollector()
    ruleset = position.ruleset
    melds = list(melds) if melds is not None else parse_melds(table, "table", errors)
    back = parse_cards(to_hand, "to_hand", errors)
    discard_card: Card | None = None
    if discard:
        try:
            discard_card = parse_card(discard)
        except NotationError as exc:
            errors.add("discard", str(exc))
    counts = Counter([tc.card for meld in melds for tc in meld])
    # Only a special card can be foreign to the deck (as in parse_position): paths are
    # written for those alone, and looked for only when the table holds a foreign one.
    if _any_foreign(ruleset, counts):
        check_playable(
            ruleset,
            (
                (f"table[{m}].cards[{c}]", tc.card)
                for m, meld in enumerate(melds)
                for c, tc in enumerate(meld)
                if tc.card.special
            ),
            errors,
        )
    check_playable(ruleset, ((f"to_hand[{i}]", c) for i, c in enumerate(back) if c.special), errors)
    check_counts(ruleset, position.players, counts, "table", errors)
    errors.raise_if_any()
    read = tuple(melds)
    return Move(read, tuple(back), knock, discard_card, (read, counts))


def raise_prefixed(error: InvalidRequest, prefix: str) -> None:
    """Re-raise an InvalidRequest with its paths placed under ``prefix``."""
    raise error.prefixed(prefix) from error
