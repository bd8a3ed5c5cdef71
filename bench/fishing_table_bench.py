"""CPU time of fishing calls on big tables (tables of 10 to 40+ items of low values).

    .venv/bin/python -m bench.fishing_table_bench [--sizes 10 20 30] [--rounds 3]

Each position lays the ``n`` lowest-valued cards of the 56-card deck on the table (aces
first, then twos, ...) and holds JK20 JK15 JK11 9S: every hand card can capture or build, so
the sums to enumerate are many. SolvePlay (max_plays 1) and ValidatePlay of a trail (F7's
check: is there any capture or build?) go through the servicer in process and are timed in
CPU time (``time.process_time``), the median of ``--rounds`` calls, each with the
listings' caches emptied; SolvePlay's ``optimal`` is shown (on 25+ items its CP-SAT capture
search may use its whole 10 s limit, wall time, without proving the best capture). Speed is
reported, never asserted.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from carrossel.v1 import fishing_pb2
from service.cli.rpc import LocalContext
from service.fishing import FishingServicer
from solver.fishing import plays
from tests.fishing_table import big_table_proto


def position(size: int) -> fishing_pb2.FishingPosition:
    return big_table_proto(size)


def solve_request(size: int) -> fishing_pb2.SolvePlayRequest:
    return fishing_pb2.SolvePlayRequest(position=position(size), max_plays=1)


def trail_request(size: int) -> fishing_pb2.ValidatePlayRequest:
    play = fishing_pb2.FishingPlay(card="9S")
    play.trail.SetInParent()
    return fishing_pb2.ValidatePlayRequest(position=position(size), play=play)


def cpu_ms(call: Callable[[], Any], rounds: int) -> tuple[float, Any]:
    """The median CPU time of ``rounds`` calls, and the last answer."""
    times = []
    answer = None
    for _ in range(rounds):
        # Every round enumerates afresh: the listings' caches would hide the work.
        plays.capture_sets.cache_clear()
        plays.build_sets.cache_clear()
        start = time.process_time()
        answer = call()
        times.append((time.process_time() - start) * 1000.0)
    return statistics.median(times), answer


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 30])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    servicer: Any = FishingServicer()
    context: Any = LocalContext()
    for size in args.sizes:
        solve, trail = solve_request(size), trail_request(size)
        solve_ms, solved = cpu_ms(partial(servicer.SolvePlay, solve, context), args.rounds)
        trail_ms, _ = cpu_ms(partial(servicer.ValidatePlay, trail, context), args.rounds)
        print(
            f"{size:3d} items  SolvePlay {solve_ms:9.1f} ms CPU (optimal {solved.optimal})  "
            f"ValidatePlay(trail) {trail_ms:9.1f} ms CPU",
            flush=True,
        )


if __name__ == "__main__":
    main()
