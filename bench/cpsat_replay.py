"""Replay the CP-SAT solves of ``solve_move`` with other parameters, to time CP-SAT alone.

Run from the repository root::

    python -m bench.cpsat_replay [--n 60] [--seed 15] [--rulesets rummikub] \
        [--sizes mid,large] [--repeat 3] [VARIANT ...]

Each position is solved once by ``solve_move`` while every model CP-SAT is given is recorded
with its parameters; only the first solve of each position is replayed (for Rummikub's
``MOST_CARDS`` that is the only one: the weighted solve). Each model is then solved again
``--repeat`` times with the shipped parameters and with each VARIANT (a Python dict of
CP-SAT parameters laid over them, e.g. ``"{'linearization_level': 2}"``), and the fastest
CPU time of each is kept. Besides parameters, a variant may hold two keys of its own:
``"hint": "optimum"`` (the shipped solve's own solution as a full hint: the most a hint could
save) and ``"objective": "primary"`` (the tie-break term dropped from the objective).
For each it prints the median, mean and p90 in CPU ms, and on how many models the objective
value or the solution differs from the shipped parameters' (a different solution of the same
value can still change the table shown; a solve stopped before any solution counts as a
different value).
"""

from __future__ import annotations

import argparse
import ast
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # ``python bench/cpsat_replay.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ortools.sat.python import cp_model

from bench.positions import each_bench_position
from solver.rearrangement.search import Objective, default_objective, solve_move

OWN_KEYS = ("hint", "objective")


@dataclass
class Recorded:
    """One recorded solve: the model as text, its parameters, and what the solve answered."""

    name: str
    model: str
    parameters: str
    hand_vars: set[int]
    solution: list[int]


def record(rulesets: Sequence[str], sizes: Sequence[str], n: int, seed: int) -> list[Recorded]:
    """The first CP-SAT solve of ``solve_move`` on each position."""
    out: list[Recorded] = []
    seen: list[tuple[str, str, cp_model.CpSolver]] = []
    solve = cp_model.CpSolver.solve

    def recording(self: cp_model.CpSolver, model: cp_model.CpModel, *a: Any, **k: Any) -> Any:
        seen.append((str(model.proto), str(self.parameters), self))
        return solve(self, model, *a, **k)

    cp_model.CpSolver.solve = recording  # type: ignore[method-assign]
    try:
        for spec in each_bench_position(rulesets, sizes, n, seed):
            position = spec.position()
            seen.clear()
            objective = (
                Objective.MOST_CARDS
                if spec.ruleset == "rummikub"
                else default_objective(position.ruleset)
            )
            solve_move(position, objective)
            if seen:
                text, parameters, solver = seen[0]
                hand = {c.index for c in _hand_vars(text, solver)}
                solution = list(solver.response_proto.solution)
                out.append(Recorded(spec.name, text, parameters, hand, solution))
    finally:
        cp_model.CpSolver.solve = solve  # type: ignore[method-assign]
    return out


def _hand_vars(text: str, solver: cp_model.CpSolver) -> list[cp_model.IntVar]:
    # The hand's variables are the objective's terms of the largest weight (one primary unit
    # outweighs every melds-changed count, tries._solve_weighted).
    model = _model(text)
    objective = model.proto.objective
    weights = [abs(c) for c in objective.coeffs]
    top = max(weights, default=0)
    return [
        model.get_int_var_from_proto_index(v)
        for v, w in zip(objective.vars, weights, strict=True)
        if w == top
    ]


def _model(text: str) -> cp_model.CpModel:
    model = cp_model.CpModel()
    model.proto.parse_text_format(text)
    return model


def replay(
    recorded: Sequence[Recorded], variant: dict[str, Any], repeat: int
) -> tuple[list[float], int, int]:
    """Per model the fastest CPU ms; how many objective values and solutions differ."""
    times: list[float] = []
    values_differ = solutions_differ = 0
    for r in recorded:
        model = _model(r.model)
        if variant.get("objective") == "primary":
            objective = model.proto.objective
            terms = [(v, c) for v, c in zip(objective.vars, objective.coeffs, strict=True)]
            scaling = objective.scaling_factor
            model.proto.clear_objective()
            kept = [(v, c) for v, c in terms if v in r.hand_vars]
            model.proto.objective.vars.extend([v for v, _ in kept])
            model.proto.objective.coeffs.extend([c for _, c in kept])
            model.proto.objective.scaling_factor = scaling
        if variant.get("hint") == "optimum":
            model.proto.solution_hint.vars.extend(range(len(r.solution)))
            model.proto.solution_hint.values.extend(r.solution)
        best = float("inf")
        solver = cp_model.CpSolver()
        for _ in range(repeat):
            solver = cp_model.CpSolver()
            solver.parameters.parse_text_format(r.parameters)
            for key, value in variant.items():
                if key not in OWN_KEYS:
                    setattr(solver.parameters, key, value)
            start = time.process_time_ns()
            solver.solve(model)
            best = min(best, (time.process_time_ns() - start) / 1e6)
        times.append(best)
        solution = list(solver.response_proto.solution)
        if not solution or not r.solution:  # one of the two stopped before a solution
            values_differ += 1
        elif variant.get("objective") != "primary":
            values_differ += _value(model, solution) != _value(model, r.solution)
        solutions_differ += solution != r.solution
    return times, values_differ, solutions_differ


def _value(model: cp_model.CpModel, solution: Sequence[int]) -> int:
    objective = model.proto.objective
    return sum(c * solution[v] for v, c in zip(objective.vars, objective.coeffs, strict=True))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=60)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--rulesets", default="rummikub")
    parser.add_argument("--sizes", default="mid,large")
    parser.add_argument("--repeat", type=int, default=3, help="solves per model (fastest kept)")
    parser.add_argument("variants", nargs="*", help="dicts of CP-SAT parameters")
    args = parser.parse_args(argv)
    recorded = record(args.rulesets.split(","), args.sizes.split(","), args.n, args.seed)
    print(f"{len(recorded)} models recorded; CPU ms per solve, fastest of {args.repeat}")
    print(f"{'variant':60} {'median':>7} {'mean':>7} {'p90':>7}  value/solution differs")
    for variant in [{}, *(ast.literal_eval(v) for v in args.variants)]:
        times, values, solutions = replay(recorded, variant, args.repeat)
        p90 = sorted(times)[max(0, round(0.9 * len(times)) - 1)]
        label = str(variant) if variant else "shipped parameters"
        print(
            f"{label:60} {statistics.median(times):7.3f} {statistics.mean(times):7.3f} "
            f"{p90:7.3f}  {values}/{solutions}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
