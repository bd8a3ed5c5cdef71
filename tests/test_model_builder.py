"""The CpModel subclass the turn model builds on writes what OR-Tools' own class writes.

``FastCpModel`` replaces two of ``CpModel``'s methods with faster ones (objectives written in
two extends rather than term by term; clones that skip the camelCase aliases). These tests
compare the model each writes, so that an OR-Tools upgrade that changes the base class
fails here rather than in a search that optimises the wrong thing.
"""

from __future__ import annotations

import pytest
from ortools.sat.python import cp_model

from bench.positions import bench_positions
from solver.rearrangement.model import FastCpModel, TurnModel, turn_options


def _models() -> list[TurnModel]:
    out = []
    for ruleset in ("carrossel", "rummikub"):
        for spec in bench_positions(ruleset, "mid", 3, 4):
            position = spec.position()
            out.append(
                TurnModel(
                    position,
                    turn_options(position, position.ruleset.rearrangement.max_new_melds, None),
                )
            )
    return out


def _objective(model: cp_model.CpModel) -> tuple[list[int], list[int], float, float]:
    o = model.proto.objective
    return list(o.vars), list(o.coeffs), o.offset, o.scaling_factor


@pytest.mark.parametrize("maximize", [True, False])
def test_objective_is_written_as_cp_model_writes_it(maximize: bool) -> None:
    checked = 0
    for tm in _models():
        v = tm.variables
        weight = len(v.kept.keep) + 1
        weighted = cp_model.LinearExpr.weighted_sum([v.played, v.changed], [weight, -1])
        for expr in (v.played, v.changed, v.hand_points_after, weighted, v.went_out, 7):
            tm.model._set_objective(expr, maximize)
            ours = _objective(tm.model)
            cp_model.CpModel._set_objective(tm.model, expr, maximize)
            assert ours == _objective(tm.model)
            checked += 1
    assert checked >= 30


def test_a_clone_is_a_fast_model_with_the_same_proto_and_its_own_objective() -> None:
    tm = _models()[0]
    tm.model.maximize(tm.variables.played)
    clone = tm.model.clone()
    assert type(clone) is FastCpModel
    assert str(clone.proto) == str(tm.model.proto)
    clone.minimize(tm.variables.changed)
    assert _objective(clone) != _objective(tm.model)
    assert _objective(tm.model)[3] == -1.0  # the original still maximises the cards played
