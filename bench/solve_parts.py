"""Where a warm in-process ``solve_move`` spends its CPU time, part by part.

Run from the repository root::

    python -m bench.solve_parts [--n 60] [--seed 15] [--rulesets rummikub] \
        [--sizes mid,large] [--rounds 3] [--profile 12] [--set MODULE:NAME=VALUE]

Each position is solved ``--rounds`` times (the first round warms the caches and is not
counted); each part is timed in CPU time (``time.process_time_ns``), so the figures hold on
a machine shared with other work. The parts: the model (built in Python), CP-SAT (the solves,
with their count), the move's rebuild, its re-check by the referee (``validate_move``), the
melds changed, and the rest of the call. ``--profile N`` also prints cProfile's top N entries
by own time over one more round. It also prints a digest of the answers (every move's table,
as written), so that two versions of the code can be checked for the same answers.
``--set`` (repeatable) runs with a module constant changed, e.g.
``--set solver.rearrangement.search:RUN_FLOW=False`` (the pool's run templates).
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import pstats
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # ``python bench/solve_parts.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ortools.sat.python import cp_model

from bench.carrossel_tail import parse_patch, patched
from bench.positions import bench_positions
from solver.rearrangement import search
from solver.rearrangement.search import Objective, default_objective, solve_move
from solver.rummy.position import Position

PARTS = ("model", "cp-sat", "rebuild", "re-check", "changed", "rest")


class Clock:
    """CPU nanoseconds per part, for the position being solved."""

    def __init__(self) -> None:
        self.ns: dict[str, int] = defaultdict(int)
        self.solves = 0

    @contextmanager
    def part(self, name: str) -> Iterator[None]:
        start = time.process_time_ns()
        try:
            yield
        finally:
            self.ns[name] += time.process_time_ns() - start


def _timed(clock: Clock, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with clock.part(name):
            return fn(*args, **kwargs)

    return wrapper


@contextmanager
def instrumented(clock: Clock) -> Iterator[None]:
    """Wrap the parts of ``solve_move`` in ``search``'s namespace (and CP-SAT's solve)."""
    saved = {
        name: getattr(search, name)
        for name in ("TurnModel", "rebuild_move", "validate_move", "changed_indices")
    }
    solve = cp_model.CpSolver.solve

    def counted_solve(self: cp_model.CpSolver, *args: Any, **kwargs: Any) -> Any:
        clock.solves += 1
        with clock.part("cp-sat"):
            return solve(self, *args, **kwargs)

    for name, part in (
        ("TurnModel", "model"),
        ("rebuild_move", "rebuild"),
        ("validate_move", "re-check"),
        ("changed_indices", "changed"),
    ):
        setattr(search, name, _timed(clock, part, saved[name]))
    cp_model.CpSolver.solve = counted_solve  # type: ignore[method-assign]
    try:
        yield
    finally:
        for name, fn in saved.items():
            setattr(search, name, fn)
        cp_model.CpSolver.solve = solve  # type: ignore[method-assign]


def _objective(position: Position) -> Objective:
    if position.ruleset.id == "rummikub":
        return Objective.MOST_CARDS  # the question rummikub-solver answers
    return default_objective(position.ruleset)


def _answer(result: search.SolveResult) -> str:
    return ";".join(
        " | ".join(" ".join(tc.code for tc in meld) for meld in solved.move.table)
        + f" / {solved.cards_played} {solved.melds_changed}"
        for solved in result.moves
    )


def run(
    positions: Sequence[tuple[str, Position]], rounds: int, profile: int
) -> tuple[dict[str, list[float]], list[int], str]:
    """Per part, the mean CPU ms per position of each counted round; solves per position;
    a digest of the answers."""
    per_round: dict[str, list[float]] = defaultdict(list)
    totals: list[int] = []
    solves: list[int] = []
    digest = hashlib.sha256()
    for r in range(rounds):
        sums: dict[str, int] = defaultdict(int)
        for _, position in positions:
            clock = Clock()
            with instrumented(clock):
                start = time.process_time_ns()
                result = solve_move(position, _objective(position))
                whole = time.process_time_ns() - start
            if r == 0:
                digest.update(_answer(result).encode())
                continue
            clock.ns["rest"] = whole - sum(clock.ns.values())
            for name in PARTS:
                sums[name] += clock.ns[name]
            sums["whole"] += whole
            if r == 1:
                totals.append(whole)
                solves.append(clock.solves)
        if r:
            for name, ns in sums.items():
                per_round[name].append(ns / len(positions) / 1e6)
    if profile:
        profiler = cProfile.Profile()
        profiler.enable()
        for _, position in positions:
            solve_move(position, _objective(position))
        profiler.disable()
        stats = pstats.Stats(profiler)
        stats.sort_stats("tottime").print_stats(profile)
    print(
        f"whole call, round 1: median {statistics.median(totals) / 1e6:.2f} ms CPU, "
        f"solves per call {statistics.mean(solves):.2f}"
    )
    return per_round, solves, digest.hexdigest()[:16]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=60)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--rulesets", default="rummikub")
    parser.add_argument("--sizes", default="mid,large")
    parser.add_argument("--rounds", type=int, default=3, help="counted rounds (after one warm)")
    parser.add_argument("--profile", type=int, default=0, help="cProfile's top N entries")
    parser.add_argument(
        "--set", action="append", default=[], help="MODULE:NAME=VALUE, a constant for this run"
    )
    args = parser.parse_args(argv)
    with patched([parse_patch(p) for p in args.set]):
        return _report(args)


def _report(args: argparse.Namespace) -> int:
    positions = [
        (spec.name, spec.position())
        for rid in args.rulesets.split(",")
        for size in args.sizes.split(",")
        for spec in bench_positions(rid, size, args.n, args.seed)
    ]
    per_round, _, digest = run(positions, args.rounds + 1, args.profile)
    print(f"{len(positions)} positions, answers digest {digest}")
    print("part (CPU ms per position, mean; min .. max over rounds)")
    for name in (*PARTS, "whole"):
        values = per_round[name]
        low, high = min(values), max(values)
        print(f"  {name:9} {statistics.mean(values):6.3f}  ({low:.3f} .. {high:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
