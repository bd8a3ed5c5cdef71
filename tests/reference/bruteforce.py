"""Exhaustive reference solver for tiny rearrangement positions (issue 4, evidence item 1).

It is deliberately simple and shares nothing with the CP-SAT model (``solver.search``): it
lists every candidate move and lets ``validate_move`` — the referee of R1-R10 — judge each.
The CP-SAT optima must equal the optima found here.

What it enumerates
------------------
Let T be the multiset of table cards and H the hand. A move is the whole table after the
play (SPEC §4) plus, in mexe-mexe only, the wild 2s taken back to the hand (R5).

1. **The meld catalogue** — every meld that can be written with cards of T + H, built from
   the rulings alone:

   - *sequences* (R2): every start position the ace rule allows
     (``Ruleset.sequence_positions``: 1 = low ace … 14 = high ace), every length from
     ``min_sequence`` to ``max_sequence`` (so never a wrap and never A-…-K-A), every suit where
     sequences are same-suit (one "any suit" pass elsewhere), and for every slot every card
     that can fill it: a natural card of the slot's rank (and suit), or any wild card (R4)
     written with the slot's value — ``JK=9`` where suits do not matter, ``JK=9H`` /
     ``2C=9H`` in same-suit sequences. A mexe-mexe 2 at its own natural slot is listed both
     as a natural card and as a wild standing for itself. At least one natural card (R4).
   - *groups* (R3): every rank, every set of distinct natural suits, every multiset of wild
     cards, ``group_min``..``group_max`` cards (never more than 4), at least one natural card;
     each wild written ``=rank``, and where sequences are same-suit also ``=rank+suit`` for
     each suit missing from the group (suited values distinct). These are all the values a
     wild can take in a group (R4): only a wild that stood in a same-suit sequence carries a
     suit, and it may keep it in a group; elsewhere a wild's value is its rank alone.
     A group's cards are written in one canonical order: the rulings give a group no order.

   Every wild is annotated, so each meld has exactly one reading (SPEC §2).

2. **The after-tables** — every multiset of catalogue melds whose cards are exactly
   (T - K) + P, where P ⊆ H is the multiset of hand cards laid and K ⊆ T the cards taken back
   (K = ∅ except in mexe-mexe, where K ranges over sub-multisets of the table's 2s). A
   recursion always decides the lowest card type still open: either lay no more copies of it
   (allowed once every table copy not taken back is placed) or choose a catalogue meld
   containing it. Melds anchored on the same card type are chosen in non-decreasing catalogue
   order, so every multiset of melds comes out exactly once. Identical cards are one type
   with a count, so no symmetric duplicate is ever generated. For a table whose count of a
   2 is p, every split of p into "table copies kept" and "hand copies laid" consistent with
   T and H gives its own ``to_hand`` candidate.

3. **Legality** — each candidate (after-table, to_hand) is judged by ``validate_move`` and by
   nothing else. The only moves never generated are those the rulings exclude outright: a card
   that is in neither T nor H, a table card going to the hand other than a mexe-mexe 2 (R6,
   R5), and a "play" that lays no hand card (R6: that is a pass).

Why this is exhaustive: a legal move's table consists of valid melds (R6); each is a sequence
or a group whose wilds have values (R2-R4); each such meld, up to the order of a group's cards,
is in the catalogue; its cards are (T - K) + P for some P ⊆ H and K as above; so step 2
produces the table and step 3 accepts it.

The optima (most hand cards laid, fewest hand points left, going out, and for the rulesets
whose adds must be maximal the largest *add* — a play with no net new meld) are exact
extrema over the accepted candidates. To stay fast the candidates are sorted by each objective
and validated lazily, best first, until the first legal one; ties are broken so that moves
that do not release a table wild come first, which makes "the witness releases a wild" mean
"every optimal move releases a wild".
"""

from __future__ import annotations

import bisect
import functools
import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from solver.cards import SUITS, Card, TableCard, WildValue
from solver.position import Meld, Move, Position
from solver.rulesets import Ruleset, SuitRule, rank_of_position
from solver.violations import ViolationCode

# ------------------------------------------------------------------------------------------
# The meld catalogue


@dataclass(frozen=True)
class CatalogueMeld:
    """One writable meld: its annotated cards and the multiset of physical cards it uses."""

    cards: Meld
    counts: tuple[tuple[Card, int], ...]  # sorted by card
    kind: str  # "sequence" or "group"


def _meld(cards: Sequence[TableCard], kind: str) -> CatalogueMeld:
    counts = Counter(tc.card for tc in cards)
    return CatalogueMeld(tuple(cards), tuple(sorted(counts.items())), kind)


def _sequences(ruleset: Ruleset, available: Counter[Card]) -> Iterator[tuple[TableCard, ...]]:
    """Every sequence (R2) writable with ``available``, wilds annotated (R4)."""
    suits: tuple[str | None, ...] = (
        SUITS if ruleset.sequence_suits is SuitRule.SAME_SUIT else (None,)
    )
    for suit in suits:
        for start in ruleset.sequence_positions:
            yield from _extend(ruleset, available, suit, start, [], Counter(), 0)


def _extend(
    ruleset: Ruleset,
    available: Counter[Card],
    suit: str | None,
    pos: int,
    slots: list[TableCard],
    used: Counter[Card],
    n_natural: int,
) -> Iterator[tuple[TableCard, ...]]:
    """Sequences that begin with ``slots`` and continue at rank position ``pos``."""
    if len(slots) >= ruleset.min_sequence and n_natural > 0:
        yield tuple(slots)
    if pos not in ruleset.sequence_positions or len(slots) >= ruleset.max_sequence:
        return
    rank = rank_of_position(pos)
    options: list[tuple[TableCard, int]] = [
        (TableCard(card), 1)
        for card in sorted(available)
        if card.is_ordinary and card.rank == rank and (suit is None or card.suit == suit)
    ]
    value = WildValue(rank, suit)
    options += [
        (TableCard(card, value), 0) for card in sorted(available) if ruleset.is_wild_card(card)
    ]
    for tc, natural in options:
        if used[tc.card] >= available[tc.card]:
            continue
        used[tc.card] += 1
        slots.append(tc)
        yield from _extend(ruleset, available, suit, pos + 1, slots, used, n_natural + natural)
        slots.pop()
        used[tc.card] -= 1


def _groups(ruleset: Ruleset, available: Counter[Card]) -> Iterator[tuple[TableCard, ...]]:
    """Every group (R3) writable with ``available``, every value its wilds can take (R4)."""
    wilds = sorted(c for c in available if ruleset.is_wild_card(c))
    top = min(ruleset.group_max, len(SUITS))
    suited = ruleset.sequence_suits is SuitRule.SAME_SUIT
    for rank in range(1, 14):
        suits_here = sorted({c.suit for c in available if c.is_ordinary and c.rank == rank})
        for n_nat in range(1, min(len(suits_here), top) + 1):
            for nat_suits in itertools.combinations(suits_here, n_nat):
                natural_cards = [Card(rank, s) for s in nat_suits]
                left = available - Counter(natural_cards)
                # A wild's value carries a suit only where sequences are same-suit (R4).
                missing = [s for s in SUITS if s not in nat_suits] if suited else []
                for n_wild in range(max(0, ruleset.group_min - n_nat), top - n_nat + 1):
                    pool = [w for w in wilds if left[w] > 0]
                    for chosen in itertools.combinations_with_replacement(pool, n_wild):
                        if any(Counter(chosen)[w] > left[w] for w in set(chosen)):
                            continue
                        yield from _annotate_group(rank, natural_cards, chosen, missing)


def _annotate_group(
    rank: int, naturals: list[Card], wilds: tuple[Card, ...], missing: list[str]
) -> Iterator[tuple[TableCard, ...]]:
    head = tuple(TableCard(c) for c in naturals)
    choices: list[str | None] = [None, *missing]
    seen: set[tuple[TableCard, ...]] = set()
    for values in itertools.product(choices, repeat=len(wilds)):
        suited = [v for v in values if v is not None]
        if len(set(suited)) < len(suited):
            continue
        tail = tuple(
            sorted(
                (TableCard(w, WildValue(rank, v)) for w, v in zip(wilds, values, strict=True)),
                key=lambda tc: (tc.card, tc.code),
            )
        )
        if tail in seen:
            continue
        seen.add(tail)
        yield head + tail


def catalogue(ruleset: Ruleset, available: Counter[Card]) -> list[CatalogueMeld]:
    """Every meld writable with the cards of ``available`` (step 1 of the module docstring)."""
    found: dict[tuple[TableCard, ...], CatalogueMeld] = {}
    for cards in _sequences(ruleset, available):
        found.setdefault(cards, _meld(cards, "sequence"))
    for cards in _groups(ruleset, available):
        found.setdefault(cards, _meld(cards, "group"))
    return sorted(found.values(), key=lambda m: (m.counts, m.kind, [tc.code for tc in m.cards]))


# ------------------------------------------------------------------------------------------
# After-tables and candidate moves


class Candidate(NamedTuple):
    """One candidate move with the effects the optima are computed from."""

    move: Move
    played: tuple[Card, ...]  # hand cards laid (sorted multiset)
    hand_after: tuple[Card, ...]
    points_after: int
    new_melds: int  # melds after minus melds before
    releases: bool  # some table wild does not keep its value (or goes to the hand)


def _table_multisets(
    melds: list[CatalogueMeld], lo: dict[Card, int], hi: dict[Card, int], wild: set[Card]
) -> tuple[tuple[int, ...], ...]:
    """Every multiset of catalogue melds using between lo[c] and hi[c] copies of each card.

    Card types are decided in the order: natural-only cards, then cards that can be wild
    (every meld has a natural card, so anchoring on naturals keeps the choices few). Each
    result lists catalogue indices in non-decreasing order. The recursion is memoised on
    (card type being decided, first catalogue index allowed, copies still available).
    """
    types = sorted(hi, key=lambda c: (c in wild, c))
    index = {c: i for i, c in enumerate(types)}
    uses = [tuple(sorted((index[c], k) for c, k in m.counts)) for m in melds]
    by_lowest: list[list[int]] = [[] for _ in types]
    for i, use in enumerate(uses):
        by_lowest[use[0][0]].append(i)
    lows = [lo[c] for c in types]
    highs = [hi[c] for c in types]

    @functools.cache
    def rec(ti: int, first: int, remaining: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        while ti < len(types) and remaining[ti] == 0:
            ti += 1
            first = 0
        if ti == len(types):
            return ((),)
        out: list[tuple[int, ...]] = []
        if highs[ti] - remaining[ti] >= lows[ti]:  # enough copies laid: lay no more
            out.extend(rec(ti + 1, 0, (*remaining[:ti], 0, *remaining[ti + 1 :])))
        anchored = by_lowest[ti]
        for i in anchored[bisect.bisect_left(anchored, first) :]:
            if any(remaining[c] < k for c, k in uses[i]):
                continue
            rest = list(remaining)
            for c, k in uses[i]:
                rest[c] -= k
            out.extend((i, *tail) for tail in rec(ti, i, tuple(rest)))
        return tuple(out)

    return rec(0, 0, tuple(highs))


def wild_values(ruleset: Ruleset, table: Sequence[Meld]) -> list[tuple[Card, WildValue]]:
    """The wilds of a table and the values they stand for (annotated, or from the reading)."""
    from solver.melds import classify

    out: list[tuple[Card, WildValue]] = []
    for meld in table:
        verdict = classify(ruleset, meld)
        if not verdict.ok:
            out.extend((tc.card, tc.value) for tc in meld if tc.value is not None)
            continue
        reading = verdict.reading
        for tc, value, is_wild in zip(meld, reading.values, reading.wild, strict=True):
            if is_wild:
                out.append((tc.card, value))
    return out


def keeps_wild_values(
    before: Sequence[tuple[Card, WildValue]], after: Sequence[tuple[Card, WildValue]]
) -> bool:
    """Can every wild before be matched to a distinct wild after with the same card and value?

    ``WildValue.matches`` is used (a suit missing on either side matches any suit), so a group
    wild written ``=9`` or ``=9H`` counts as keeping its value ``9``.
    """
    if not before:
        return True
    if len(after) < len(before):
        return False

    def match(i: int, used: frozenset[int]) -> bool:
        if i == len(before):
            return True
        card, value = before[i]
        for j, (card2, value2) in enumerate(after):
            if (
                j not in used
                and card2 == card
                and value.matches(value2)
                and match(i + 1, used | {j})
            ):
                return True
        return False

    return match(0, frozenset())


def candidates(position: Position) -> Iterator[Candidate]:
    """Every candidate move of the position (steps 1 and 2 of the module docstring)."""
    ruleset = position.ruleset
    table_counts = position.table_cards()
    hand_counts = Counter(position.hand)
    available = table_counts + hand_counts
    melds = catalogue(ruleset, available)
    to_hand_ok = {
        c for c in table_counts if ruleset.released_wild_to_hand and ruleset.is_wild_card(c)
    }
    lo = {c: (0 if c in to_hand_ok else table_counts[c]) for c in available}
    hi = {c: table_counts[c] + hand_counts[c] for c in available}
    wild = {c for c in available if ruleset.is_wild_card(c)}
    before_wilds = wild_values(ruleset, position.table)
    n_before = len(position.table)
    # Work on card-type indices: t, h = copies on the table and in the hand.
    types = sorted(available)
    index = {c: i for i, c in enumerate(types)}
    t = [table_counts[c] for c in types]
    h = [hand_counts[c] for c in types]
    points = [ruleset.points(c) for c in types]
    uses = [[(index[c], k) for c, k in m.counts] for m in melds]
    meld_wilds = [[(tc.card, tc.value) for tc in m.cards if tc.value is not None] for m in melds]
    for chosen in _table_multisets(melds, lo, hi, wild):
        after = [0] * len(types)
        for i in chosen:
            for c, k in uses[i]:
                after[c] += k
        # For each card type: after = t - back + played, 0 <= back <= t (mexe-mexe 2s), and
        # 0 <= played <= h.
        splits: list[list[tuple[int, int]]] = []
        for c, card in enumerate(types):
            if card in to_hand_ok:
                splits.append(
                    [
                        (after[c] - t[c] + k, k)
                        for k in range(t[c] + 1)
                        if 0 <= after[c] - t[c] + k <= h[c]
                    ]
                )
            else:
                splits.append([(after[c] - t[c], 0)])
        table = tuple(melds[i].cards for i in chosen)
        after_wilds = [w for i in chosen for w in meld_wilds[i]]
        kept = keeps_wild_values(before_wilds, after_wilds)
        for combo in itertools.product(*splits):
            if not any(j for j, _ in combo):
                continue  # no hand card laid: a pass, not a play (R6)
            played: list[Card] = []
            back: list[Card] = []
            left: list[Card] = []
            points_after = 0
            for card, (j, k), held, value in zip(types, combo, h, points, strict=True):
                played += [card] * j
                back += [card] * k
                left += [card] * (held - j + k)
                points_after += value * (held - j + k)
            yield Candidate(
                move=Move(table, tuple(back)),
                played=tuple(played),
                hand_after=tuple(left),
                points_after=points_after,
                new_melds=len(table) - n_before,
                releases=not kept or bool(back),
            )


# ------------------------------------------------------------------------------------------
# The optima


class _Verdict(Protocol):
    @property
    def legal(self) -> bool: ...

    @property
    def violations(self) -> Sequence[object]: ...


Validator = Callable[[Position, Move], _Verdict]


@dataclass(frozen=True)
class Best:
    """One optimum: its value and a legal move reaching it (the witness)."""

    value: int
    witness: Candidate


@dataclass
class Optima:
    """Everything the differential test compares, for one position."""

    candidates: int
    validated: int
    most_cards: Best | None  # None: no legal play at all
    fewest_points: Best | None
    go_out: Best | None  # None: going out is impossible
    add_only: Best | None  # largest add (net new melds <= 0), legal but for maximality
    notes: list[str] = field(default_factory=list)  # oddities seen in the validator

    @property
    def any_play(self) -> bool:
        return self.most_cards is not None


def _codes(verdict: _Verdict) -> set[ViolationCode]:
    return {getattr(v, "code") for v in verdict.violations}  # noqa: B009


def solve(position: Position, validate: Validator | None = None) -> Optima:
    """The exact optima of the position over every legal candidate move."""
    if validate is None:
        from solver.validate import validate_move

        validate = validate_move
    pool = list(candidates(position))
    cache: dict[int, _Verdict] = {}

    def verdict(i: int) -> _Verdict:
        if i not in cache:
            cache[i] = validate(position, pool[i].move)
        return cache[i]

    def first(order: list[int], ok: Callable[[int], bool]) -> Candidate | None:
        for i in order:
            if ok(i):
                return pool[i]
        return None

    def legal(i: int) -> bool:
        return verdict(i).legal

    def legal_but_maximality(i: int) -> bool:
        return _codes(verdict(i)) <= {ViolationCode.ADD_NOT_MAXIMAL}

    idx = list(range(len(pool)))
    most_order = sorted(idx, key=lambda i: (-len(pool[i].played), pool[i].releases))
    points_order = sorted(idx, key=lambda i: (pool[i].points_after, pool[i].releases))
    out_order = sorted((i for i in idx if not pool[i].hand_after), key=lambda i: pool[i].releases)

    most = first(most_order, legal)
    points = first(points_order, legal)
    gone = first(out_order, legal)
    optima = Optima(
        candidates=len(pool),
        validated=0,
        most_cards=Best(len(most.played), most) if most else None,
        fewest_points=Best(points.points_after, points) if points else None,
        go_out=Best(0, gone) if gone else None,
        add_only=None,
    )
    if position.ruleset.add_must_be_maximal:
        add_order = [i for i in most_order if pool[i].new_melds <= 0]
        add = first(add_order, legal_but_maximality)
        if add is not None:
            optima.add_only = Best(len(add.played), add)
            _check_maximality(pool, add_order, cache, len(add.played), optima.notes)
    optima.validated = len(cache)
    return optima


def _check_maximality(
    pool: list[Candidate],
    add_order: list[int],
    cache: dict[int, _Verdict],
    best: int,
    notes: list[str],
) -> None:
    """Independent check of R8's maximal add on the adds already validated."""
    for i in add_order:
        if i not in cache:
            continue
        codes = _codes(cache[i])
        if not codes <= {ViolationCode.ADD_NOT_MAXIMAL}:
            continue
        n = len(pool[i].played)
        flagged = ViolationCode.ADD_NOT_MAXIMAL in codes
        if (n < best) != flagged:
            notes.append(
                f"R8 maximality: an add of {n} card(s) (largest add {best}) was "
                f"{'flagged' if flagged else 'not flagged'} ADD_NOT_MAXIMAL: "
                f"{format_move(pool[i].move)}"
            )


# ------------------------------------------------------------------------------------------
# Printing


def format_meld(meld: Meld) -> str:
    return " ".join(tc.code for tc in meld)


def format_move(move: Move) -> str:
    text = " | ".join(format_meld(m) for m in move.table)
    if move.to_hand:
        text += "  to_hand: " + " ".join(c.code for c in move.to_hand)
    return text


def format_position(position: Position) -> str:
    turn = position.turn
    return (
        f"{position.ruleset.id} players={position.players} "
        f"table=[{' | '.join(format_meld(m) for m in position.table)}] "
        f"hand=[{' '.join(c.code for c in position.hand)}] "
        f"turn(cards_drawn={turn.cards_drawn}, stock_empty={turn.stock_empty}, "
        f"has_melded_sequence={turn.has_melded_sequence}, has_opened={turn.has_opened})"
    )
