"""The pool as a copy of the whole deck's pool, built once: mexe-mexe's suggestion (issue #53).

Where the turn has no limit on new melds and wilds could fill whole runs (the suggestion's
first try on mexe-mexe, ``suggest._nearest``), the pool holds every run template of up to
five places that has a natural in play, on every suit, and the groups of every rank in
play: most of the model's build. Its rows do not depend on the position, only its counts'
bounds do, and the table wilds that may keep their value in it. So the pool of a hand
holding the whole deck is built once per ruleset, decks and run length (``DeckPool``); a
position writes on its thread's copy of it (``_Scratch``) each count's bound as its own
pool has it, 0 for a template, place or group its pool lacks, and solves a copy of that
(a C++ copy of the proto), to which it adds a flag per table wild and place (or group) it
fits, in that place's (or group's) row. The counts bound at 0 are in no other row, so the
model holds the same tables as the pool built for the position (``pool.build_pool``), with
more variables fixed at 0 for CP-SAT to load; ``PoolVariables`` holds the position's own
counts only, in its own pool's order, so the rest of the build, the rebuild and the
search's readers see what they see on a built pool.

Two differences from a built pool: its rows come first in the model (the keep flags and
the rest of the turn are built on the copy), and a kept run longer than the deck's runs
is not linked to a pool run but holds its own cards (as on Rummikub's deck, ``deck``).
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass

from ortools.sat.python import cp_model

from solver.core.cards import SUITS, Card
from solver.core.rulesets import rank_of_position
from solver.rearrangement.model.cp import FastCpModel, thread_scratch
from solver.rearrangement.model.data import Code, ModelOptions, RunKey, TurnData, collect_data
from solver.rearrangement.model.pool import (
    PoolVariables,
    RunPlace,
    TableWildFits,
    build_pool,
    run_shapes,
    table_wild_fits,
)
from solver.rummy.position import Position, Turn

# The rulesets whose suggestion copies the deck's pool: mexe-mexe's 2s make its pool big.
POOL_DECK_RULESETS = frozenset({"mexe-mexe"})

Row = tuple[int, int]  # a constraint's index in the model, and the coefficient of a fill


@dataclass(frozen=True)
class DeckPool:
    """The pool of a hand holding the whole deck, and the rows a table wild joins."""

    model: FastCpModel
    pool: PoolVariables
    place_rows: dict[RunPlace, Row]  # per run place: its fill row
    group_rows: dict[int, Row]  # per rank: the row of its groups' sizes
    suit_rows: dict[Code, Row]  # per rank and suit: at most one of the suit per group (R3)
    index: dict[tuple[str, object], int]  # per count, by its dict and key: its variable


_DECK_POOLS: dict[tuple[str, int, int], DeckPool] = {}
_BUILDING = threading.Lock()


def pool_from_deck(data: TurnData) -> tuple[FastCpModel, PoolVariables] | None:
    """A model holding the position's pool, copied from the deck's; None where it does not
    apply. The caller builds the rest of the turn on it (``turn.build_turn``)."""
    if not _applies(data):
        return None
    deck = _deck_pool(data)
    if deck is None:
        return None
    fitting = table_wild_fits(data)
    pool, bounds = _own_pool(deck, data, fitting)
    model = _scratch(deck).write(bounds).clone()
    return model, _with_table_wilds(model, deck, data, pool, fitting)


def _applies(data: TurnData) -> bool:
    """The position's pool is the deck's, numbers aside: no limit on new melds (so runs of
    a fixed length), wilds enough that every run place and group rank has a wilds' count
    (``pool._build_run_places``, ``pool._build_groups_of_rank``), none counted as a
    stand-in."""
    return (
        data.options.pool_from_deck
        and data.ruleset.id in POOL_DECK_RULESETS
        and data.options.max_new_melds is None
        and data.wild_runs_possible
        and not data.stand_in
    )


def _deck_pool(data: TurnData) -> DeckPool | None:
    rs = data.ruleset
    position = data.position
    cards = rs.deck(position.players)
    key = (rs.id, sum(cards.values()), rs.melds.max_sequence)
    deck = _DECK_POOLS.get(key)
    if deck is not None:
        return deck
    with _BUILDING:
        deck = _DECK_POOLS.get(key)
        if deck is None:
            deck = _DECK_POOLS[key] = _build_deck_pool(position, cards)
    return deck


def _build_deck_pool(position: Position, cards: Counter[Card]) -> DeckPool:
    hand = tuple(cards.elements())
    whole = Position(position.ruleset, position.players, (), hand, Turn(has_opened=True))
    # R4's windows left out: each position adds its own (``pool.with_run_naturals``).
    options = ModelOptions(max_new_melds=None, defer_run_naturals=True, pool_from_deck=True)
    data = collect_data(whole, options)
    assert _applies(data)  # every card in play: wilds enough, every code's natural
    model = FastCpModel()
    pool = build_pool(model, data, [])
    rows = model.proto.constraints
    holding: dict[int, list[tuple[int, int]]] = {}  # per variable: its rows, coefficients
    for j, ct in enumerate(rows):
        for var, coeff in zip(ct.linear.vars, ct.linear.coeffs, strict=True):
            holding.setdefault(var, []).append((j, coeff))
    # A place's free wilds, and a rank's groups' free wilds, are in their one fill row.
    place_rows = {place: _only(holding[free.index]) for place, free in pool.run_free_wilds.items()}
    group_rows = {r: _only(holding[free.index]) for r, free in pool.group_free_wilds.items()}
    # A suit's count of a rank's groups is in that rank's R4 row and in its own R3 row,
    # the one row holding no other suit of the rank.
    suit_rows: dict[Code, Row] = {}
    for (r, s), count in pool.group_suits.items():
        assert isinstance(count, cp_model.IntVar)
        others = {
            other.index
            for (r2, s2), other in pool.group_suits.items()
            if r2 == r and s2 != s and isinstance(other, cp_model.IntVar)
        }
        own = [
            (j, c) for j, c in holding[count.index] if not others.intersection(rows[j].linear.vars)
        ]
        if own:
            suit_rows[(r, s)] = _only(own)
    index: dict[tuple[str, object], int] = {
        (name, key): var.index
        for name, counts in (
            ("run", pool.runs),
            ("fill", pool.run_fill),
            ("free", pool.run_free_wilds),
            ("group", pool.groups),
            ("suit", pool.group_suits),
            ("gfree", pool.group_free_wilds),
        )
        for key, var in counts.items()
        if isinstance(var, cp_model.IntVar)
    }
    return DeckPool(model, pool, place_rows, group_rows, suit_rows, index)


def _only(rows: list[tuple[int, int]]) -> Row:
    (row,) = rows
    return row


def _own_pool(
    deck: DeckPool, data: TurnData, fitting: TableWildFits
) -> tuple[PoolVariables, list[int]]:
    """The deck's counts that the position's own pool has, in its order (``build_pool``),
    and every deck count's upper bound (0 for the others): runs, run places, groups.
    Table wilds are added on the copy (``_with_table_wilds``)."""
    rs = data.ruleset
    base = deck.pool
    index = deck.index
    pool_fixed, suits, fits = fitting
    n_free = data.wild_supply
    supply = data.natural_supply
    runs: dict[RunKey, cp_model.IntVar] = {}
    bounds = [0] * len(deck.model.proto.variables)
    covered: dict[str | None, set[int]] = {suit: set() for suit in suits}
    for key, bound, first, last in run_shapes(data, suits, fits, linked=False):
        runs[key] = base.runs[key]
        bounds[index[("run", key)]] = bound
        covered[key[2]].update(range(first, last + 1))
    run_fill: dict[tuple[int, str], cp_model.LinearExprT] = {}
    run_free: dict[RunPlace, cp_model.IntVar] = {}
    for j, p in enumerate(data.positions):
        r = rank_of_position(p)
        for suit in suits:
            if j not in covered[suit]:
                continue
            for s in SUITS if suit is None else (suit,):
                if supply[(r, s)]:
                    run_fill[(p, s)] = base.run_fill[(p, s)]
                    bounds[index[("fill", (p, s))]] = supply[(r, s)]
            run_free[(p, suit)] = base.run_free_wilds[(p, suit)]
            bounds[index[("free", (p, suit))]] = n_free
    groups: dict[tuple[int, int], cp_model.IntVar] = {}
    group_suits: dict[Code, cp_model.LinearExprT] = {}
    group_free: dict[int, cp_model.IntVar] = {}
    fixed_ranks = Counter(data.wilds[i].value.rank for i in pool_fixed)
    for r in range(1, 14):
        avail = [s for s in SUITS if supply[(r, s)]]
        if not avail or len(avail) + n_free + fixed_ranks[r] < rs.melds.group_min:
            continue
        cap = sum(supply[(r, s)] for s in avail)
        for k in range(rs.melds.group_min, rs.melds.group_max + 1):
            groups[(r, k)] = base.groups[(r, k)]
            bounds[index[("group", (r, k))]] = cap
        for s in avail:
            group_suits[(r, s)] = base.group_suits[(r, s)]
            bounds[index[("suit", (r, s))]] = supply[(r, s)]
        group_free[r] = base.group_free_wilds[r]
        bounds[index[("gfree", r)]] = n_free
    pool = PoolVariables(
        runs=runs,
        run_fill=run_fill,
        run_free_wilds=run_free,
        run_table_wilds={},
        groups=groups,
        group_sets={},
        group_suits=group_suits,
        group_free_wilds=group_free,
        group_table_wilds={},
        stand_ins={},
    )
    return pool, bounds


def _with_table_wilds(
    model: FastCpModel, deck: DeckPool, data: TurnData, pool: PoolVariables, fitting: TableWildFits
) -> PoolVariables:
    """The table wilds that keep their value in the pool: a flag per run place (and per
    group rank) each fits, in that place's fill row (and the rank's size row, and for a
    wild of a suit, that suit's row), as ``pool._build_run_places`` and
    ``_build_groups_of_rank`` make them."""
    pool_fixed, suits, fits = fitting
    if not pool_fixed:
        return pool
    rows = model.proto.constraints
    run_fixed: dict[tuple[int, int, str | None], cp_model.IntVar] = {}
    for j, p in enumerate(data.positions):
        for suit in suits:
            if (p, suit) not in pool.run_free_wilds:
                continue  # no run through the place
            for i in fits[suit][j]:
                flag = run_fixed[(i, p, suit)] = model.new_bool_var("fixrun")
                _join(rows, deck.place_rows[(p, suit)], flag)
    group_fixed: dict[int, cp_model.IntVar] = {}
    for r in range(1, 14):
        if r not in pool.group_free_wilds:
            continue  # no group of the rank
        for i in pool_fixed:
            value = data.wilds[i].value
            if value.rank != r:
                continue
            flag = group_fixed[i] = model.new_bool_var("fixgrp")
            _join(rows, deck.group_rows[r], flag)
            if value.suit is not None and data.ruleset.melds.group_suits_distinct:
                _join(rows, deck.suit_rows[(r, value.suit)], flag)
    return PoolVariables(
        runs=pool.runs,
        run_fill=pool.run_fill,
        run_free_wilds=pool.run_free_wilds,
        run_table_wilds=run_fixed,
        groups=pool.groups,
        group_sets=pool.group_sets,
        group_suits=pool.group_suits,
        group_free_wilds=pool.group_free_wilds,
        group_table_wilds=group_fixed,
        stand_ins=pool.stand_ins,
    )


def _join(rows: object, row: Row, flag: cp_model.IntVar) -> None:
    index, coeff = row
    linear = rows[index].linear  # type: ignore[index]
    linear.vars.extend([flag.index])
    linear.coeffs.extend([coeff])


class _Scratch:
    """A thread's own copy of the deck's pool, on which a position writes its bounds
    before the copy it solves is taken (as ``deck._Scratch``): each bound wrapped once,
    and only those that differ from the last position's written."""

    def __init__(self, deck: DeckPool) -> None:
        self.deck = deck
        self.model = deck.model.clone()
        variables = self.model.proto.variables
        self.domains = [variables[i].domain for i in range(len(variables))]
        self.upper = [int(d[1]) for d in self.domains]

    def write(self, wanted: list[int]) -> FastCpModel:
        """Every count's upper bound, by its variable's index."""
        upper = self.upper
        domains = self.domains
        for index, (new, old) in enumerate(zip(wanted, upper, strict=True)):
            if new != old:
                domains[index][1] = new
        self.upper = wanted
        return self.model


_SCRATCH = threading.local()


def _scratch(deck: DeckPool) -> _Scratch:
    """This thread's scratch copy of ``deck`` (made on its first position)."""
    return thread_scratch(_SCRATCH, deck, lambda: _Scratch(deck))
