"""R4's windows for the pool's runs, left out of the suggestion's model and checked against
the table found (issue #53's speed; R4: every meld holds a natural card).

``pool.RunNaturals.broken`` must say exactly whether a solution of the model without the
windows breaks one of the constraints ``RunNaturals.add`` writes: a table it passes that
breaks one would be a run of wilds alone; one it rejects that breaks none would only cost a
second search. Each solution here is checked against the whole model with every variable
fixed to its value. The solutions come from objectives that lay as many pool runs as
possible, which on mexe-mexe's wild 2s makes runs of wilds alone (some must break a
window, or the test proves nothing), and from the suggestion's own searches.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any

import pytest
from ortools.sat.python import cp_model

from bench.positions import bench_positions
from solver.rearrangement import suggest, tries
from solver.rearrangement.model import TurnModel, sum_of, turn_options
from solver.rearrangement.model.pool import RunNaturals
from solver.rearrangement.search import validate_move
from solver.rummy.position import Move, Position
from tests.reference.suggest_oracle import MUTATIONS, _add_hand_card


def _model(position: Position, defer: bool) -> TurnModel:
    options = turn_options(position, position.ruleset.rearrangement.max_new_melds, None)
    return TurnModel(position, dataclasses.replace(options, defer_run_naturals=defer))


def _meets_whole_model(position: Position, solution: list[int]) -> bool:
    """Is ``solution`` (of the model without the windows) a solution of the whole model?"""
    whole = _model(position, defer=False)
    assert whole.variables.pool.deferred_run_naturals is None
    variables = whole.model.proto.variables
    assert len(variables) == len(solution)  # the windows add constraints only
    for index, value in enumerate(solution):
        whole.model.add(whole.model.get_int_var_from_proto_index(index) == value)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    status = solver.solve(whole.model)
    assert status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
    return status == cp_model.OPTIMAL


def test_broken_says_exactly_whether_a_solution_breaks_a_window() -> None:
    verdicts: list[bool] = []
    for spec in bench_positions("mexe-mexe", "mid", 12, 5):
        position = spec.position()
        for weight in (0, 1):
            tm = _model(position, defer=True)
            windows = tm.variables.pool.deferred_run_naturals
            if windows is None:
                continue  # too few wilds for a run of wilds alone: no window at all
            pool = tm.variables.pool
            # Many runs with few naturals in them (runs of wilds alone break windows),
            # or many runs however filled.
            fills = [x for x in pool.run_fill.values() if isinstance(x, cp_model.IntVar)]
            tm.model.maximize(sum_of(pool.runs.values()) - weight * sum_of(fills))
            solver = cp_model.CpSolver()
            solver.parameters.num_workers = 1
            solver.parameters.max_deterministic_time = 1.0
            status = solver.solve(tm.model)
            if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                continue
            broken = windows.broken(solver.value)
            solution = list(solver.response_proto.solution)
            assert broken is not _meets_whole_model(position, solution), spec.name
            verdicts.append(broken)
    assert True in verdicts and False in verdicts, verdicts


def test_fewer_wilds_in_runs_than_a_run_holds_break_no_window() -> None:
    """``broken``'s shortcut (R4): a solution with fewer wilds on run places than a run's
    fewest cards passes without its windows summed, and does meet the whole model."""
    few = 0
    for spec in bench_positions("mexe-mexe", "mid", 12, 5):
        position = spec.position()
        tm = _model(position, defer=True)
        windows = tm.variables.pool.deferred_run_naturals
        if windows is None:
            continue
        pool = tm.variables.pool
        wilds = [*pool.run_free_wilds.values(), *pool.run_table_wilds.values()]
        # Many runs, but few wilds in them: at most two.
        tm.model.add(sum_of(wilds) <= position.ruleset.melds.min_sequence - 1)
        tm.model.maximize(sum_of(pool.runs.values()) + sum_of(wilds))
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.max_deterministic_time = 1.0
        if solver.solve(tm.model) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            continue
        assert not windows.broken(solver.value)
        assert _meets_whole_model(position, list(solver.response_proto.solution)), spec.name
        few += sum(solver.value(w) for w in wilds) > 0
    assert few >= 5  # solutions with wilds in runs, not only runs of naturals


def _proposals(count: int) -> list[tuple[Position, Move]]:
    """Mexe-mexe mid tables and illegal proposals laying hand cards, made from the table as
    it was by the oracle's mutations (a hand card added, cards moved, melds split or merged),
    so the same on every run (``bench.suggest_bench`` mutates SolveMove's best move, which
    a loaded machine can change)."""
    rng = random.Random("deferred-windows")
    out: list[tuple[Position, Move]] = []
    for spec in bench_positions("mexe-mexe", "mid", 4 * count, 11):
        position = spec.position()
        table = [list(meld) for meld in position.table]
        for mutate in (_add_hand_card, _add_hand_card, rng.choice(MUTATIONS)):
            mutate(table, rng, position)
        proposal = Move(tuple(tuple(meld) for meld in table if meld))
        if not suggest.proposal_hand_cards(position, proposal):
            continue
        try:
            if validate_move(position, proposal).legal:
                continue
        except ValueError:  # more copies of a card than the deck: the service refuses it
            continue
        out.append((position, proposal))
        if len(out) == count:
            break
    return out


def _optimum(position: Position, proposal: Move) -> tuple[str, int]:
    """The suggestion search's last CP-SAT solve: its status and objective value (the
    model's optimum, which the table found realizes where the model's counts are exact)."""
    solves: list[tuple[str, int]] = []
    solve_primary = tries.solve_primary

    def recorded(*args: Any, **kwargs: Any) -> Any:
        solver, status = solve_primary(*args, **kwargs)
        solves.append((solver.status_name(status), round(solver.objective_value)))
        return solver, status

    tries.solve_primary = recorded
    try:
        suggest.suggest_move(position, proposal)  # its table re-checked by the referee
    finally:
        tries.solve_primary = solve_primary
    return solves[-1]


@pytest.mark.parametrize("always_broken", [False, True], ids=["as-found", "always-broken"])
def test_suggestion_without_windows_first_has_the_whole_models_optimum(
    monkeypatch: pytest.MonkeyPatch, always_broken: bool
) -> None:
    """The search without the windows first proves the optimum the search on the whole
    model proves; ``always-broken`` takes every table found as breaking a window, so each
    search runs again with the windows added (the path a broken one takes). Keys read off
    the table may differ between two optimal solutions where the model's counts are upper
    bounds (``suggest``), so the optimum is compared; ``bench.suggest_deferred`` runs this
    on 100 tables per size, and ``bench.suggest_differential`` checks keys."""
    checks: list[bool] = []
    broken = RunNaturals.broken

    def checked(self: RunNaturals, value: Callable[[Any], int]) -> bool:
        verdict = always_broken or broken(self, value)
        checks.append(verdict)
        return verdict

    monkeypatch.setattr(RunNaturals, "broken", checked)
    monkeypatch.setattr(suggest, "RELAX_NEW_MELDS", False)  # R6's relaxation: below
    for position, proposal in _proposals(6):
        checks.clear()
        left_out = _optimum(position, proposal)
        assert checks, "the windows were not left out"
        assert left_out[0] == "OPTIMAL"
        monkeypatch.setattr(suggest, "DEFER_RUN_NATURALS", False)
        assert _optimum(position, proposal) == left_out
        monkeypatch.setattr(suggest, "DEFER_RUN_NATURALS", True)


def _keys(position: Position, proposal: Move) -> tuple[int, int, int, bool] | None:
    found = suggest.suggest_move(position, proposal)
    if found.move is None:
        return None
    solved = found.move.solved
    return len(solved.verdict.played), len(found.move.kept), solved.melds_changed, found.optimal


def test_suggestion_without_r6_first_is_never_farther_than_the_whole_models(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where mexe-mexe's 2s could make runs of their own, the suggestion is first searched
    without R6's limit on new melds (one try); its answer is kept only where the referee
    calls it legal and it realizes that model's optimum, which bounds every legal table's
    keys. So it is never farther from the proposal, by the keys in order, than the whole
    model's proved answer, and it lays the same hand cards. (Two optimal solutions of a
    model may still show different keys where its counts are upper bounds, ``suggest``.)
    ``bench.suggest_deferred`` runs this on 100 tables per size."""
    kept: list[bool] = []
    nearest = suggest._nearest

    def counted(*args: Any, **kwargs: Any) -> Any:
        found = nearest(*args, **kwargs)
        if kwargs.get("relax_new_melds"):
            kept.append(found is not None)
        return found

    monkeypatch.setattr(suggest, "_nearest", counted)
    tried: list[bool] = []
    for position, proposal in _proposals(8):
        kept.clear()
        fast = _keys(position, proposal)
        assert kept, "the search without R6 was not tried"
        tried += kept
        monkeypatch.setattr(suggest, "RELAX_NEW_MELDS", False)
        monkeypatch.setattr(suggest, "DEFER_RUN_NATURALS", False)
        whole = _keys(position, proposal)
        monkeypatch.setattr(suggest, "RELAX_NEW_MELDS", True)
        monkeypatch.setattr(suggest, "DEFER_RUN_NATURALS", True)
        assert (fast is None) == (whole is None)
        if fast is None or whole is None or not whole[3]:
            continue
        assert fast[0] == whole[0]
        assert (fast[1], -fast[2]) >= (whole[1], -whole[2])
    assert True in tried, "no answer of the search without R6 was kept"
