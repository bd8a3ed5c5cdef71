"""Scan hard positions: big hands and near-empty tables, every ruleset and objective.

Run from the repository root::

    python -m bench.hard_scan --shape midhand --seeds 0-119

``bench.solve_bench`` times the issue's bench positions (hands of 5-20). This scan asks how
long the harder shapes take and whether they are proved within the time limit: hands of
15-25 on mid tables, hands of 25-40, and openings (near-empty tables, big hands, most
players not yet opened). For each ruleset and objective it prints p50/p90/p99/max wall
times and how many solves the time limit cut short, then every solve slower than
``--slow-ms`` or not proved, with its position on one line. Position ``k`` of a ruleset and
shape is the same on any machine (``random.Random(f"shapes/{shape}/{ruleset}/{k}")``);
answers are deterministic, times are not (docs/performance.md).

Exit status: 0, or 1 with ``--strict`` when a solve was not proved optimal in time.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

if __package__ in (None, ""):  # ``python bench/hard_scan.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.positions import PositionSpec, random_position
from bench.solve_bench import machine, percentile
from solver.core.rulesets import RULESETS as ALL_RULESETS
from solver.rearrangement.search import Objective, solve_move
from solver.rearrangement.turns import draws_before_play
from solver.rummy.position import Turn

RULESETS = ("rummikub", "carrossel", "vatikan", "mexe-mexe", "shangai", "manipulation")


@dataclass(frozen=True)
class Shape:
    """A kind of hard position: table and hand sizes in cards, and how many have opened."""

    table: tuple[int, int]
    hand: tuple[int, int]
    table_jokers: bool  # 0-2 jokers on the table (0-4 wild 2s in mexe-mexe)
    opened: float  # the share of positions whose player has opened (R7, rummikub's 30)
    about: str


SHAPES: dict[str, Shape] = {
    "midhand": Shape((20, 60), (15, 25), True, 1.0, "hands of 15-25 on tables of 20-60"),
    "bighand": Shape((30, 60), (25, 40), True, 1.0, "hands of 25-40 on tables of 30-60"),
    "opening": Shape((0, 12), (14, 30), False, 0.3, "tables of 0-12, hands of 14-30, 30% opened"),
}


def shape_position(shape_name: str, ruleset_id: str, k: int) -> PositionSpec:
    """Position ``k`` of a shape: 0-4 whole melds in the hand and 0-2 hand jokers (none in
    mexe-mexe, whose 2s are its wilds); one card drawn where the rules need it (R8)."""
    shape = SHAPES[shape_name]
    rng = random.Random(f"shapes/{shape_name}/{ruleset_id}/{k}")
    hand_melds, hand_jokers = rng.randint(0, 4), rng.randint(0, 2)
    table_jokers = rng.randint(0, 2) if shape.table_jokers else 0
    opened = shape.opened >= 1.0 or rng.random() < shape.opened
    drawn = draws_before_play(ALL_RULESETS[ruleset_id])
    turn = Turn(cards_drawn=drawn, has_opened=opened, has_melded_sequence=opened)
    table_twos = 0
    if ruleset_id == "mexe-mexe":
        hand_jokers = table_jokers = 0
        table_twos = rng.randint(0, 4) if shape.table_jokers else 0
    return random_position(
        rng,
        ruleset_id,
        table_size=shape.table,
        hand_size=shape.hand,
        table_jokers=table_jokers,
        table_twos=table_twos,
        hand_jokers=hand_jokers,
        hand_melds=hand_melds,
        turn=turn,
        name=f"{shape_name}-{ruleset_id}-{k}",
    )


@dataclass
class Row:
    """Wall times (ms) of one ruleset and objective."""

    ruleset: str
    objective: Objective
    ms: list[float] = field(default_factory=list)
    not_optimal: int = 0


def scan(
    shape: str,
    seeds: range,
    rulesets: Sequence[str],
    objectives: Sequence[Objective],
    limit_ms: int,
    slow_ms: float,
    out: TextIO,
) -> list[Row]:
    """Solve every position with every objective; print the slow ones as they come."""
    rows = {(rid, obj): Row(rid, obj) for rid in rulesets for obj in objectives}
    for rid in rulesets:
        for k in seeds:
            spec = shape_position(shape, rid, k)
            position = spec.position()
            for obj in objectives:
                start = time.perf_counter()
                result = solve_move(position, obj, 1, limit_ms)
                ms = (time.perf_counter() - start) * 1000.0
                row = rows[(rid, obj)]
                row.ms.append(ms)
                row.not_optimal += not result.optimal
                if ms > slow_ms or not result.optimal:
                    best = result.moves[0].verdict if result.moves else None
                    answer = (
                        f"{len(best.played)} cards laid, {best.hand_points_after} points left"
                        if best
                        else "no move"
                    )
                    proved = "proved" if result.optimal else "NOT PROVED"
                    print(
                        f"  {ms:8.0f} ms  {proved:<10} {obj.value:<13} {answer}; {spec.describe()}",
                        file=out,
                        flush=True,
                    )
    return list(rows.values())


def report(rows: Sequence[Row], out: TextIO) -> None:
    print("", file=out)
    print(
        f"{'ruleset':<13} {'objective':<13} {'n':>4} {'p50':>8} {'p90':>8} {'p99':>8} "
        f"{'max':>8} {'not optimal':>12}",
        file=out,
    )
    for row in rows:
        print(
            f"{row.ruleset:<13} {row.objective.value:<13} {len(row.ms):>4} "
            f"{percentile(row.ms, 50):>8.1f} {percentile(row.ms, 90):>8.1f} "
            f"{percentile(row.ms, 99):>8.1f} {max(row.ms):>8.1f} {row.not_optimal:>12}",
            file=out,
        )


def _seeds(text: str) -> range:
    first, _, last = text.partition("-")
    return range(int(first), int(last or first) + 1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.hard_scan",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--shape", choices=sorted(SHAPES), default="midhand")
    parser.add_argument("--seeds", default="0-59", help="position numbers, FIRST-LAST")
    parser.add_argument("--rulesets", default=",".join(RULESETS), help="comma-separated")
    parser.add_argument(
        "--objectives",
        default="most_cards,fewest_points,go_out",
        help="comma-separated, of " + ", ".join(o.value for o in Objective),
    )
    parser.add_argument("--time-limit-ms", type=int, default=10_000, help="per solve_move call")
    parser.add_argument("--slow-ms", type=float, default=1000.0, help="list solves slower")
    parser.add_argument(
        "--strict", action="store_true", help="exit 1 when a solve was not proved in time"
    )
    args = parser.parse_args(argv)
    rulesets = [r for r in args.rulesets.split(",") if r]
    if bad := [r for r in rulesets if r not in RULESETS]:
        parser.error(f"unknown ruleset: {', '.join(bad)}")
    try:
        objectives = [Objective(o) for o in args.objectives.split(",") if o]
        seeds = _seeds(args.seeds)
    except ValueError as error:
        parser.error(str(error))
    out = sys.stdout
    print(
        f"hard_scan: {args.shape} ({SHAPES[args.shape].about}), positions {args.seeds}, "
        f"time limit {args.time_limit_ms} ms, {machine()}",
        file=out,
    )
    print(f"solves over {args.slow_ms:.0f} ms or not proved optimal:", file=out)
    rows = scan(args.shape, seeds, rulesets, objectives, args.time_limit_ms, args.slow_ms, out)
    report(rows, out)
    return 1 if args.strict and any(row.not_optimal for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
