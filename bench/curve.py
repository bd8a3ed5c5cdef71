"""The cost curve: SolveMove's call latency against table size, with rummikub-solver's.

For carrossel and rummikub, tables of about 10, 20, … 100 cards and full tables (the whole
deck but a hand), each hand holding a whole meld that is not on the table so that it really
plays. Every position is timed as the client's wall time of a ``SolveMove`` call on one kept
channel to a server started for the run (the request built before the clock starts), and the
rummikub positions also by rummikub-solver in this process (warm, its set-up excluded). It
prints the median and p90 per point and draws them as ``bench/out/latency_vs_table.png``.

    .venv/bin/python -m bench.curve            # make bench
    .venv/bin/python -m bench.curve --n 10 --rulesets rummikub
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.over_grpc import solve_move_request, solve_move_stub, time_solve_move
from bench.positions import HAND_SIZES, PositionSpec, random_position
from bench.solve_bench import machine, percentile
from solver.rearrangement.search import Objective, default_objective

OUT = Path(__file__).resolve().parent / "out" / "latency_vs_table.png"
STEPS = tuple(range(10, 101, 10))
FULL = "full"
FULL_TABLES = {"rummikub": (100, 104), "carrossel": (100, 104)}  # the deck has 106


@dataclass
class Point:
    """The timings of one ruleset at one table size."""

    ruleset: str
    label: str  # "10" … "100", or "full"
    tables: list[int] = field(default_factory=list)
    call_ms: list[float] = field(default_factory=list)
    theirs_ms: list[float] = field(default_factory=list)

    @property
    def mean_table(self) -> float:
        return sum(self.tables) / len(self.tables) if self.tables else 0.0


def positions(ruleset: str, label: str, n: int, seed: int) -> list[PositionSpec]:
    """``n`` positions whose tables hold about ``label`` cards, hands that can play."""
    rng = random.Random(f"curve/{seed}/{ruleset}/{label}")
    if label == FULL:
        bounds = FULL_TABLES[ruleset]
    else:  # about ``label`` cards, below the full tables
        bounds = (max(3, int(label) - 5), min(int(label) + 4, FULL_TABLES[ruleset][0] - 1))
    out = []
    for i in range(n):
        jokers = rng.choices((0, 1, 2), weights=(5, 3, 2))[0]
        on_table = 0 if ruleset == "rummikub" else rng.randint(0, jokers)
        out.append(
            random_position(
                rng,
                ruleset,
                table_size=bounds,
                hand_size=HAND_SIZES[ruleset],
                table_jokers=on_table,
                hand_jokers=jokers - on_table,
                hand_melds=1,
                name=f"curve-{ruleset}-{label}-{i}",
            )
        )
    return out


def measure(
    rulesets: Sequence[str], n: int, seed: int, limit_ms: int, target: str | None
) -> list[Point]:
    """Time every point's positions through the call (and rummikub-solver's where it plays)."""
    theirs = "rummikub" in rulesets
    if theirs:
        from tests.reference.rummikub_adapter import JokerModel, their_answer

        warm = positions("rummikub", "30", 1, seed + 1_000_000)[0].position()
        their_answer(warm, JokerModel.PUBLISHED)
    points: list[Point] = []
    with solve_move_stub(target) as stub:
        for ruleset in rulesets:
            warm_spec = positions(ruleset, "10", 1, seed + 1_000_000)[0]
            time_solve_move(stub, solve_move_request(warm_spec, Objective.MOST_CARDS, limit_ms))
            gc.collect()
            gc.freeze()  # the warm-up's leftovers stay: keep full GC passes out of the timings
            for label in (*map(str, STEPS), FULL):
                point = Point(ruleset, label)
                points.append(point)
                for spec in positions(ruleset, label, n, seed):
                    position = spec.position()
                    objective = (
                        Objective.MOST_CARDS
                        if ruleset == "rummikub"
                        else default_objective(position.ruleset)
                    )
                    request = solve_move_request(spec, objective, limit_ms)
                    _, call_ms, _ = time_solve_move(stub, request)
                    point.tables.append(spec.table_size)
                    point.call_ms.append(call_ms)
                    if theirs and ruleset == "rummikub":
                        from tests.reference.rummikub_adapter import JokerModel, their_answer

                        start = time.perf_counter()
                        their_answer(position, JokerModel.PUBLISHED)
                        point.theirs_ms.append((time.perf_counter() - start) * 1000.0)
                print(_line(point), flush=True)
            gc.unfreeze()
    return points


def _line(point: Point) -> str:
    theirs = (
        f"{percentile(point.theirs_ms, 50):>9.1f} {percentile(point.theirs_ms, 90):>9.1f}"
        if point.theirs_ms
        else f"{'-':>9} {'-':>9}"
    )
    return (
        f"{point.ruleset:<10} {point.label:>5} {point.mean_table:>7.1f} "
        f"{percentile(point.call_ms, 50):>9.1f} {percentile(point.call_ms, 90):>9.1f} {theirs}"
    )


HEADER = (
    f"{'ruleset':<10} {'table':>5} {'cards':>7} {'p50 ms':>9} {'p90 ms':>9} "
    f"{'rs p50':>9} {'rs p90':>9}"
)


def draw(points: Sequence[Point], out: Path) -> None:
    """Median and p90 against the mean table size, one colour per program and ruleset."""
    import matplotlib

    matplotlib.use("Agg")  # no display: write the file only
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5), dpi=110)
    series: dict[str, list[Point]] = {}
    for point in points:
        series.setdefault(point.ruleset, []).append(point)
    for row in series.values():
        row.sort(key=lambda p: p.mean_table)
    colours = {"carrossel": "tab:blue", "rummikub": "tab:green"}
    for ruleset, row in series.items():
        x = [p.mean_table for p in row]
        colour = colours.get(ruleset, "tab:gray")
        ax.plot(
            x,
            [percentile(p.call_ms, 50) for p in row],
            "o-",
            color=colour,
            label=f"{ruleset}: median call",
        )
        ax.plot(
            x,
            [percentile(p.call_ms, 90) for p in row],
            "o--",
            color=colour,
            alpha=0.6,
            label=f"{ruleset}: p90 call",
        )
        theirs = [p for p in row if p.theirs_ms]
        if theirs:
            tx = [p.mean_table for p in theirs]
            ax.plot(
                tx,
                [percentile(p.theirs_ms, 50) for p in theirs],
                "s-",
                color="tab:red",
                label="rummikub-solver: median",
            )
            ax.plot(
                tx,
                [percentile(p.theirs_ms, 90) for p in theirs],
                "s--",
                color="tab:red",
                alpha=0.6,
                label="rummikub-solver: p90",
            )
    ax.set_xlabel("cards on the table before the play")
    ax.set_ylabel("ms (log scale)")
    ax.set_yscale("log")
    ax.set_title("SolveMove through a gRPC call vs table size (rummikub-solver in-process)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20, help="positions per point")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rulesets", default="carrossel,rummikub")
    parser.add_argument("--time-limit-ms", type=int, default=10_000)
    parser.add_argument("--target", help="host:port of a running server (else one is started)")
    parser.add_argument("--out", type=Path, default=OUT, help="the picture's path")
    args = parser.parse_args(argv)
    print(f"bench.curve: {machine()}, n {args.n} per point, seed {args.seed}", flush=True)
    print(HEADER, flush=True)
    points = measure(args.rulesets.split(","), args.n, args.seed, args.time_limit_ms, args.target)
    draw(points, args.out)
    print(f"drawn: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
