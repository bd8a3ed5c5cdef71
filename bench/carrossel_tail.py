"""The large carrossel tail: CPU time of SolveMove per position, and A/B runs of the search.

Run from the repository root, on one core::

    taskset -c 0 python -m bench.carrossel_tail --seeds 7,12,13 --sizes fit,hard --n 100
    taskset -c 0 python -m bench.carrossel_tail --seeds 7 --sizes mid \
        --ab solver.rearrangement.tries:TIE_BREAK_DTIME=0.02

Each position's ``solve_move`` (default objective, one move, 10 s) is timed in CPU
(``time.process_time()``), so runs on a busy machine still compare. Per size it prints the
mean, p50/p90/p99/max, the positions above ``--slow-ms`` (the issue's 150 ms), how many
answers are proved, the melds changed in all and how many tie-breaks are proved; then the
same by the number of jokers on the table (the tail's positions mostly hold two, which the
model gives explicit slots, R5); then every slow position on one line (``carrossel hint``
takes it).

``--ab MODULE:NAME=VALUE`` (repeatable) times each position twice, interleaved (A then B on
even positions, B then A on odd ones): A as shipped, B with those module constants set
(a Python literal). ``--ruleset`` times another ruleset's positions the same way: sizes of
``bench.positions`` where it has them, or a shape of ``bench.hard_scan`` (``--sizes midhand``:
seed s is that shape's positions s*n to s*n+n-1). It then reports both, the positions whose
primary value differs between two proved answers (must be none), and on how many B changes
fewer or more melds.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # ``python bench/carrossel_tail.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.hard_scan import SHAPES, shape_position
from bench.positions import PositionSpec, bench_positions
from bench.solve_bench import percentile
from solver.rearrangement.search import solve_move


@dataclass(frozen=True)
class Timed:
    """One solve: CPU ms and what it answered."""

    ms: float
    optimal: bool
    value: float
    changed: int
    tie_break_proved: bool


def time_solve(spec: PositionSpec) -> Timed:
    position = spec.position()
    start = time.process_time()
    result = solve_move(position)
    ms = (time.process_time() - start) * 1000.0
    changed = result.moves[0].melds_changed if result.moves else 0
    return Timed(
        ms, result.optimal, result.stats.objective_value, changed, result.stats.tie_break_proved
    )


def summary(label: str, runs: Sequence[Timed], slow_ms: float) -> str:
    ms = [t.ms for t in runs]
    return (
        f"{label:<16} n={len(ms):4d} mean {sum(ms) / len(ms):6.1f}  p50 {percentile(ms, 50):6.1f}"
        f"  p90 {percentile(ms, 90):6.1f}  p99 {percentile(ms, 99):7.1f}  max {max(ms):7.1f}"
        f"  >{slow_ms:g}: {sum(m > slow_ms for m in ms):3d}"
        f"  proved {sum(t.optimal for t in runs)}  melds changed {sum(t.changed for t in runs)}"
        f"  tie-break proved {sum(t.tie_break_proved for t in runs)}"
    )


def table_jokers(spec: PositionSpec) -> int:
    return sum(code.startswith("JK") for meld in spec.table for code in meld)


Patch = tuple[object, str, object]  # module, constant, value


def positions(ruleset: str, size: str, n: int, seed: int) -> list[PositionSpec]:
    """``n`` positions of one ruleset: ``bench.positions``'s sizes, or a ``bench.hard_scan``
    shape (its positions ``seed * n`` on)."""
    if size in SHAPES:
        return [shape_position(size, ruleset, seed * n + k) for k in range(n)]
    return bench_positions(ruleset, size, n, seed)


def parse_patch(text: str) -> Patch:
    """``module:NAME=literal`` into the module, the constant and its value."""
    target, _, literal = text.partition("=")
    module_name, _, name = target.partition(":")
    module = importlib.import_module(module_name)
    if not name or not hasattr(module, name):
        raise SystemExit(f"--ab {text}: {module_name} has no constant {name!r}")
    return module, name, ast.literal_eval(literal)


@contextmanager
def patched(patches: Sequence[Patch]) -> Iterator[None]:
    saved = [(module, name, getattr(module, name)) for module, name, _ in patches]
    for module, name, value in patches:
        setattr(module, name, value)
    try:
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="7", help="comma-separated")
    parser.add_argument("--sizes", default="fit,hard", help="comma-separated (bench.positions)")
    parser.add_argument("--n", type=int, default=100, help="positions per seed and size")
    parser.add_argument("--slow-ms", type=float, default=150.0)
    parser.add_argument(
        "--ruleset", default="carrossel", help="another ruleset's bench positions (bench.positions)"
    )
    parser.add_argument("--ab", action="append", default=[], help="MODULE:NAME=VALUE for B")
    args = parser.parse_args(argv)
    patches = [parse_patch(p) for p in args.ab]
    for size in args.sizes.split(","):
        specs = [
            spec
            for seed in args.seeds.split(",")
            for spec in positions(args.ruleset, size, args.n, int(seed))
        ]
        runs_a: list[Timed] = []
        runs_b: list[Timed] = []
        for k, spec in enumerate(specs):
            b_first = bool(patches) and k % 2 == 1
            if b_first:
                with patched(patches):
                    runs_b.append(time_solve(spec))
            runs_a.append(time_solve(spec))
            if patches and not b_first:
                with patched(patches):
                    runs_b.append(time_solve(spec))
        print(summary(f"{size}{' A' if patches else ''}", runs_a, args.slow_ms))
        if patches:
            print(summary(f"{size} B", runs_b, args.slow_ms))
            pairs = list(zip(runs_a, runs_b, strict=True))
            differ = sum(a.value != b.value for a, b in pairs if a.optimal and b.optimal)
            fewer = sum(b.changed < a.changed for a, b in pairs)
            more = sum(b.changed > a.changed for a, b in pairs)
            print(f"  primary value differs: {differ}; B changes fewer melds: {fewer}, more {more}")
        for jokers in sorted({table_jokers(s) for s in specs}):
            picked = [t for s, t in zip(specs, runs_a, strict=True) if table_jokers(s) == jokers]
            print("  " + summary(f"{jokers} table jokers", picked, args.slow_ms))
        for spec, timed in zip(specs, runs_a, strict=True):
            if timed.ms > args.slow_ms:
                print(f"  {timed.ms:7.1f} ms  {spec.describe()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
