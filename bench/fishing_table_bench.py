"""CPU time of fishing calls on big tables (tables of 10 to 40+ items of low values).

    .venv/bin/python -m bench.fishing_table_bench [--sizes 10 20 30] [--rounds 3]

Each position lays the ``n`` lowest-valued cards of the 56-card deck on the table (aces
first, then twos, ...) and holds JK20 JK15 JK11 9S: every hand card can capture or build, so
the sums to enumerate are many. SolvePlay (max_plays 1) and ValidatePlay of a trail (F7's
check: is there any capture or build?) go through the servicer in process and are timed in
CPU time (``time.process_time``), the median of ``--rounds`` calls, each with the
listings' caches emptied. Speed is reported, never
asserted.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

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


def cpu_ms(call: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        # Every round enumerates afresh: the listings' caches would hide the work.
        plays.capture_sets.cache_clear()
        plays.build_sets.cache_clear()
        start = time.process_time()
        call()
        times.append((time.process_time() - start) * 1000.0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 30])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    servicer, context = FishingServicer(), LocalContext()
    for size in args.sizes:
        solve = solve_request(size)
        trail = trail_request(size)
        solve_ms = cpu_ms(lambda r=solve: servicer.SolvePlay(r, context), args.rounds)  # type: ignore[arg-type]
        trail_ms = cpu_ms(lambda r=trail: servicer.ValidatePlay(r, context), args.rounds)  # type: ignore[arg-type]
        print(
            f"{size:3d} items  SolvePlay {solve_ms:9.1f} ms CPU  "
            f"ValidatePlay(trail) {trail_ms:9.1f} ms CPU",
            flush=True,
        )


if __name__ == "__main__":
    main()
