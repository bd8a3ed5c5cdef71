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

from ortools.sat.python import cp_model

from bench.positions import bench_positions
from solver.rearrangement.model import TurnModel, sum_of, turn_options
from solver.rummy.position import Position


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
