"""A flag per rank of the pool's groups (``model.group_flags``): implied by the counts, so
the same tables and the same answers; asked for by the searches of the rulesets named in
``search.GROUP_FLAGS`` (not mexe-mexe's, nor the suggestion's).

R3 (SPEC §3): a group is 3 or 4 cards of one rank in distinct suits.
"""

from __future__ import annotations

import dataclasses

import pytest
from ortools.sat.python import cp_model

from bench.hard_scan import shape_position
from bench.positions import PositionSpec, bench_positions
from solver.rearrangement import search
from solver.rearrangement.budget import Budget
from solver.rearrangement.model import TurnModel, turn_options
from solver.rearrangement.model.group_flags import flag_groups
from solver.rummy.position import Position, Turn, parse_position
from tests.model_variants import variants_agree


def _all_solutions(m: cp_model.CpModel, xs: list[cp_model.IntVar]) -> list[tuple[int, ...]]:
    found: list[tuple[int, ...]] = []

    class Collect(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            found.append(tuple(self.value(x) for x in xs))

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.solve(m, Collect())
    return found


def test_a_rank_is_flagged_exactly_when_it_has_a_group() -> None:
    """Every count of two sizes of groups (up to two groups in all) comes once, with its
    flag true exactly when a group is laid: no table is lost, none found twice."""
    m = cp_model.CpModel()
    counts = [m.new_int_var(0, 2, "g3"), m.new_int_var(0, 2, "g4")]
    m.add(counts[0] + counts[1] <= 2)
    flag = flag_groups(m, counts, 2)
    found = _all_solutions(m, [*counts, flag])
    assert len(found) == len(set(found)) == 6  # (0,0) (1,0) (2,0) (0,1) (0,2) (1,1)
    assert all(has == (g3 + g4 > 0) for g3, g4, has in found)


def _carrossel(table: list[str], hand: str) -> Position:
    return parse_position("carrossel", 3, [meld.split() for meld in table], hand.split(), Turn(1))


def _flags(position: Position, group_flags: bool) -> int:
    options = turn_options(position, position.ruleset.rearrangement.max_new_melds, None)
    tm = TurnModel(position, dataclasses.replace(options, group_flags=group_flags))
    return len(tm.model.proto.variables)


def test_carrossel_s_searches_flag_groups_and_mexe_mexe_s_and_the_suggestion_do_not() -> None:
    position = _carrossel(["4D 5C 6H", "9S 9H 9C", "7S 7H 7D"], "7C 9D 2C")
    flagged, plain = _flags(position, True), _flags(position, False)
    assert flagged > plain  # ranks 7 and 9 can hold groups: one flag each
    assert search._search_options(position, 1, None).group_flags
    suggestion, _ = search.legal_turn_model(position, Budget(1000))
    assert not suggestion.data.options.group_flags
    mexe = parse_position("mexe-mexe", 3, [["4H", "5H", "6H"]], ["7H", "2C"], Turn(1))
    assert not search._search_options(mexe, 1, None).group_flags


def _agree(specs: list[PositionSpec], monkeypatch: pytest.MonkeyPatch) -> int:
    """Both models hold the same tables (``variants_agree``): without flags and with them."""
    return variants_agree(specs, monkeypatch, "GROUP_FLAGS", ((), search.GROUP_FLAGS))


def test_flags_and_plain_counts_agree_on_carrossel_positions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    specs = bench_positions("carrossel", "mid", 12, 4) + bench_positions("carrossel", "fit", 6, 4)
    assert _agree(specs, monkeypatch) >= len(specs) - 2


@pytest.mark.parametrize("ruleset", ["vatikan", "shangai", "manipulation"])
def test_flags_and_plain_counts_agree_on_the_other_any_suit_rulesets(
    ruleset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    specs = [shape_position("midhand", ruleset, k) for k in range(4)]
    assert _agree(specs, monkeypatch) >= len(specs) - 1
