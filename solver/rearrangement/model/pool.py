"""The pool: melds that need no identity, as counts of run and group shapes.

Runs are counted per template (first and last position, suit) and each run place's fill is
counted per card; groups per rank and size, or per set of suits where no wild can join a
group of that rank. Wilds may sit here too: a table wild that keeps its value fills a place
of that value like a natural would (R5), and a free wild fills any place. Each meld still
holds a natural (R4): groups count theirs; runs need ``_build_run_naturals`` once there
are wilds enough for a run of their own (mexe-mexe's 2s). ``rebuild`` hands the naturals
out so that each meld holds one, and the referee re-checks it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import combinations

from ortools.sat.python import cp_model

from solver.core.cards import SUITS, WildValue
from solver.core.rulesets import rank_of_position
from solver.rearrangement.model.cp import sum_of
from solver.rearrangement.model.data import Code, GroupKey, RunKey, TurnData, natural_code
from solver.rearrangement.model.group_flags import flag_groups
from solver.rearrangement.model.run_flow import RunFlow, build_run_flow, flow_applies

RunPlace = tuple[int, str | None]  # a run place: position, suit (None: any suit)


@dataclass(frozen=True)
class PoolVariables:
    """The pool's counts."""

    runs: dict[RunKey, cp_model.IntVar]  # runs laid per template
    # Naturals of a code on each run place (a sum of runs where only that card can fill it).
    run_fill: dict[tuple[int, str], cp_model.LinearExprT]
    run_free_wilds: dict[RunPlace, cp_model.IntVar]  # free wilds on each run place
    run_table_wilds: dict[tuple[int, int, str | None], cp_model.IntVar]  # (wild, place): on it
    groups: dict[tuple[int, int], cp_model.IntVar]  # groups laid per (rank, size)
    group_sets: dict[GroupKey, cp_model.IntVar]  # groups laid per (rank, suits)
    group_suits: dict[Code, cp_model.LinearExprT]  # naturals of a code in groups
    group_free_wilds: dict[int, cp_model.IntVar]  # free wilds in groups, per rank
    group_table_wilds: dict[int, cp_model.IntVar]  # per table wild: in a pool group
    stand_ins: dict[Code, cp_model.IntVar]  # free wilds standing in for a card code
    # R4's windows for runs, not yet in the model (``ModelOptions.defer_run_naturals``).
    deferred_run_naturals: RunNaturals | None = None
    # Any-suit runs counted as a flow along the places (``run_flow``): then ``runs`` is
    # empty and each place's fill is the flow's runs through it.
    run_flow: RunFlow | None = None


def build_pool(
    m: cp_model.CpModel, data: TurnData, held: Sequence[cp_model.IntVar]
) -> PoolVariables:
    """The pool's variables and constraints; ``held``: which melds before stay as they
    were (a linked run among them takes its naturals, ``_build_run_naturals``)."""
    pool_fixed, suits, fits = table_wild_fits(data)
    runs = _build_pool_runs(m, data, held, suits, fits)
    groups = _build_pool_groups(m, data, pool_fixed)
    stand_ins = _build_stand_ins(m, data, runs.fill, groups.suits) if data.stand_in else {}
    return PoolVariables(
        runs=runs.runs,
        run_fill=runs.fill,
        run_free_wilds=runs.free,
        run_table_wilds=runs.fixed,
        groups=groups.groups,
        group_sets=groups.sets,
        group_suits=groups.suits,
        group_free_wilds=groups.free,
        group_table_wilds=groups.fixed,
        stand_ins=stand_ins,
        deferred_run_naturals=runs.deferred,
        run_flow=runs.flow,
    )


@dataclass(frozen=True)
class _PoolRuns:
    """The pool's runs: a count per run template, or the flow along the places (``flow``),
    and what fills each place."""

    flow: RunFlow | None
    runs: dict[RunKey, cp_model.IntVar]
    fill: dict[tuple[int, str], cp_model.LinearExprT]
    free: dict[RunPlace, cp_model.IntVar]
    fixed: dict[tuple[int, int, str | None], cp_model.IntVar]
    deferred: RunNaturals | None  # the "a natural in every run" rows, left to the caller


def _build_pool_runs(
    m: cp_model.CpModel,
    data: TurnData,
    held: Sequence[cp_model.IntVar],
    suits: tuple[str | None, ...],
    fits: dict[str | None, list[list[int]]],
) -> _PoolRuns:
    """The runs, as a flow where it applies (``run_flow``), else a count per template; then
    their places, and where wilds could make a run alone, a natural in every run (R4)."""
    flow: RunFlow | None = None
    runs: dict[RunKey, cp_model.IntVar] = {}
    covering: dict[str | None, list[list[cp_model.IntVar]]]
    if flow_applies(data, suits):
        caps = [_place_capacity(data, j, p, fits) for j, p in enumerate(data.positions)]
        flow, through = build_run_flow(m, data, caps)
        covering = {None: through}
    else:
        runs, covering = _build_runs(m, data, suits, fits)
    run_fill, run_free, run_fixed = _build_run_places(m, data, suits, fits, covering)
    deferred: RunNaturals | None = None
    if data.wild_runs_possible:
        wilds = [*run_free.values(), *run_fixed.values()]
        windows = _build_run_naturals(data, suits, runs, run_fill, run_fixed, held, wilds)
        if data.options.defer_run_naturals:
            deferred = windows
        else:
            windows.add(m)
    return _PoolRuns(flow, runs, run_fill, run_free, run_fixed, deferred)


@dataclass(frozen=True)
class _PoolGroups:
    """The pool's groups: counts per rank and size where wilds join them, else per set of
    suits; the naturals of each card code they hold; the wilds in them."""

    groups: dict[tuple[int, int], cp_model.IntVar]
    sets: dict[GroupKey, cp_model.IntVar]
    suits: dict[Code, cp_model.LinearExprT]
    free: dict[int, cp_model.IntVar]
    fixed: dict[int, cp_model.IntVar]


def _build_pool_groups(
    m: cp_model.CpModel, data: TurnData, pool_fixed: Sequence[int]
) -> _PoolGroups:
    """Each rank's groups, where its cards and the wilds can make one."""
    rs = data.ruleset
    out = _PoolGroups({}, {}, {}, {}, {})
    for r in range(1, 14):
        avail = [s for s in SUITS if data.natural_supply[(r, s)]]
        fixed_here = [i for i in pool_fixed if data.wilds[i].value.rank == r]
        wild_room = data.wild_supply + len(fixed_here)
        if not avail or len(avail) + wild_room < rs.melds.group_min:
            continue
        if rs.melds.group_suits_distinct and (not wild_room or data.stand_in):
            lone = data.wild_supply if data.stand_in else 0
            sets, suit_sums = _build_group_sets(m, data, r, avail, lone)
            if data.options.group_flags and sets:
                cards = sum(data.natural_supply[(r, s)] for s in avail) + lone
                flag_groups(m, list(sets.values()), cards // rs.melds.group_min)
            out.sets.update(sets)
            out.suits.update(suit_sums)
            continue
        _build_groups_of_rank(
            m, data, r, avail, fixed_here, out.groups, out.suits, out.free, out.fixed
        )
    return out


def with_run_naturals(
    m: cp_model.CpModel, data: TurnData, pool: PoolVariables, held: Sequence[cp_model.IntVar]
) -> PoolVariables:
    """R4's windows for a pool made without them (a copy of the deck's pool, ``pool_deck``,
    made before the keep flags): written into ``m``, or kept to be checked where the
    options defer them, as ``build_pool`` does."""
    if not data.wild_runs_possible:
        return pool
    suits: tuple[str | None, ...] = SUITS if data.same_suit else (None,)
    wilds = [*pool.run_free_wilds.values(), *pool.run_table_wilds.values()]
    windows = _build_run_naturals(
        data, suits, pool.runs, pool.run_fill, pool.run_table_wilds, held, wilds
    )
    if data.options.defer_run_naturals:
        return replace(pool, deferred_run_naturals=windows)
    windows.add(m)
    return pool


# The table wilds that may join the pool, the runs' suits, per suit and place the wilds
# that fit it (``table_wild_fits``).
TableWildFits = tuple[list[int], tuple[str | None, ...], dict[str | None, list[list[int]]]]


def table_wild_fits(data: TurnData) -> TableWildFits:
    """The table wilds that may join the pool keeping their value, the runs' suits (None:
    any), and per suit and run place the wilds that fit it."""
    # Table wilds keeping their value may join the pool, unless they must stay in their
    # meld's line (R7) or the table stays as it was.
    pool_fixed = (
        []
        if data.ruleset.rearrangement.wild_lineage or data.options.keep_all
        else list(range(len(data.wilds)))
    )
    suits: tuple[str | None, ...] = SUITS if data.same_suit else (None,)
    fits = {
        suit: [[i for i in pool_fixed if _fixed_fits(data, i, p, suit)] for p in data.positions]
        for suit in suits
    }
    return pool_fixed, suits, fits


def plays_natural(data: TurnData, i: int, p: int, suit: str | None) -> bool:
    """Table wild ``i``, keeping its value on run place ``p`` of ``suit``, is the natural
    card it stands for there: a mexe-mexe 2 valued 2 on the place of its own rank and suit
    (R4: "a 2 in its own rank position" is natural; R5: its value, 2, is kept)."""
    return WildValue(rank_of_position(p), suit).stands_for(data.wilds[i].card)


def _fixed_fits(data: TurnData, i: int, p: int, suit: str | None) -> bool:
    """Table wild ``i`` keeps its value on run place ``p`` of ``suit``."""
    v = data.wilds[i].value
    return v.rank == rank_of_position(p) and (suit is None or v.suit is None or v.suit == suit)


def _place_capacity(data: TurnData, j: int, p: int, fits: dict[str | None, list[list[int]]]) -> int:
    """The most any-suit runs place ``p`` (index ``j``) can hold: its naturals, the free
    wilds and the table wilds keeping its value (``_build_runs`` caps its runs alike)."""
    return _position_supply(data, p, None) + data.wild_supply + len(fits[None][j])


def _position_supply(data: TurnData, p: int, suit: str | None) -> int:
    r = rank_of_position(p)
    if suit is not None:
        return data.natural_supply[(r, suit)]
    return sum(data.natural_supply[(r, s)] for s in SUITS)


RunShape = tuple[RunKey, int, int, int]  # a run template, its count's bound, first, last index


def _build_runs(
    m: cp_model.CpModel,
    data: TurnData,
    suits: tuple[str | None, ...],
    fits: dict[str | None, list[list[int]]],
) -> tuple[dict[RunKey, cp_model.IntVar], dict[str | None, list[list[cp_model.IntVar]]]]:
    """A count per run template a play could lay, and per place the runs through it."""
    runs: dict[RunKey, cp_model.IntVar] = {}
    covering_runs: dict[str | None, list[list[cp_model.IntVar]]] = {
        suit: [[] for _ in data.positions] for suit in suits
    }
    for key, bound, first, last in run_shapes(data, suits, fits, linked=True):
        run = m.new_int_var(0, bound, "run")
        runs[key] = run
        covering = covering_runs[key[2]]
        for q in range(first, last + 1):
            covering[q].append(run)
    return runs, covering_runs


def run_shapes(
    data: TurnData,
    suits: tuple[str | None, ...],
    fits: dict[str | None, list[list[int]]],
    linked: bool,
) -> Iterator[RunShape]:
    """The run templates a play could lay, in the model's order, each with its count's
    upper bound and the indices of its first and last place. ``linked``: also the shapes
    of linked runs longer than the pool's own (a deck's pool, ``pool_deck``, has none)."""
    rs = data.ruleset
    pos = data.positions
    n_free = data.wild_supply
    # Without a limit on new melds a long run is two shorter ones laid end to end, so
    # runs of up to 2*min-1 cards suffice (rebuild joins them again); this is the
    # classic Rummikub model reduction and keeps the model small.
    longest = rs.melds.max_sequence
    if data.options.max_new_melds is None:
        longest = min(longest, 2 * rs.melds.min_sequence - 1)
    # Capacity of each run place: natural supply, free wilds, fitting table wilds. Places
    # are walked by index (sequence positions are consecutive), per suit.
    n_pos = len(pos)
    supply = {suit: [_position_supply(data, p, suit) for p in pos] for suit in suits}
    # A linked run longer than the pool's own runs still needs its own shape.
    linked_ends: dict[tuple[int, str | None], set[int]] = {}
    for a, b, suit in data.linkable_runs.values() if linked else ():
        linked_ends.setdefault((a, suit), set()).add(b)
    for suit in suits:
        caps = [n + n_free + len(f) for n, f in zip(supply[suit], fits[suit], strict=True)]
        here_supply = supply[suit]
        here_fits = fits[suit]
        for a_i, a in enumerate(pos):
            # Ends at indices first..usual-1, and those of linked runs from ``a``.
            first = a_i + rs.melds.min_sequence - 1
            usual = min(a_i + longest, n_pos)
            linked_b = linked_ends.get((a, suit))
            last = usual - 1
            if linked_b:
                last = max(last, max(linked_b) - a + a_i)
            elif first >= usual:
                continue
            # Walk the run's places once: its capacity is the least place capacity so
            # far, and it needs a natural somewhere. A place no natural and no table wild
            # can fill (a hole) takes a free wild from each copy of the run: a run with
            # more holes than free wilds cannot be laid at all.
            cap = caps[a_i]
            natural = False
            holes = 0
            for j in range(a_i, last + 1):
                if caps[j] < cap:
                    cap = caps[j]
                if here_supply[j] > 0:
                    natural = True
                elif not here_fits[j]:
                    holes += 1
                if cap <= 0 or holes > n_free:
                    break
                if not natural or j < first:
                    continue
                b = pos[j]
                if j >= usual and b not in (linked_b or ()):
                    continue
                yield (a, b, suit), min(cap, n_free // holes) if holes else cap, a_i, j


def _build_run_places(
    m: cp_model.CpModel,
    data: TurnData,
    suits: tuple[str | None, ...],
    fits: dict[str | None, list[list[int]]],
    covering_runs: dict[str | None, list[list[cp_model.IntVar]]],
) -> tuple[
    dict[tuple[int, str], cp_model.LinearExprT],
    dict[RunPlace, cp_model.IntVar],
    dict[tuple[int, int, str | None], cp_model.IntVar],
]:
    """Fill of every run place: naturals, table wilds keeping their value, free wilds."""
    n_free = data.wild_supply
    run_fill: dict[tuple[int, str], cp_model.LinearExprT] = {}
    run_free: dict[RunPlace, cp_model.IntVar] = {}
    run_fixed: dict[tuple[int, int, str | None], cp_model.IntVar] = {}
    for j, p in enumerate(data.positions):
        r = rank_of_position(p)
        for suit in suits:
            here = covering_runs[suit][j]
            if not here:
                continue
            fitting = fits[suit][j]
            if suit is not None and (data.stand_in or (not n_free and not fitting)):
                # Only naturals of this one card (or a wild standing in for it) can fill
                # the place: their count is the number of runs through it, with no
                # variable of its own (the search runs without presolve, which would
                # otherwise remove it).
                run_fill[(p, suit)] = sum_of(here)
                continue
            parts: list[cp_model.IntVar] = []
            for s in SUITS if suit is None else (suit,):
                cap = data.natural_supply[(r, s)]
                if cap:
                    x = m.new_int_var(0, cap, "fill")
                    run_fill[(p, s)] = x
                    parts.append(x)
            if n_free:
                f = m.new_int_var(0, n_free, "free")
                run_free[(p, suit)] = f
                parts.append(f)
            for i in fitting:
                v = m.new_bool_var("fixrun")
                run_fixed[(i, p, suit)] = v
                parts.append(v)
            m.add(sum_of(parts) == sum_of(here))
    return run_fill, run_free, run_fixed


@dataclass(frozen=True)
class _SuitWindows:
    """What one suit's R4 windows are written from (``RunNaturals``)."""

    shapes: list[tuple[int, int, cp_model.IntVar]]  # the pool's runs: first, last place
    naturals: dict[int, list[cp_model.LinearExprT]]  # per place, the naturals' fills
    kept: list[tuple[int, int, cp_model.IntVar]]  # linked runs: first, last place, held


class RunNaturals:
    """R4 for the pool's runs where wilds could fill a whole run: a natural for each.

    Runs are intervals of places and naturals are points, so each run can be given a
    natural of its own exactly when every window of places holds at least as many
    naturals as there are runs wholly inside it (Hall's condition for intervals);
    ``rebuild`` then hands them out earliest-ending run first.

    Short windows suffice. The smallest failing set of runs covers its window, so the
    window holds at least one card per place and at least three per run, and it holds
    fewer naturals than runs: with ``w`` wild cards in play, ``naturals + w >= 3 *
    (naturals + 1)`` bounds its naturals by ``(w - 3) / 2`` and its length by
    ``(3w - 3) / 2``.

    The windows are a third of a mexe-mexe model's constraints and most of its terms, and
    a solution found without them rarely breaks one. So a search may leave them out
    (``ModelOptions.defer_run_naturals``), ask ``broken`` of the solution it finds, and
    ``add`` them all where one is broken: a solution that breaks none is one of the full
    model's, and an optimum of the model without them that is one of the full model's
    is the full model's optimum.
    """

    def __init__(
        self,
        suits: list[_SuitWindows],
        longest: int,
        wilds: list[cp_model.IntVar],
        least: int,
    ) -> None:
        self._suits = suits
        self._longest = longest
        self._wilds = wilds  # the wilds on run places: free ones, table wilds keeping a value
        self._least = least  # a run's fewest cards

    def add(self, m: cp_model.CpModel) -> None:
        """Write every window's constraint into ``m``."""
        for windows in self._suits:
            for inside, terms, window in self._windows(windows):
                m.add(sum_of([*inside, *terms]) <= sum_of(window))

    def broken(self, value: Callable[[cp_model.LinearExprT], int]) -> bool:
        """Does the solution whose values ``value`` reads break a window? The same windows
        as ``add`` writes, their sums taken on the solution's numbers: running totals of
        naturals, and only the runs and kept runs the solution lays.

        Fewer wilds in runs than a run's fewest cards break none: the runs inside a broken
        window, ``k`` of them, hold at least ``least * k`` cards of which fewer than ``k``
        are naturals (a kept run's overlap is its own naturals), so at least
        ``(least - 1) * k + 1 >= least`` wilds."""
        if sum(map(value, self._wilds)) < self._least:
            return False
        for windows in self._suits:
            shapes, kept = windows.shapes, windows.kept
            laid = [(a, b, n) for a, b, run in shapes if (n := value(run))]
            held = [(a, b, n) for a, b, k in kept if (n := value(k))]
            if not laid and not held:
                continue
            # Where a window from ``x`` first holds a run (laid or not): ``add`` writes
            # only windows holding one. The shortest run from each start, then the
            # earliest end of a run from ``x`` on.
            shortest: dict[int, int] = {}
            for a, b, _ in shapes:
                if b < shortest.get(a, b + 1):
                    shortest[a] = b
            starts = sorted(shortest)
            ends = sorted({b for _, b, _ in shapes})
            first_end: dict[int, int] = {}
            earliest = ends[-1] + 1
            for x in reversed(starts):
                earliest = first_end[x] = min(earliest, shortest[x])
            total = {starts[0] - 1: 0}
            for p in range(starts[0], ends[-1] + 1):
                total[p] = total[p - 1] + sum(map(value, windows.naturals.get(p, ())))
            for x in starts:
                laid_from = [(b, n) for a, b, n in laid if x <= a]
                before = total[x - 1]
                for y in ends:
                    if y - x + 1 > self._longest:
                        break
                    if y < first_end[x]:
                        continue
                    need = 0
                    for b, n in laid_from:
                        if b <= y:
                            need += n
                    for a, b, n in held:
                        if a <= y and b >= x:
                            need += (min(b, y) - max(a, x) + 1 - (x <= a and b <= y)) * n
                    if need > total[y] - before:
                        return True
        return False

    def _windows(
        self, windows: _SuitWindows
    ) -> Iterator[
        tuple[list[cp_model.IntVar], list[cp_model.LinearExprT], list[cp_model.LinearExprT]]
    ]:
        """Per window: the runs inside it, the kept runs' terms, its naturals' fills."""
        shapes, naturals, kept = windows.shapes, windows.naturals, windows.kept
        starts = sorted({a for a, _, _ in shapes})
        ends = sorted({b for _, b, _ in shapes})
        for x in starts:
            # The runs from ``x`` on, and the window's naturals grown with ``y`` (the same
            # lists, in the same order, as filtering every run and place per window).
            after = [(b, run) for a, b, run in shapes if x <= a]
            window: list[cp_model.LinearExprT] = []
            last = x - 1
            for y in ends:
                if y - x + 1 > self._longest:
                    break
                if y < x:
                    continue
                inside = [run for b, run in after if b <= y]
                for p in range(last + 1, y + 1):
                    window += naturals.get(p, [])
                last = y
                if not inside:
                    continue
                # A kept run takes the naturals it overlaps, and needs none if inside.
                terms: list[cp_model.LinearExprT] = [
                    (min(b, y) - max(a, x) + 1 - (x <= a and b <= y)) * k
                    for a, b, k in kept
                    if a <= y and b >= x
                ]
                yield inside, terms, window


def _build_run_naturals(
    data: TurnData,
    suits: tuple[str | None, ...],
    runs: dict[RunKey, cp_model.IntVar],
    run_fill: dict[tuple[int, str], cp_model.LinearExprT],
    run_fixed: dict[tuple[int, int, str | None], cp_model.IntVar],
    held: Sequence[cp_model.IntVar],
    wilds: list[cp_model.IntVar],
) -> RunNaturals:
    """The windows of R4 for the pool's runs (``RunNaturals``), per suit; ``run_fixed``:
    the table wilds on run places keeping their value; ``wilds``: the counts of wilds on
    run places."""
    out: list[_SuitWindows] = []
    for suit in suits:
        shapes = [(a, b, run) for (a, b, s), run in runs.items() if s == suit]
        if not shapes:
            continue
        naturals: dict[int, list[cp_model.LinearExprT]] = {}
        for (p, s), fill in run_fill.items():
            if suit is None or s == suit:
                naturals.setdefault(p, []).append(fill)
        for (i, p, s2), placed in run_fixed.items():
            if s2 == suit and plays_natural(data, i, p, suit):
                naturals.setdefault(p, []).append(placed)
        # A kept linked run is all natural and stays as it was: it needs no natural
        # handed out, and the naturals it holds serve no other run.
        # (A linked run longer than a deck's pool's runs holds its own cards, ``pool_deck``.)
        kept = [
            (a, b, held[k])
            for k, (a, b, s) in data.linkable_runs.items()
            if s == suit and (a, b, s) in runs
        ]
        out.append(_SuitWindows(shapes, naturals, kept))
    least = data.ruleset.melds.min_sequence
    return RunNaturals(out, (3 * data.wild_supply - 3) // 2, wilds, least)


def _build_groups_of_rank(
    m: cp_model.CpModel,
    data: TurnData,
    r: int,
    avail: list[str],
    fixed_here: list[int],
    groups: dict[tuple[int, int], cp_model.IntVar],
    group_suits: dict[Code, cp_model.LinearExprT],
    group_free: dict[int, cp_model.IntVar],
    group_fixed: dict[int, cp_model.IntVar],
) -> None:
    """Groups of rank ``r`` counted per size, where wilds may join them: a natural suit
    at most once per group, so per-suit counts ≤ number of groups (Gale–Ryser makes
    this exact). Adds to the dicts it is given."""
    rs = data.ruleset
    n_free = data.wild_supply
    sizes = range(rs.melds.group_min, rs.melds.group_max + 1)
    cap = sum(data.natural_supply[(r, s)] for s in avail)
    gvars = {k: m.new_int_var(0, cap, "group") for k in sizes}
    groups.update({(r, k): v for k, v in gvars.items()})
    total = sum_of(gvars.values())
    size_sum = cp_model.LinearExpr.weighted_sum(list(gvars.values()), list(gvars))
    ys = []
    for s in avail:
        y = m.new_int_var(0, data.natural_supply[(r, s)], "gsuit")
        group_suits[(r, s)] = y
        ys.append(y)
    m.add(sum_of(ys) >= total)  # R4: every group holds a natural card
    fills: list[cp_model.IntVar] = list(ys)
    for i in fixed_here:
        g = m.new_bool_var("fixgrp")
        group_fixed[i] = g
        fills.append(g)
    for s in SUITS:
        # A suited wild stands for that very card: its suit is taken (R3, R4).
        suited = [group_fixed[i] for i in fixed_here if data.wilds[i].value.suit == s]
        nat = [group_suits[(r, s)]] if (r, s) in group_suits else []
        if rs.melds.group_suits_distinct and (suited or nat):
            m.add(sum_of([*nat, *suited]) <= total)
    if n_free:
        f = m.new_int_var(0, n_free, "gfree")
        group_free[r] = f
        fills.append(f)
    m.add(sum_of(fills) == size_sum)
    if data.options.group_flags:
        flag_groups(m, list(gvars.values()), (cap + n_free + len(fixed_here)) // rs.melds.group_min)


def _build_group_sets(
    m: cp_model.CpModel, data: TurnData, r: int, avail: list[str], stand_ins: int
) -> tuple[dict[GroupKey, cp_model.IntVar], dict[Code, cp_model.LinearExprT]]:
    """Groups of one rank where no wild can join, or only wilds standing in for card
    codes: a count per set of suits (the shape a kept group links to), each suit's
    cards the sum of the sets holding it. A set may hold up to ``stand_ins`` suits of
    which no natural is in play."""
    rs = data.ruleset
    sets: dict[GroupKey, cp_model.IntVar] = {}
    holding: dict[str, list[cp_model.IntVar]] = {}
    choice = SUITS if stand_ins else avail
    for size in range(rs.melds.group_min, min(rs.melds.group_max, len(avail) + stand_ins) + 1):
        for suits in combinations(choice, size):
            if stand_ins and sum(x not in avail for x in suits) > stand_ins:
                continue
            cap = min(data.natural_supply[(r, x)] + stand_ins for x in suits)
            v = m.new_int_var(0, cap, "gset")
            sets[(r, suits)] = v
            for x in suits:
                holding.setdefault(x, []).append(v)
    return sets, {(r, x): sum_of(vs) for x, vs in holding.items()}


def _build_stand_ins(
    m: cp_model.CpModel,
    data: TurnData,
    run_fill: dict[tuple[int, str], cp_model.LinearExprT],
    group_suits: dict[Code, cp_model.LinearExprT],
) -> dict[Code, cp_model.IntVar]:
    """A free wild that stands in for a card code: how many of each code.

    Where the only wilds are one free wild (a joker on the rack) in same-suit runs and
    distinct-suit groups, every place a wild can fill is one card's: a run place its
    rank and the run's suit, a group place its rank and a suit the group lacks. So the
    pool counts runs and groups per card code as without wilds, each code's places
    being its naturals and the wilds standing in for it (``conservation``). The pool
    then needs no wild variables per place, and its groups are counted per set of suits,
    a smaller model on rummikub's one-joker positions. Every meld holds a natural (R4)
    because the wilds are fewer than a meld's least cards; ``rebuild`` lays each
    stand-in where a place of its code is free."""
    codes = {(rank_of_position(p), s) for p, s in run_fill}
    codes.update(group_suits)
    # A wild card on a place of its own code is that natural card (a mexe-mexe 2):
    # not a stand-in, or the same table would be two solutions.
    codes -= {natural_code(c) for c in data.wild_capable if c.is_ordinary}
    return {code: m.new_int_var(0, data.wild_supply, "stand_in") for code in sorted(codes)}
