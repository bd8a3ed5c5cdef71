"""Replay the CP-SAT solve of ``suggest_move`` with other parameters (issue #53), to time
CP-SAT alone on the suggestion's models, as ``bench.cpsat_replay`` does for SolveMove's.

    .venv/bin/python -m bench.suggest_replay [--n 40] [--seed 1] [--size mid] [--repeat 3]
        [--ruleset mexe-mexe] [--unlimited] [VARIANT ...]

The proposals are ``bench.suggest_bench``'s. Each suggestion's first CP-SAT model is
recorded with its parameters, then solved again ``--repeat`` times with the shipped
parameters and with each VARIANT (a Python dict of CP-SAT parameters laid over them, e.g.
``"{'linearization_level': 0}"``); the fastest CPU time of each is kept. ``--unlimited``
drops the first try's work limit, so each replay runs to its proof. Prints per variant the
median, mean and p90 CPU ms, how many replays proved the optimum, and on how many the
objective value differs from the shipped parameters' where both proved it.
"""

from __future__ import annotations

import argparse
import ast
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from ortools.sat.python import cp_model

from bench.suggest_bench import judged_proposals
from solver.rearrangement import suggest


def record(ruleset_id: str, size: str, n: int, seed: int) -> list[tuple[str, str]]:
    """The first CP-SAT model and parameters of each suggestion, as text."""
    seen: list[tuple[str, str]] = []
    out: list[tuple[str, str]] = []
    solve = cp_model.CpSolver.solve

    def recording(self: cp_model.CpSolver, model: cp_model.CpModel, *a: Any, **k: Any) -> Any:
        seen.append((str(model.proto), str(self.parameters)))
        return solve(self, model, *a, **k)

    cp_model.CpSolver.solve = recording  # type: ignore[method-assign]
    try:
        for _, position, proposal in judged_proposals(ruleset_id, size, n, seed):
            seen.clear()
            suggest.suggest_move(position, proposal)
            if seen:
                out.append(seen[0])
    finally:
        cp_model.CpSolver.solve = solve  # type: ignore[method-assign]
    return out


def replay(
    recorded: Sequence[tuple[str, str]], variant: dict[str, Any], repeat: int, unlimited: bool
) -> tuple[list[float], list[int | None]]:
    """Per model the fastest CPU ms and the proved objective value (None: not proved)."""
    times: list[float] = []
    values: list[int | None] = []
    for text, parameters in recorded:
        model = cp_model.CpModel()
        model.proto.parse_text_format(text)
        best = float("inf")
        value: int | None = None
        for _ in range(repeat):
            solver = cp_model.CpSolver()
            solver.parameters.parse_text_format(parameters)
            if unlimited:
                solver.parameters.clear_max_deterministic_time()
            for key, setting in variant.items():
                if isinstance(setting, str):  # an enum, by its name
                    solver.parameters.merge_text_format(f"{key}: {setting}")
                else:
                    setattr(solver.parameters, key, setting)
            start = time.process_time_ns()
            status = solver.solve(model)
            best = min(best, (time.process_time_ns() - start) / 1e6)
            value = round(solver.objective_value) if status == cp_model.OPTIMAL else None
        times.append(best)
        values.append(value)
    return times, values


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", default="mid")
    parser.add_argument("--ruleset", default="mexe-mexe")
    parser.add_argument("--repeat", type=int, default=3, help="solves per model (fastest kept)")
    parser.add_argument("--unlimited", action="store_true", help="no work limit: to the proof")
    parser.add_argument("variants", nargs="*", help="dicts of CP-SAT parameters")
    args = parser.parse_args(argv)
    recorded = record(args.ruleset, args.size, args.n, args.seed)
    print(f"{len(recorded)} models recorded; CPU ms per solve, fastest of {args.repeat}")
    print(f"{'variant':56} {'median':>7} {'mean':>7} {'p90':>7}  proved  differs")
    shipped: list[int | None] = []
    for variant in [{}, *(ast.literal_eval(v) for v in args.variants)]:
        times, values = replay(recorded, variant, args.repeat, args.unlimited)
        if not variant:
            shipped = values
        differs = sum(
            a is not None and b is not None and a != b for a, b in zip(values, shipped, strict=True)
        )
        p90 = sorted(times)[max(0, round(0.9 * len(times)) - 1)]
        label = str(variant) if variant else "shipped parameters"
        proved = sum(v is not None for v in values)
        print(
            f"{label:56} {statistics.median(times):7.2f} {statistics.mean(times):7.2f} "
            f"{p90:7.2f}  {proved:6}  {differs:7}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
