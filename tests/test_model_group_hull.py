"""Each rank's pool groups as one chosen configuration (``model.group_hull``): the same
integer counts, a relaxation that is their convex hull, and so the same answers.

R3 (SPEC §3): a group is 3 or 4 cards of one rank in distinct suits; R4: each holds a
natural. The configurations list exactly the counts the pool's own constraints allow.
"""

from __future__ import annotations

from itertools import product

import pytest
from ortools.linear_solver import pywraplp
from ortools.sat.python import cp_model

from bench.positions import bench_positions
from solver.rearrangement import search
from solver.rearrangement.model.group_hull import (
    add_set_configurations,
    add_size_configurations,
)
from solver.rearrangement.search import solve_move

SETS = [("C", "D", "H"), ("C", "D", "S"), ("C", "H", "S"), ("D", "H", "S"), ("C", "D", "H", "S")]


def _set_counts(supply: dict[str, int], hull: bool) -> set[tuple[int, ...]]:
    """Every integer count per set of suits that the supply can hold, as CP-SAT finds them
    with the pool's constraint (each suit's cards ≥ the sets holding it) and the hull."""
    m = cp_model.CpModel()
    xs = {s: m.new_int_var(0, 2, "x") for s in SETS}
    for suit, n in supply.items():
        m.add(sum(x for s, x in xs.items() if suit in s) <= n)
    if hull:
        assert add_set_configurations(m, xs, supply) > 0
    return _all_solutions(m, list(xs.values()))


def _all_solutions(m: cp_model.CpModel, xs: list[cp_model.IntVar]) -> set[tuple[int, ...]]:
    found: set[tuple[int, ...]] = set()

    class Collect(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            found.add(tuple(self.value(x) for x in xs))

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.solve(m, Collect())
    return found


@pytest.mark.parametrize("supply", [(1, 1, 1, 0), (1, 1, 1, 2), (2, 2, 2, 2), (2, 1, 2, 0)])
def test_r3_set_configurations_are_exactly_the_counts_the_suits_allow(
    supply: tuple[int, ...],
) -> None:
    by_suit = dict(zip("CDHS", supply, strict=True))
    assert _set_counts(by_suit, hull=True) == _set_counts(by_suit, hull=False)


def test_r3_the_hull_excludes_one_and_a_half_groups_of_one_group_s_cards() -> None:
    """C, D, H once and S twice: one group at most (of four suits), but three groups of
    three at one half each (C-D-S, C-H-S, D-H-S) hold 4.5 cards in the plain relaxation."""
    supply = {"C": 1, "D": 1, "H": 1, "S": 2}

    def most_cards(hull: bool) -> float:
        m = cp_model.CpModel()
        xs = {s: m.new_int_var(0, 2, "x") for s in SETS}
        for suit, n in supply.items():
            m.add(sum(x for s, x in xs.items() if suit in s) <= n)
        if hull:
            add_set_configurations(m, xs, supply)
        lp = pywraplp.Solver.CreateSolver("GLOP")
        assert lp is not None
        cols = [lp.NumVar(list(v.domain)[0], list(v.domain)[-1], "") for v in m.proto.variables]
        for c in m.proto.constraints:
            if c.has_exactly_one():
                lp.Add(sum(cols[i] for i in c.exactly_one.literals) == 1)
                continue
            lin = c.linear
            expr = sum(k * cols[i] for i, k in zip(lin.vars, lin.coeffs, strict=True))
            lo, hi = list(lin.domain)[0], list(lin.domain)[-1]
            if lo > -(2**62):
                lp.Add(expr >= lo)
            if hi < 2**62:
                lp.Add(expr <= hi)
        lp.Maximize(sum(len(s) * cols[x.index] for s, x in xs.items()))
        assert lp.Solve() == pywraplp.Solver.OPTIMAL
        return float(lp.Objective().Value())

    assert most_cards(hull=False) == pytest.approx(4.5)
    assert most_cards(hull=True) == pytest.approx(4.0)


def test_r4_size_configurations_are_exactly_the_counts_with_wilds() -> None:
    """Groups of 3 and 4 with up to two wilds: each suit's naturals at most one a group,
    a natural in each group (R4), the wilds the rest."""
    for supply, room in product([(1, 1, 0, 0), (2, 1, 1, 0), (2, 2, 1, 1)], (1, 2)):
        by_suit = {s: n for s, n in zip("CDHS", supply, strict=True) if n}
        results = []
        for hull in (False, True):
            m = cp_model.CpModel()
            sizes = {k: m.new_int_var(0, 4, "g") for k in (3, 4)}
            ys = {s: m.new_int_var(0, n, "y") for s, n in by_suit.items()}
            wilds = m.new_int_var(0, room, "w")
            total = sizes[3] + sizes[4]
            m.add(sum(ys.values()) >= total)
            for y in ys.values():
                m.add(y <= total)
            m.add(sum(ys.values()) + wilds == 3 * sizes[3] + 4 * sizes[4])
            if hull:
                assert add_size_configurations(m, sizes, ys, by_suit, wilds, room, True) > 0
            results.append(_all_solutions(m, [*sizes.values(), *ys.values(), wilds]))
        assert results[0] == results[1], (supply, room)


def test_the_hull_and_the_plain_counts_agree_on_carrossel_positions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both models hold the same tables: where both prove their answer, the primary value
    is the same, and so are the melds changed where both tie-breaks are proved."""
    specs = bench_positions("carrossel", "mid", 10, 2) + bench_positions("carrossel", "fit", 4, 2)
    compared = 0
    for spec in specs:
        position = spec.position()
        answers = []
        for hull in (False, True):
            monkeypatch.setattr(search, "GROUP_HULL", hull)
            answers.append(solve_move(position))
        plain, hulled = answers
        if not (plain.optimal and hulled.optimal):
            continue
        compared += 1
        assert plain.stats.objective_value == hulled.stats.objective_value, spec.name
        if plain.stats.tie_break_proved and hulled.stats.tie_break_proved and hulled.moves:
            changed = (plain.moves[0].melds_changed, hulled.moves[0].melds_changed)
            assert changed[0] == changed[1], spec.name
    assert compared >= len(specs) - 2
