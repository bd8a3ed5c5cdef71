"""Exhaustive reference solver for tiny rearrangement positions (issue 4, evidence item 1).

It is deliberately simple and shares nothing with the CP-SAT model
(``solver.rearrangement.search``): it
lists every candidate move and lets ``judge_move`` — the referee of R1-R10 — judge each.
The CP-SAT optima must equal the optima found here. It is meant for tiny positions (about
12 cards in table and hand, at most two or three wild-capable cards).

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

2. **The after-tables** — for every *split* (P, K), where P ⊆ H is the multiset of hand
   cards laid (P ≠ ∅) and K ⊆ T the cards taken back (K = ∅ except in mexe-mexe, where K
   ranges over sub-multisets of the table's 2s), every multiset of catalogue melds whose
   cards are exactly (T - K) + P: an exact cover, found by a recursion that always covers
   the first card type still uncovered (natural-only cards first) with a meld *shape* (a
   multiset of cards that some catalogue melds have) containing it. Shapes anchored on the
   same card type are chosen in non-decreasing order, so every multiset of shapes comes out
   exactly once; then every catalogue meld of each shape is substituted (a shape used m
   times takes a multiset of m of its melds). Identical cards are one type with a count, so
   no symmetric duplicate is generated; the recursion is memoised on what is left to cover.
   Two splits may give the same table with different ``to_hand`` (a 2 taken back and
   another 2 laid): both are candidates. A 2 laid while an identical 2 is taken back is a
   *swap*: table and hand end as they were, so the pair lays nothing, and what a split lays
   is counted net of swaps (docs/rules.md, "What counts as laid"). The pair still matters
   to legality (the laid 2 may be the hand card that releases another wild), so such
   splits stay candidates.

3. **Legality** — each candidate (after-table, to_hand) is judged by
   ``judge_move(..., search_rules=False)``: every ruling R1-R10 except the two R8 rules
   that ask a search (MUST_PLAY, ADD_NOT_MAXIMAL), because the validator would answer those
   with the CP-SAT model under test. The reference applies them itself, from its own
   enumeration: in shangai and manipulation a legal play is a meld play (net +1 meld) or an
   add (net <= 0) laying as many hand cards as the largest add. Also from the SPEC, R8's
   draw rule: a turn state that forbids any play (a third carrossel draw, no mexe-mexe draw,
   a vatikan/rummikub draw) has no legal play; the validator must then reject a sample of
   the candidates too (a disagreement becomes a note).
   The only moves never generated are those the rulings exclude outright: a card that is in
   neither T nor H, a table card going to the hand other than a mexe-mexe 2 (R6, R5), and a
   "play" that lays no hand card net of swaps (R6: that is a pass, or a rearrangement
   without a hand card).

Why this is exhaustive: a legal move's table consists of valid melds (R6); each is a sequence
or a group whose wilds have values (R2-R4); each such meld, up to the order of a group's cards
and the spelling of a wild's value (``JK=8`` for ``JK=8H`` in a hearts run), is in the
catalogue; its cards are (T - K) + P for some split (P, K); so step 2 produces the table and
step 3 accepts it.

The optima (most hand cards laid, fewest hand points left, going out, the largest add in
shangai and manipulation, and in mexe-mexe the largest play that takes a 2 back) are exact
extrema over the legal candidates. To stay fast the splits are visited best first for each
objective (P by size, or by the points H - P + K leaves) and validated lazily until the
first legal candidate; within a level, moves that release no table wild come first, then
those that take nothing back, so "the witness releases a wild" means "every optimal move
releases a wild".
"""

from __future__ import annotations

import bisect
import functools
import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from solver.core.cards import SUITS, Card, TableCard, WildValue
from solver.core.rulesets import DrawRule, Ruleset, SuitRule, rank_of_position
from solver.rearrangement.referee import Verdict, judge_move
from solver.rummy.melds import classify
from solver.rummy.position import Meld, Move, Position

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
        SUITS if ruleset.melds.sequence_suits is SuitRule.SAME_SUIT else (None,)
    )
    wilds = sorted(c for c in available if ruleset.is_wild_card(c))
    for suit in suits:
        # What may fill each rank position: natural cards of its rank (and suit), or a wild.
        slots: dict[int, list[tuple[TableCard, int]]] = {}
        for pos in ruleset.sequence_positions:
            rank = rank_of_position(pos)
            naturals = [
                (TableCard(card), 1)
                for card in sorted(available)
                if card.is_ordinary and card.rank == rank and suit in (None, card.suit)
            ]
            value = WildValue(rank, suit)
            slots[pos] = naturals + [(TableCard(card, value), 0) for card in wilds]
        for start in ruleset.sequence_positions:
            yield from _extend(ruleset, available, slots, start, [], Counter(), 0)


def _extend(
    ruleset: Ruleset,
    available: Counter[Card],
    slots: dict[int, list[tuple[TableCard, int]]],
    pos: int,
    chosen: list[TableCard],
    used: Counter[Card],
    n_natural: int,
) -> Iterator[tuple[TableCard, ...]]:
    """Sequences that begin with ``chosen`` and continue at rank position ``pos``."""
    if len(chosen) >= ruleset.melds.min_sequence and n_natural > 0:
        yield tuple(chosen)
    if pos not in slots or len(chosen) >= ruleset.melds.max_sequence:
        return
    for tc, natural in slots[pos]:
        if used[tc.card] >= available[tc.card]:
            continue
        used[tc.card] += 1
        chosen.append(tc)
        yield from _extend(ruleset, available, slots, pos + 1, chosen, used, n_natural + natural)
        chosen.pop()
        used[tc.card] -= 1


def _groups(ruleset: Ruleset, available: Counter[Card]) -> Iterator[tuple[TableCard, ...]]:
    """Every group (R3) writable with ``available``, every value its wilds can take (R4)."""
    wilds = sorted(c for c in available if ruleset.is_wild_card(c))
    top = min(ruleset.melds.group_max, len(SUITS))
    suited = ruleset.melds.sequence_suits is SuitRule.SAME_SUIT
    for rank in range(1, 14):
        suits_here = sorted({c.suit for c in available if c.is_ordinary and c.rank == rank})
        for n_nat in range(1, min(len(suits_here), top) + 1):
            for nat_suits in itertools.combinations(suits_here, n_nat):
                natural_cards = [Card(rank, s) for s in nat_suits]
                left = available - Counter(natural_cards)
                # A wild's value carries a suit only where sequences are same-suit (R4).
                missing = [s for s in SUITS if s not in nat_suits] if suited else []
                for n_wild in range(max(0, ruleset.melds.group_min - n_nat), top - n_nat + 1):
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


def wild_values(ruleset: Ruleset, table: Sequence[Meld]) -> list[tuple[Card, WildValue]]:
    """The wilds of a table and the values they stand for (from each meld's reading)."""
    out: list[tuple[Card, WildValue]] = []
    for meld in table:
        reading = classify(ruleset, meld).reading
        for tc, value, is_wild in zip(meld, reading.values, reading.wild, strict=True):
            if is_wild:
                out.append((tc.card, value))
    return out


def keeps_wild_values(
    before: Sequence[tuple[Card, WildValue]], after: Sequence[tuple[Card, WildValue]]
) -> bool:
    """Can every wild before be matched to a distinct wild after with the same card and value?

    ``WildValue.matches`` is used (a suit missing on either side matches any suit). Only used
    to sort and count candidates ("does this move release a wild?"), never to judge them.
    """

    def match(i: int, used: frozenset[int]) -> bool:
        if i == len(before):
            return True
        card, value = before[i]
        return any(
            j not in used and card2 == card and value.matches(value2) and match(i + 1, used | {j})
            for j, (card2, value2) in enumerate(after)
        )

    return len(after) >= len(before) and match(0, frozenset())


class Enumeration:
    """Steps 1 and 2 of the module docstring for one position, computed on demand.

    Card types are indexed; ``t[c]``/``h[c]`` are the copies of type ``c`` on the table and in
    the hand. A *split* is (P, K): the copies laid from the hand and taken back to the hand,
    per type. Its after-table holds exactly ``t - K + P`` copies of each type; ``tables``
    lists every multiset of catalogue melds with exactly those cards (an exact cover).
    """

    def __init__(self, position: Position) -> None:
        ruleset = position.ruleset
        self.position = position
        table_counts = position.table_cards()
        hand_counts = Counter(position.hand)
        available = table_counts + hand_counts
        # Natural-only cards first, wild-capable ones last: every meld has a natural card,
        # so a meld anchored on its first card type is anchored on a natural where possible.
        self.types = sorted(available, key=lambda c: (ruleset.is_wild_card(c), c))
        index = {c: i for i, c in enumerate(self.types)}
        self.t = tuple(table_counts[c] for c in self.types)
        self.h = tuple(hand_counts[c] for c in self.types)
        self.points = tuple(ruleset.points(c) for c in self.types)
        self.back_ok = tuple(
            ruleset.rearrangement.released_wild_to_hand and ruleset.is_wild_card(c)
            for c in self.types
        )
        self.melds = catalogue(ruleset, available)
        # Melds with the same cards (a wild's values, a run's suit) share one *shape*: the
        # covers are found over shapes, then every meld of each shape is substituted.
        shapes: dict[tuple[tuple[int, int], ...], list[int]] = {}
        for i, m in enumerate(self.melds):
            shape = tuple(sorted((index[c], k) for c, k in m.counts))
            shapes.setdefault(shape, []).append(i)
        self.shapes = sorted(shapes)
        self.variants = [shapes[shape] for shape in self.shapes]
        self.by_first: list[list[int]] = [[] for _ in self.types]
        for u, shape in enumerate(self.shapes):
            self.by_first[shape[0][0]].append(u)
        self.meld_wilds = [
            [(tc.card, tc.value) for tc in m.cards if tc.value is not None] for m in self.melds
        ]
        self.before_wilds = wild_values(ruleset, position.table)
        self._tables: dict[tuple[tuple[int, ...], tuple[int, ...]], list[Candidate]] = {}
        # Memoised per position (a cache on the method would keep every position alive).
        self._cover = functools.cache(self._cover_uncached)

    def splits(self) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """Every (P, K) that lays at least one hand card net of swaps (R6: otherwise it is a
        pass or a rearrangement without a hand card)."""
        lay = [range(h + 1) for h in self.h]
        back = [
            range(t + 1) if ok else range(1) for t, ok in zip(self.t, self.back_ok, strict=True)
        ]
        every = [(p, k) for p in itertools.product(*lay) for k in itertools.product(*back)]
        return [split for split in every if laid(split)]

    def points_after(self, split: tuple[tuple[int, ...], tuple[int, ...]]) -> int:
        p, k = split
        return sum(v * (h - j + b) for v, h, j, b in zip(self.points, self.h, p, k, strict=True))

    def cards_left(self, split: tuple[tuple[int, ...], tuple[int, ...]]) -> int:
        p, k = split
        return sum(h - j + b for h, j, b in zip(self.h, p, k, strict=True))

    def tables(self, split: tuple[tuple[int, ...], tuple[int, ...]]) -> list[Candidate]:
        """Every candidate move of that split (memoised)."""
        if split not in self._tables:
            self._tables[split] = list(self._candidates(split))
        return self._tables[split]

    def _candidates(self, split: tuple[tuple[int, ...], tuple[int, ...]]) -> Iterator[Candidate]:
        p, k = split
        need = tuple(t - b + j for t, b, j in zip(self.t, k, p, strict=True))
        played = tuple(c for c, j, b in zip(self.types, p, k, strict=True) for _ in range(j - b))
        back = tuple(c for c, b in zip(self.types, k, strict=True) for _ in range(b))
        left = tuple(
            c for c, h, j, b in zip(self.types, self.h, p, k, strict=True) for _ in range(h - j + b)
        )
        points = self.points_after(split)
        n_before = len(self.position.table)
        for chosen in self.covers(need):
            after_wilds = [w for i in chosen for w in self.meld_wilds[i]]
            kept = not back and keeps_wild_values(self.before_wilds, after_wilds)
            yield Candidate(
                move=Move(tuple(self.melds[i].cards for i in chosen), tuple(sorted(back))),
                played=tuple(sorted(played)),
                hand_after=tuple(sorted(left)),
                points_after=points,
                new_melds=len(chosen) - n_before,
                releases=not kept,
            )

    def covers(self, need: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        """Every multiset of catalogue melds (indices) with exactly ``need`` copies per type."""
        for shapes in self._cover(0, 0, need):
            per_shape = [
                itertools.combinations_with_replacement(self.variants[u], m)
                for u, m in sorted(Counter(shapes).items())
            ]
            for choice in itertools.product(*per_shape):
                yield tuple(i for melds in choice for i in melds)

    def _cover_uncached(
        self, ti: int, first: int, remaining: tuple[int, ...]
    ) -> tuple[tuple[int, ...], ...]:
        """Every multiset of shapes using exactly ``remaining`` (shape indices ascending).

        The lowest card type still to place is ``ti``; shapes anchored on it (their first
        type) are tried from shape index ``first`` on, so each multiset comes out once.
        """
        while ti < len(remaining) and remaining[ti] == 0:
            ti += 1
            first = 0
        if ti == len(remaining):
            return ((),)
        out: list[tuple[int, ...]] = []
        anchored = self.by_first[ti]
        for u in anchored[bisect.bisect_left(anchored, first) :]:
            shape = self.shapes[u]
            if any(remaining[c] < n for c, n in shape):
                continue
            rest = list(remaining)
            for c, n in shape:
                rest[c] -= n
            out.extend((u, *tail) for tail in self._cover(ti, u, tuple(rest)))
        return tuple(out)


def candidates(position: Position) -> Iterator[Candidate]:
    """Every candidate move of the position (steps 1 and 2 of the module docstring)."""
    enumeration = Enumeration(position)
    for split in enumeration.splits():
        yield from enumeration.tables(split)


# ------------------------------------------------------------------------------------------
# The optima


Validator = Callable[[Position, Move], Verdict]


def base_validator(position: Position, move: Move) -> Verdict:
    """The referee (``judge_move``) without R8's search rules, which the reference applies
    itself."""
    return judge_move(position, move, max_placed=None, search_rules=False)


@dataclass(frozen=True)
class Best:
    """One optimum: its value and a legal move reaching it (the witness)."""

    value: int
    witness: Candidate


@dataclass
class Optima:
    """Everything the differential test compares, for one position."""

    most_cards: Best | None  # None: no legal play at all
    fewest_points: Best | None
    go_out: Best | None  # None: going out is impossible
    add_only: Best | None  # largest add (no net new meld), legal but for R8's maximality
    to_hand: Best | None = None  # mexe-mexe: the largest legal play with a 2 taken back
    knock: Best | None = None  # carrossel: a legal play after which a knock is allowed (R10)
    # SPEC §4 tie-break: among the plays placing the most cards, the fewest melds before
    # that are not on the table after as they were.
    fewest_changed: int | None = None
    candidates: int = 0  # candidate moves generated
    validated: int = 0  # of which judged by the validator
    notes: list[str] = field(default_factory=list)  # disagreements with the full validator

    @property
    def any_play(self) -> bool:
        return self.most_cards is not None

    def max_placed(self, _: Position, max_new_melds: int | None = None) -> int:
        """R8's search question answered by the reference, in the shape ``judge_move``
        takes as ``max_placed``: the largest add (``max_new_melds=0``) or the largest play."""
        best = self.add_only if max_new_melds == 0 else self.most_cards
        return best.value if best else 0


Split = tuple[tuple[int, ...], tuple[int, ...]]


def laid(split: Split) -> int:
    """Hand cards a split lays, net of swaps (an identical card taken back)."""
    p, k = split
    return sum(max(0, j - b) for j, b in zip(p, k, strict=True))


def solve(position: Position, validate: Validator = base_validator) -> Optima:
    """The exact optima of the position over every legal candidate move.

    ``validate`` judges R1-R10 except R8's search rules (a pass when a play exists, an add
    that is not maximal): those ask "what is the best add?", and the reference answers that
    itself, from its own enumeration, rather than from the CP-SAT model the validator would
    otherwise consult. A move is legal when ``validate`` accepts it and, in the rulesets
    whose adds must be maximal (shangai, manipulation), it is a meld play (net +1) or an add
    laying as many hand cards as the largest add does.
    """
    ruleset = position.ruleset
    enumeration = Enumeration(position)
    splits = enumeration.splits()
    verdicts: dict[Move, Verdict] = {}
    if not turn_allows_play(position):
        return _no_play_turn(position, enumeration, splits, validate)

    def base_legal(c: Candidate) -> bool:
        if c.move not in verdicts:
            verdicts[c.move] = validate(position, c.move)
        return verdicts[c.move].legal

    def best(ordered: list[list[Split]], keep: Callable[[Candidate], bool]) -> Candidate | None:
        """The first legal candidate, level by level; in a level, moves that release no wild
        first, then those that take nothing back to the hand."""
        for level in ordered:
            pool = [c for split in level for c in enumeration.tables(split) if keep(c)]
            pool.sort(key=lambda c: (c.releases, bool(c.move.to_hand)))
            for c in pool:
                if base_legal(c):
                    return c
        return None

    def levels(key: Callable[[Split], int], chosen: list[Split]) -> list[list[Split]]:
        ordered = sorted(chosen, key=key)
        return [list(g) for _, g in itertools.groupby(ordered, key=key)]

    by_most = levels(lambda s: -laid(s), splits)
    add_only = None
    if ruleset.rearrangement.add_must_be_maximal:
        add_only = best(by_most, lambda c: c.new_melds <= 0)
    largest_add = len(add_only.played) if add_only else 0

    def legal_play(c: Candidate) -> bool:
        """R8: in shangai and manipulation an add lays as many hand cards as the largest add."""
        maximal = c.new_melds > 0 or len(c.played) == largest_add
        return maximal or not ruleset.rearrangement.add_must_be_maximal

    most = best(by_most, legal_play)
    fewest_changed = None
    if most is not None:
        level = next(lv for lv in by_most if laid(lv[0]) == len(most.played))
        fewest_changed = _fewest_changed(position, enumeration, level, legal_play, base_legal)
    to_hand = None
    # mexe-mexe: the largest play taking a 2 back (R5)
    if ruleset.rearrangement.released_wild_to_hand:
        taking = [s for s in splits if any(b > j for j, b in zip(*s, strict=True))]
        to_hand = best(levels(lambda s: -laid(s), taking), legal_play)
    points = best(levels(enumeration.points_after, splits), legal_play)
    gone = best([[s for s in splits if enumeration.cards_left(s) == 0]], legal_play)
    knock = None
    if ruleset.knock_threshold:
        # R10: "After a play that placed >= 1 hand card and left a hand worth 1-5 points"
        # (every split lays a hand card); the fewest points first, for a witness.
        allowed = [s for s in splits if 1 <= enumeration.points_after(s) <= ruleset.knock_threshold]
        found = best(levels(enumeration.points_after, allowed), legal_play)
        knock = Best(found.points_after, found) if found else None
    optima = Optima(
        most_cards=Best(len(most.played), most) if most else None,
        fewest_points=Best(points.points_after, points) if points else None,
        go_out=Best(0, gone) if gone else None,
        add_only=Best(largest_add, add_only) if add_only else None,
        to_hand=Best(len(to_hand.played), to_hand) if to_hand else None,
        knock=knock,
        fewest_changed=fewest_changed,
        candidates=sum(len(v) for v in enumeration._tables.values()),
        validated=len(verdicts),
    )
    if ruleset.rearrangement.add_must_be_maximal:
        _cross_check(position, optima)
    return optima


def as_seen(move: Move) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    """A move as a player sees it (SPEC §4 "distinct"): each meld's cards with their
    written values in any order, the melds in any order, and the cards taken back."""
    melds = sorted(tuple(sorted(tc.code for tc in meld)) for meld in move.table)
    return tuple(melds), tuple(sorted(c.code for c in move.to_hand))


def legal_moves_where(
    position: Position,
    keep: Callable[[Enumeration, Split], bool],
    largest_add: int,
    validate: Validator = base_validator,
) -> list[Candidate]:
    """Every legal move whose split ``keep`` accepts (e.g. all moves placing more than some
    number of cards), each table once. ``largest_add`` is R8's (``Optima.add_only``)."""
    enumeration = Enumeration(position)
    maximal_rule = position.ruleset.rearrangement.add_must_be_maximal
    found: dict[tuple[tuple[tuple[str, ...], ...], tuple[str, ...]], Candidate] = {}
    for split in enumeration.splits():
        if not keep(enumeration, split):
            continue
        for c in enumeration.tables(split):
            if maximal_rule and c.new_melds <= 0 and len(c.played) != largest_add:
                continue
            key = as_seen(c.move)
            if key not in found and validate(position, c.move).legal:
                found[key] = c
    return list(found.values())


def melds_changed(position: Position, table: Sequence[Meld]) -> int:
    """Melds before with no meld of the very same cards after, each wild standing for the
    same rank (the reference's own count).

    A wild's rank is compared because another copy of a natural card can release it and
    the same cards then make another meld (`AS JK=A JK=A` becoming `AS JK=2 JK=3`); its suit
    is only a note in a group and the naturals' in a run.
    """
    after = Counter(_cards_and_ranks(meld) for meld in table)
    changed = 0
    for classified in position.readings:
        key = _cards_and_ranks(classified.normalized)
        if after[key] > 0:
            after[key] -= 1
        else:
            changed += 1
    return changed


def _cards_and_ranks(meld: Sequence[TableCard]) -> tuple[tuple[str, int], ...]:
    """A meld's cards, each with the rank it stands for as a wild (0: as itself)."""
    return tuple(
        sorted(
            (
                tc.card.code,
                0 if tc.value is None or tc.value.rank == tc.card.rank else tc.value.rank,
            )
            for tc in meld
        )
    )


def _fewest_changed(
    position: Position,
    enumeration: Enumeration,
    level: list[Split],
    legal_play: Callable[[Candidate], bool],
    legal: Callable[[Candidate], bool],
) -> int | None:
    """The fewest melds changed by a legal play of this level: candidates in order of
    their count, so only those up to the first legal one are judged."""
    pool = [
        (melds_changed(position, c.move.table), c)
        for split in level
        for c in enumeration.tables(split)
        if legal_play(c)
    ]
    pool.sort(key=lambda counted: counted[0])
    return next((n for n, c in pool if legal(c)), None)


def turn_allows_play(position: Position) -> bool:
    """R8, read from the SPEC: may the player lay cards at all, given the draws this turn?

    carrossel: 1 or 2 drawn (0 with the stock empty); mexe-mexe: exactly 1 (0 with the stock
    empty); vatikan and rummikub: none (drawing ends the turn); shangai and manipulation:
    always (a player draws only while unable to play, then plays).
    """
    turn = position.turn
    rule = position.ruleset.draw_rule
    empty_and_none = turn.stock_empty and turn.cards_drawn == 0
    if rule is DrawRule.ONE_TO_THREE:
        return turn.cards_drawn in (1, 2) or empty_and_none
    if rule is DrawRule.EXACTLY_ONE:
        return turn.cards_drawn == 1 or empty_and_none
    if rule is DrawRule.DRAW_OR_PLAY:
        return turn.cards_drawn == 0
    return True


# Candidates the validator must reject when the turn forbids any play: a sample, enough to
# catch a validator that ignores the turn, without judging thousands of doomed moves.
NO_PLAY_SAMPLE = 25


def _no_play_turn(
    position: Position, enumeration: Enumeration, splits: list[Split], validate: Validator
) -> Optima:
    """No legal play (R8); the validator must agree on a sample of the candidates."""
    optima = Optima(None, None, None, None)
    every = (c for split in splits for c in enumeration.tables(split))
    sample = list(itertools.islice(every, NO_PLAY_SAMPLE))
    optima.candidates = sum(len(v) for v in enumeration._tables.values())
    optima.validated = len(sample)
    for c in sample:
        if validate(position, c.move).legal:
            optima.notes.append(
                f"the turn forbids a play (R8) but the validator accepts [{format_move(c.move)}]"
            )
            break
    return optima


def _cross_check(position: Position, optima: Optima) -> None:
    """The full validator, asking the reference for the largest add, must accept the
    witnesses: a check of how the referee wires R8's search rules."""
    for name in ("most_cards", "fewest_points", "go_out"):
        found: Best | None = getattr(optima, name)
        if found is None:
            continue
        verdict = judge_move(position, found.witness.move, max_placed=optima.max_placed)
        if not verdict.legal:
            optima.notes.append(
                f"{name} witness {format_move(found.witness.move)} is rejected by the full "
                f"validator: {'; '.join(str(v) for v in verdict.violations)}"
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
