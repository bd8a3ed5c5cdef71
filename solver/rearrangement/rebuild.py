"""Turn a solved ``TurnModel`` back into a table of melds, written in card notation."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any, TypeVar

from ortools.sat.python import cp_model, cp_model_helper

from solver.core.cards import ORDINARY_CARDS, SUITS, Card, TableCard, WildValue
from solver.core.rulesets import rank_of_position
from solver.rearrangement.model import Code, MeldSlot, TurnModel
from solver.rummy.melds import MeldKind
from solver.rummy.position import Meld, Move

# What ``CpSolver.value`` calls, without its method frame (for expressions: sums).
_VALUE = cp_model_helper.ResponseHelper.value
_INT_VAR = cp_model_helper.IntVar


class Solution:
    """A solved model's values, the solution vector read once: a rebuilt table reads a few
    hundred values, and indexing a list costs a fraction of asking OR-Tools for each."""

    __slots__ = ("_response", "_values")

    def __init__(self, solver: cp_model.CpSolver) -> None:
        self._response = solver._checked_response
        self._values: list[int] = list(self._response.solution)

    def value(self, expr: cp_model.LinearExprT) -> int:
        if type(expr) is _INT_VAR:
            return self._values[expr.index]
        if type(expr) is int:
            return expr
        return int(_VALUE(self._response, expr))

    def nonzero(self, counts: dict[K, cp_model.IntVar]) -> list[tuple[K, int]]:
        """The keys of ``counts`` whose variable is not 0 in the solution, with its value."""
        keys, indices = _indices(counts)
        values = self._values
        return [(key, n) for key, i in zip(keys, indices, strict=True) if (n := values[i])]


K = TypeVar("K")

# The variables' indices of a dict of counts, per dict: a copy of the deck's model
# (``model.deck``) shares its pool's dicts with every position, whose rebuild then reads
# their hundreds of counts without asking each variable for its index. Each entry holds
# its dict, so no other dict can take its id while it is here; bounded, as models built
# for one position bring dicts of their own.
_INDICES: dict[int, tuple[dict[Any, cp_model.IntVar], list[Any], list[int]]] = {}
_MAX_INDICES = 64


def _indices(counts: dict[K, cp_model.IntVar]) -> tuple[list[K], list[int]]:
    known = _INDICES.get(id(counts))
    if known is not None and known[0] is counts:
        return known[1], known[2]
    keys = list(counts)
    indices = [var.index for var in counts.values()]
    if len(_INDICES) >= _MAX_INDICES:
        _INDICES.clear()
    _INDICES[id(counts)] = (counts, keys, indices)
    return keys, indices


# Every natural card as written on the table, made once: a rebuilt table holds dozens, and
# making a frozen dataclass costs about a microsecond.
_NATURALS = {(card.rank, card.suit): TableCard(card) for card in ORDINARY_CARDS}


def _natural(rank: int, suit: str) -> TableCard:
    return _NATURALS[(rank, suit)]


def rebuild_move(tm: TurnModel, solver: cp_model.CpSolver) -> Move:
    """The move a solution describes (which melds it changed is counted on its table, by
    ``search.changed_melds``)."""
    sol = Solution(solver)
    data = tm.data
    variables = tm.variables
    pool = tm.variables.pool
    melds: list[Meld] = []
    # A meld kept in a slot is that slot's meld, written below (KeptMelds.in_slot).
    for m, held in enumerate(variables.kept.held):
        if sol.value(held):
            melds.append(data.position.readings[m].normalized)
    free: list[Card] = []
    for card, var in variables.free_wilds.items():
        free += [card] * sol.value(var)
    for k, slot in enumerate(variables.slots):
        if sol.value(slot.active):
            melds.append(_slot_meld(tm, sol, k, slot, free))
    # Wilds standing in for card codes (``model.pool._build_stand_ins``): laid on the first
    # free places of their code, runs first.
    stand_ins = Counter(dict(sol.nonzero(pool.stand_ins)))
    melds += _pool_runs(tm, sol, free, stand_ins)
    melds += _pool_groups(tm, sol, free, stand_ins)
    if +stand_ins:
        raise AssertionError(f"wilds standing in for {sorted(+stand_ins)} left unplaced")
    to_hand = tuple(data.wilds[i].card for i, v in variables.to_hand.items() if sol.value(v))
    if free:
        raise AssertionError(f"free wilds left unplaced: {free}")
    return Move(tuple(melds), to_hand)


def _slot_meld(tm: TurnModel, sol: Solution, k: int, slot: MeldSlot, free: list[Card]) -> Meld:
    data = tm.data
    variables = tm.variables
    cards: list[TableCard] = []
    if sol.value(slot.is_run):
        suit = next((s for s, v in slot.run_suit.items() if sol.value(v)), None)
        for p in data.positions:
            if not sol.value(slot.occupied[p]):
                continue
            rank = rank_of_position(p)
            natural = next(
                (
                    s
                    for s in SUITS
                    if (p, s) in slot.run_natural and sol.value(slot.run_natural[(p, s)])
                ),
                None,
            )
            if natural is not None:
                cards.append(_natural(rank, natural))
                continue
            value = WildValue(rank, suit)
            fixed = [
                i
                for (i, k2, p2), v in variables.wilds_in_slots.in_run.items()
                if k2 == k and p2 == p and sol.value(v)
            ]
            cards.append(_placed(data.wilds[fixed[0]].card, value) if fixed else _free(free, value))
        return tuple(cards)
    rank = next(r for r, v in slot.group_rank.items() if sol.value(v))
    for s in SUITS:
        if (rank, s) in slot.group_natural and sol.value(slot.group_natural[(rank, s)]):
            cards.append(_natural(rank, s))
    for i, w in enumerate(data.wilds):
        if sol.value(variables.wilds_in_slots.in_group[(i, k)]):
            cards.append(TableCard(w.card, WildValue(rank, w.value.suit)))
    for _ in range(sol.value(slot.group_free_wilds.get(rank, 0))):
        cards.append(TableCard(free.pop(0), WildValue(rank, None)))
    return _natural_where_free(rank, cards)


def _pool_runs(
    tm: TurnModel, sol: Solution, free: list[Card], stand_ins: Counter[Code]
) -> list[Meld]:
    """Runs from template counts; each place filled by a natural or a wild of that value
    (a wild standing in for its card, while ``stand_ins`` has one left)."""
    data = tm.data
    variables = tm.variables
    pool = tm.variables.pool
    # Kept melds linked to the pool are on the table already, as they were.
    kept = Counter(
        run for k, run in variables.links.runs.items() if sol.value(variables.kept.held[k])
    )
    kept_naturals: Counter[tuple[int, str | None]] = Counter()
    for (a, b, suit), n in kept.items():
        for p in range(a, b + 1):
            kept_naturals[(p, suit)] += n
    instances: list[tuple[int, int, str | None]] = []
    if pool.run_flow is not None:  # any-suit runs counted as a flow: none is linked
        instances = pool.run_flow.instances(sol.value)  # by first place, then last
    # Most run shapes are unused: their counts are read first, and only the rest sorted.
    laid = [(key, n) for key, total in sol.nonzero(pool.runs) if (n := total - kept[key]) > 0]
    for key, n in sorted(laid, key=lambda kn: (kn[0][0], kn[0][1], kn[0][2] or "")):
        instances += [key] * n
    cells: list[dict[int, TableCard]] = [{} for _ in instances]
    naturals_in = [0] * len(instances)
    by_suit: dict[str | None, list[tuple[int, int, int]]] = {}
    for j, (a, b, s) in enumerate(instances):
        by_suit.setdefault(s, []).append((j, a, b))
    for p in data.positions:
        rank = rank_of_position(p)
        for suit in SUITS if data.same_suit else (None,):
            here = [j for j, a, b in by_suit.get(suit, ()) if a <= p <= b]
            if not here:
                continue
            fillers: list[TableCard] = []
            value = WildValue(rank, suit)
            for s in SUITS if suit is None else (suit,):
                fill = pool.run_fill.get((p, s))
                if fill is not None:
                    n = sol.value(fill) - kept_naturals[(p, s)]
                    wilds = min(stand_ins[(rank, s)], n) if stand_ins else 0
                    fillers += [_natural(rank, s)] * (n - wilds)
                    if wilds:
                        stand_ins[(rank, s)] -= wilds
                        fillers += [_free(free, value) for _ in range(wilds)]
            for (i, p2, s2), var in pool.run_table_wilds.items():
                if p2 == p and s2 == suit and sol.value(var):
                    fillers.append(_placed(data.wilds[i].card, value))
            free_var = pool.run_free_wilds.get((p, suit))
            for _ in range(sol.value(free_var) if free_var is not None else 0):
                fillers.append(_free(free, value))
            # Naturals go first to the runs still without one, earliest-ending first: the
            # greedy that gives every run a natural whenever that can be done (R4, see
            # model.pool._build_run_naturals).
            here.sort(key=lambda j: (naturals_in[j] > 0, instances[j][1]))
            for j, tc in zip(here, fillers, strict=True):
                cells[j][p] = tc
                if tc.value is None:
                    naturals_in[j] += 1
    runs = [tuple(cell[p] for p in sorted(cell)) for cell in cells]
    if data.options.max_new_melds is None:
        runs = _join_runs(tm, runs, instances)
    return runs


def _free(free: list[Card], value: WildValue) -> TableCard:
    """The next free wild, on a run place of this value."""
    return _placed(free.pop(0), value)


def _placed(card: Card, value: WildValue) -> TableCard:
    """A wild on a run place of this value. A mexe-mexe 2 on the place of its own rank and
    suit is the natural card it is there (R4), written ``2C``, not ``2C=2C``: also a table
    wild valued 2 (``model.pool.plays_natural``)."""
    if value.stands_for(card):
        return TableCard(card)
    return TableCard(card, value)


def _join_runs(
    tm: TurnModel, runs: list[Meld], instances: list[tuple[int, int, str | None]]
) -> list[Meld]:
    """Lay runs of one suit end to end again where the model cut a long run in pieces."""
    data = tm.data
    pieces = sorted(zip(instances, runs, strict=True), key=lambda x: (x[0][2] or "", x[0][0]))
    joined: list[tuple[tuple[int, int, str | None], Meld]] = []
    for key, meld in pieces:
        for n, (other, other_meld) in enumerate(joined):
            fits = other[2] == key[2] and other[1] + 1 == key[0]
            if fits and len(other_meld) + len(meld) <= data.ruleset.melds.max_sequence:
                joined[n] = ((other[0], key[1], key[2]), other_meld + meld)
                break
        else:
            joined.append((key, meld))
    return [meld for _, meld in joined]


def _pool_groups(
    tm: TurnModel, sol: Solution, free: list[Card], stand_ins: Counter[Code]
) -> list[Meld]:
    """Groups by sets of suits (a wild standing in for a suit the group lacks where
    ``stand_ins`` has one left), then from counts: suits dealt so that no group repeats a
    suit (R3) and each holds a natural (R4), then the free wilds."""
    data = tm.data
    variables = tm.variables
    pool = tm.variables.pool
    kept = Counter(
        group for k, group in variables.links.groups.items() if sol.value(variables.kept.held[k])
    )
    melds: list[Meld] = []
    for (rank, suits), total in sol.nonzero(pool.group_sets):
        for _ in range(total - kept[(rank, suits)]):
            melds.append(tuple(_group_card(rank, s, free, stand_ins) for s in suits))
    for rank in range(1, 14):
        sizes: list[int] = []
        for (r, k), var in pool.groups.items():
            if r == rank:
                sizes += [k] * sol.value(var)
        if not sizes:
            continue
        sizes.sort(reverse=True)
        suited: list[TableCard] = []  # naturals, then wilds standing for a given suit
        for s in SUITS:
            suit_var = pool.group_suits.get((rank, s))
            if suit_var is not None:
                suited += [_natural(rank, s)] * sol.value(suit_var)
        loose: list[TableCard] = []
        for i, var in pool.group_table_wilds.items():
            if data.wilds[i].value.rank == rank and sol.value(var):
                w = data.wilds[i]
                tc = TableCard(w.card, WildValue(rank, w.value.suit))
                (suited if w.value.suit else loose).append(tc)
        free_var = pool.group_free_wilds.get(rank)
        for _ in range(sol.value(free_var) if free_var is not None else 0):
            loose.append(TableCard(free.pop(0), WildValue(rank, None)))
        wanted = [
            Counter(tc.card for tc in data.position.table[m])
            for m, reading in enumerate(data.before)
            if reading.kind is MeldKind.GROUP
            and reading.rank == rank
            and not sol.value(variables.kept.keep[m])
        ]
        groups = _deal_groups(sizes, suited, loose, wanted)
        if groups is None:
            raise AssertionError(f"no groups of rank {rank} hold these cards: {suited} {loose}")
        melds += [_natural_where_free(rank, g) for g in groups]
    return melds


def _natural_where_free(rank: int, group: list[TableCard]) -> Meld:
    """A group with each wild of the group's own rank whose suit the group lacks written as
    the natural card it is there (R4: a mexe-mexe 2 in a group of 2s): ``2C 2D 2H``, not
    ``2C 2D=2 2H=2``. The model counts such 2s as free wilds or naturals alike; written as
    wilds they would keep that role on the next turn (R5). Wilds whose value carries a suit
    (kept from a same-suit run) stay as they are."""
    if not any(tc.value is not None and tc.card.rank == rank for tc in group):
        return tuple(group)
    taken = {tc.value.suit if tc.value is not None else tc.card.suit for tc in group}
    out = list(group)
    for k, tc in enumerate(out):
        value = tc.value
        own = value is not None and value.suit is None and tc.card.rank == rank
        if own and tc.card.suit not in taken:
            taken.add(tc.card.suit)
            out[k] = _natural(rank, tc.card.suit)
    return tuple(out)


def _group_card(rank: int, suit: str, free: list[Card], stand_ins: Counter[Code]) -> TableCard:
    """A group's card of this suit: a wild standing in for it while one is left."""
    if stand_ins[(rank, suit)]:
        stand_ins[(rank, suit)] -= 1
        return TableCard(free.pop(0), WildValue(rank, None))  # as the pool's other group wilds
    return _natural(rank, suit)


# How many ways of dealing one rank's groups are compared at most (each takes a few µs).
MAX_DEALS = 200


def _deal_groups(
    sizes: list[int],
    suited: list[TableCard],
    loose: list[TableCard],
    wanted: list[Counter[Card]],
) -> list[list[TableCard]] | None:
    """One rank's groups: the suited cards dealt (``_deal_suited``), then the wilds of no
    suit into the room left. The model fixes only how many cards of each kind the groups
    hold, so where melds before of this rank were not kept, the deal that lays the most of
    them again with their very cards is chosen (identical cards make that happen, D4): the
    table then shows those melds unchanged (``search.changed_melds``)."""
    held = Counter(tc.card for tc in (*suited, *loose))
    wanted = [cards for cards in wanted if not cards - held]  # those these cards can lay
    best: list[list[TableCard]] | None = None
    best_score = -1
    for n, dealt in enumerate(_deals_suited(sizes, suited, by_card=bool(wanted))):
        for groups in _fill_loose(dealt, sizes, loose):
            score = _matches(groups, wanted)
            if score > best_score:
                best, best_score = [list(g) for g in groups], score
            if not wanted or best_score == min(len(wanted), len(sizes)):
                return best
        if n + 1 >= MAX_DEALS:
            break
    return best


def _fill_loose(
    dealt: list[list[TableCard]], sizes: list[int], loose: list[TableCard]
) -> Iterator[list[list[TableCard]]]:
    """Every way of putting the wilds of no suit into the room left, wilds of one card
    alike (the groups are yielded as they are being filled: copy to keep)."""
    if not loose:
        yield dealt
        return
    first, rest = loose[0], loose[1:]
    tried: set[tuple[int, tuple[str, ...]]] = set()
    for g, size in zip(dealt, sizes, strict=True):
        shape = (size, tuple(sorted(tc.card.code for tc in g)))
        if len(g) >= size or shape in tried:
            continue
        tried.add(shape)
        g.append(first)
        yield from _fill_loose(dealt, sizes, rest)
        g.pop()


def _matches(groups: list[list[TableCard]], wanted: list[Counter[Card]]) -> int:
    """How many of the ``wanted`` melds the groups lay again, card for card."""
    left = list(wanted)
    found = 0
    for g in groups:
        cards = Counter(tc.card for tc in g)
        if cards in left:
            left.remove(cards)
            found += 1
    return found


def _deal_suited(sizes: list[int], suited: list[TableCard]) -> list[list[TableCard]] | None:
    """Cards with a suit (naturals, and wilds standing for a suit) into groups of these
    sizes: no suit twice in a group (R3), a natural in each (R4); None if impossible."""
    return next(_deals_suited(sizes, suited), None)


def _deals_suited(
    sizes: list[int], suited: list[TableCard], by_card: bool = False
) -> Iterator[list[list[TableCard]]]:
    """Every deal of ``_deal_suited``, the same first; groups alike so far are tried once
    (alike by suits and naturals, or with ``by_card`` by their very cards).

    A small backtracking search, naturals first: a rank has a handful of groups and at most
    two decks of cards, and dealing round-robin can leave a group with wilds alone.
    """
    order = sorted(suited, key=lambda tc: (tc.value is not None, _suit_of(tc)))
    naturals_left = [0] * (len(order) + 1)
    for t in range(len(order) - 1, -1, -1):
        naturals_left[t] = naturals_left[t + 1] + (order[t].value is None)
    groups: list[list[TableCard]] = [[] for _ in sizes]

    def place(t: int) -> Iterator[list[list[TableCard]]]:
        lacking = sum(1 for g in groups if not any(tc.value is None for tc in g))
        if naturals_left[t] < lacking:
            return
        if t == len(order):
            yield [list(g) for g in groups]
            return
        suit = _suit_of(order[t])
        seen: set[tuple[int, tuple[tuple[str, bool], ...]]] = set()
        for g, size in zip(groups, sizes, strict=True):
            # Groups alike in size, suits and which of them are natural are interchangeable.
            shape = (size, tuple(sorted((_shown(o, by_card), o.value is None) for o in g)))
            if len(g) >= size or shape in seen or any(_suit_of(o) == suit for o in g):
                continue
            seen.add(shape)
            g.append(order[t])
            yield from place(t + 1)
            g.pop()

    return place(0)


def _shown(tc: TableCard, by_card: bool) -> str:
    return tc.card.code if by_card else _suit_of(tc)


def _suit_of(tc: TableCard) -> str:
    if tc.value is not None and tc.value.suit:
        return tc.value.suit
    return tc.card.suit
