"""The primary solve's tries (``solver.rearrangement.search_tries.solve_primary``): once a try has
found a
solution it could not prove, the later tries search only strictly better ones; and the last
try, the one without a work limit, probes where wilds are enough for a run of their own.

A small knapsack stands in for a turn model, and the first try is made to stop at its first
solution, as a work-limited try on a hard position does.
"""

from __future__ import annotations

from typing import Any

import pytest
from ortools.sat.python import cp_model

from solver.rearrangement import search
from solver.rearrangement import tries as search_tries
from solver.rearrangement.budget import Budget
from solver.rummy.position import Turn, parse_position

VALUES = (6, 5, 4, 3, 7)
WEIGHTS = (4, 3, 2, 2, 5)
CAPACITY = 8  # the best load is items 0, 2 and 3: 6 + 4 + 3 = 13


def _knapsack(hint: tuple[int, ...]) -> tuple[cp_model.CpModel, list[cp_model.IntVar], Any]:
    model = cp_model.CpModel()
    take = [model.new_bool_var(f"take{i}") for i in range(len(VALUES))]
    model.add(cp_model.LinearExpr.weighted_sum(take, WEIGHTS) <= CAPACITY)
    value = cp_model.LinearExpr.weighted_sum(take, VALUES)
    model.maximize(value)
    for var, h in zip(take, hint, strict=True):
        model.add_hint(var, h)
    return model, take, value


@pytest.fixture
def first_try_stops_early(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The first try stops at its first solution (unproved); every try's status is logged
    with the number of constraints of the model it searched."""
    made = Budget.solver
    statuses: list[str] = []

    def solver(self: Budget, *args: Any, **kwargs: Any) -> cp_model.CpSolver:
        s = made(self, *args, **kwargs)
        s.parameters.stop_after_first_solution = not statuses
        solve = s.solve

        def logged(
            model: cp_model.CpModel,
            solution_callback: cp_model.CpSolverSolutionCallback | None = None,
        ) -> cp_model.CpSolverStatus:
            status = solve(model, solution_callback)
            statuses.append(f"{s.status_name(status)} with {len(model.proto.constraints)}")
            return status

        s.solve = logged  # type: ignore[method-assign]
        return s

    monkeypatch.setattr(Budget, "solver", solver)
    return statuses


def test_an_incumbent_no_later_try_can_beat_is_proved_optimal(
    first_try_stops_early: list[str],
) -> None:
    model, take, value = _knapsack(hint=(1, 0, 1, 1, 0))  # the optimum, found first
    solver, status = search_tries.solve_primary(model, True, Budget(5000), value)
    assert first_try_stops_early == ["FEASIBLE with 1", "INFEASIBLE with 2"]  # + cutoff
    assert status == cp_model.OPTIMAL
    assert solver.objective_value == 13
    assert [solver.value(t) for t in take] == [1, 0, 1, 1, 0]


def test_a_later_try_searches_only_better_solutions(first_try_stops_early: list[str]) -> None:
    model, _, value = _knapsack(hint=(0, 1, 1, 1, 0))  # 12, found first
    solver, status = search_tries.solve_primary(model, True, Budget(5000), value)
    assert first_try_stops_early == ["FEASIBLE with 1", "OPTIMAL with 2"]  # + cutoff
    assert status == cp_model.OPTIMAL
    assert solver.objective_value == 13
    # The model itself keeps no cutoff: a later solve (tie-break, next move) sees it whole.
    assert len(model.proto.constraints) == 1


def _record_tries(
    monkeypatch: pytest.MonkeyPatch, stop_limited: bool
) -> list[tuple[float | None, bool, int]]:
    """Every try's work limit, lean flag and probing level, in order; with ``stop_limited``,
    each work-limited try stops at once."""
    made = Budget.solver
    tries: list[tuple[float | None, bool, int]] = []

    def solver(self: Budget, *args: Any, **kwargs: Any) -> cp_model.CpSolver:
        s = made(self, *args, **kwargs)
        work = kwargs.get("work")
        if stop_limited and work is not None:
            s.parameters.max_number_of_conflicts = 0
            s.parameters.max_deterministic_time = 0.0
        tries.append((work, kwargs.get("lean", False), s.parameters.cp_model_probing_level))
        return s

    monkeypatch.setattr(Budget, "solver", solver)
    return tries


@pytest.mark.parametrize("third_round", [False, True])
@pytest.mark.parametrize("probe_last", [False, True])
def test_only_the_last_try_probes_and_only_when_asked(
    monkeypatch: pytest.MonkeyPatch, probe_last: bool, third_round: bool
) -> None:
    """Every work-limited try is made to stop at once, so the schedule reaches its last
    try, the one without a work limit: that one alone probes, where ``probe_last`` asks.
    With ``third_round`` (R8's largest adds) and without ``probe_last``, a third round
    (lean, then usual, 0.6 each) comes before the last try; else it is left out."""
    made = _record_tries(monkeypatch, stop_limited=True)
    model, _, value = _knapsack(hint=(1, 0, 1, 1, 0))
    budget = Budget(5000)
    solver_, status = search_tries.solve_primary(
        model, True, budget, value, probe_last, third_round
    )
    assert status == cp_model.OPTIMAL and solver_.objective_value == 13
    probing = [level for _, _, level in made]
    tries = [(work, lean) for work, lean, _ in made]
    assert probing == [0] * (len(tries) - 1) + [2 if probe_last else 0]
    rounds = [(0.01, True), (0.03, False), (0.2, True), (0.2, False)]
    third = [(0.6, True), (0.6, False)] if third_round and not probe_last else []
    assert tries == [*rounds, *third, (None, True)]


def _spy_on_primary(monkeypatch: pytest.MonkeyPatch, index: int, name: str) -> list[bool]:
    """Log one flag of every ``_solve_primary`` call (positional ``index`` or keyword
    ``name``), with the try on the best value skipped so that the primary runs."""
    asked: list[bool] = []
    solve_primary = search_tries.solve_primary

    def spy(*args: Any, **kwargs: Any) -> Any:
        asked.append(args[index] if len(args) > index else kwargs.get(name, False))
        return solve_primary(*args, **kwargs)

    monkeypatch.setattr(search_tries, "solve_primary", spy)
    monkeypatch.setattr(search_tries, "_ideal", lambda tm, objective: None)
    return asked


@pytest.mark.parametrize(
    ("ruleset", "drawn", "third_round"),
    [
        ("manipulation", 1, True),
        ("shangai", 1, True),
        ("carrossel", 1, False),
        ("vatikan", 0, False),
    ],
)
def test_only_rulesets_whose_adds_must_be_maximal_get_the_third_round(
    monkeypatch: pytest.MonkeyPatch, ruleset: str, drawn: int, third_round: bool
) -> None:
    """The ruleset's data decides (``add_must_be_maximal``, R8), not its name."""
    asked = _spy_on_primary(monkeypatch, 5, "third_round")
    table = [["5H", "6H", "7H"], ["9S", "10S", "JS"]]
    turn = Turn(cards_drawn=drawn, has_opened=True, has_melded_sequence=True)
    position = parse_position(ruleset, 3, table, ["4H", "QS", "KD"], turn)
    result = search.solve_move(position, search.Objective.MOST_CARDS)
    assert result.optimal and asked and set(asked) == {third_round}


# Manipulation, 15 table melds and 16 hand cards (a big-hand scan, seed 61): the largest add
# (14 cards, R8) takes the lean search 4.5 units of work to prove and the usual one 0.2-0.4.
BIG_TABLE = [
    ["9H", "10H", "JD", "QC", "KH", "AS"],
    ["QH", "KS", "AD"],
    ["2S", "3S", "4D", "5C", "6C", "7S", "8S", "9D"],
    ["9C", "10C", "JH", "QD", "KC"],
    ["9S", "10S", "JS", "QS", "KS"],
    ["8C", "8D", "8H", "8S"],
    ["2C", "3H", "4S", "5S", "6S", "7H"],
    ["2H", "3D", "4S", "5H"],
    ["JH", "QS", "KD"],
    ["QC", "KC", "AH"],
    ["2C", "3C", "4H", "5C", "6D", "7D", "8H", "9D"],
    ["2D", "3H", "4H", "5H", "6H", "7C"],
    ["2H", "3D", "4C"],
    ["6H", "7H", "8D", "9S"],
    ["10C", "10D", "10H", "10S"],
]
BIG_HAND = [
    "AC",
    "AD",
    "AH",
    "AS",
    "2D",
    "2S",
    "4D",
    "6C",
    "6D",
    "8C",
    "9C",
    "10D",
    "JC",
    "QD",
    "QH",
    "KH",
]


def test_a_proof_the_lean_search_finds_hard_is_left_to_the_usual_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The third round's usual try proves the largest add, so the unbounded lean try (which
    took 11.6 s here) never runs."""
    made = _record_tries(monkeypatch, stop_limited=False)
    position = parse_position("manipulation", 3, BIG_TABLE, BIG_HAND, Turn())
    assert search.max_cards_placed(position, 0, 60_000) == 14
    assert None not in [work for work, _, _ in made]


@pytest.mark.parametrize(
    ("ruleset", "table", "hand", "probes"),
    [
        # Three 2s in play, enough for a run of wilds alone (R4's windows, mexe-mexe).
        ("mexe-mexe", [["5H", "6H", "2C=7H"], ["9S", "10S", "2D=JS"]], ["2S", "4H", "QS"], True),
        # One 2: no run of wilds alone.
        ("mexe-mexe", [["5H", "6H", "2C=7H"], ["9S", "10S", "JS"]], ["4H", "QS"], False),
        ("carrossel", [["5H", "6H", "JK=7H"], ["9S", "10S", "JS"]], ["JK", "4H", "QS"], False),
    ],
)
def test_solve_move_asks_the_last_try_to_probe_where_wilds_make_a_run(
    monkeypatch: pytest.MonkeyPatch,
    ruleset: str,
    table: list[list[str]],
    hand: list[str],
    probes: bool,
) -> None:
    asked = _spy_on_primary(monkeypatch, 4, "probe_last")
    position = parse_position(ruleset, 3, table, hand, Turn(cards_drawn=1))
    result = search.solve_move(position, search.Objective.MOST_CARDS)
    assert result.optimal and asked and set(asked) == {probes}
