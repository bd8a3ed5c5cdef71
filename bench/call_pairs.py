"""Two versions of the server compared through the call, in pairs: which one answers faster.

Run from the repository root::

    mkdir /tmp/main && git archive main | tar -x -C /tmp/main
    cp carrossel/v1/*.py /tmp/main/carrossel/v1/     # its generated gRPC code
    python -m bench.call_pairs /tmp/main [--n 60] [--seed 15] [--sizes mid,large] [--rounds 2] \
        [--keep-warm 0] [--base-python PATH]

It starts ``carrossel serve --workers 1`` twice, one from BASE (another checkout, with its
generated gRPC code) and one from this checkout, both on this interpreter unless
``--base-python`` names another for BASE (e.g. another build of CPython), and sends each
Rummikub position's SolveMove (``MOST_CARDS``, requests built before the clock starts) to
both, in a random order per position, each call after 20 ms of client work (as in the solve
bench). Per size it prints both medians and the median of the paired differences (this
checkout minus BASE) with its 95% interval (order statistics): on a machine whose speed
drifts between runs, a difference between calls made side by side holds where two runs'
medians do not. It also counts the pairs whose answers placed the same number of tiles.

Both servers run with ``--keep-warm 0`` unless told otherwise: with a warm thread each, the
two take turns rehearsing on the spare core during the client's work, and on two cores the
calls of both took 7-8 ms instead of 4-6 (bench/HISTORY.md). Compare the warm thread itself
with ``solve_bench --target`` against one server at a time.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # ``python bench/call_pairs.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

GAP_S = 0.02


@contextmanager
def _server(checkout: Path, python: str, keep_warm: float) -> Iterator[Any]:
    """A SolveMove stub on ``carrossel serve`` run from ``checkout`` by ``python``."""
    import grpc

    from bench.over_grpc import free_port, wait_serving
    from carrossel.v1 import rummy_pb2_grpc

    port = free_port()
    command = [python, "-m", "service.cli", "serve", "--port", str(port), "--workers", "1"]
    command += ["--keep-warm", str(keep_warm)]
    server = subprocess.Popen(
        command,
        cwd=checkout,
        env={**os.environ, "PYTHONPATH": str(checkout)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            wait_serving(channel, server)
            yield rummy_pb2_grpc.RummyServiceStub(channel)
    finally:
        server.terminate()
        server.wait(timeout=30)


def _timed_call(stub: Any, request: Any) -> tuple[float, int]:
    """After the client's work: the call's ms and the tiles its best move places."""
    end = time.perf_counter() + GAP_S
    while time.perf_counter() < end:
        pass
    start = time.perf_counter()
    response = stub.SolveMove(request, timeout=60)
    ms = (time.perf_counter() - start) * 1000
    return ms, len(response.moves[0].played) if response.moves else 0


def median_interval(values: Sequence[float]) -> tuple[float, float]:
    """An approximate 95% interval of the median, by order statistics."""
    ordered = sorted(values)
    n = len(ordered)
    half = 1.96 * math.sqrt(n) / 2
    low = max(0, int(n / 2 - half))
    high = min(n - 1, math.ceil(n / 2 + half))
    return ordered[low], ordered[high]


def compare(
    base: Path,
    sizes: Sequence[str],
    n: int,
    seed: int,
    rounds: int,
    base_python: str = sys.executable,
    keep_warm: float = 0.0,
) -> None:
    from bench.over_grpc import solve_move_request
    from bench.positions import bench_positions
    from solver.rearrangement.search import Objective

    here = Path(__file__).resolve().parent.parent
    order = random.Random(seed)
    with ExitStack() as stack:
        stubs = {
            "base": stack.enter_context(_server(base, base_python, keep_warm)),
            "this": stack.enter_context(_server(here, sys.executable, keep_warm)),
        }
        for size in sizes:
            specs = bench_positions("rummikub", size, n, seed)
            requests = [solve_move_request(s, Objective.MOST_CARDS, 10_000) for s in specs]
            for stub in stubs.values():  # each server's first solves build its models
                for request in requests[:3]:
                    stub.SolveMove(request, timeout=60)
            ms: dict[str, list[float]] = {name: [] for name in stubs}
            differences: list[float] = []
            same = 0
            for _ in range(rounds):
                for request in requests:
                    names = list(stubs)
                    order.shuffle(names)
                    answers = {name: _timed_call(stubs[name], request) for name in names}
                    for name, (call_ms, _) in answers.items():
                        ms[name].append(call_ms)
                    differences.append(answers["this"][0] - answers["base"][0])
                    same += answers["this"][1] == answers["base"][1]
            low, high = median_interval(differences)
            print(
                f"{size}: base p50 {statistics.median(ms['base']):.2f} ms, this "
                f"{statistics.median(ms['this']):.2f} ms; this - base, paired: median "
                f"{statistics.median(differences):+.2f} ms (95% {low:+.2f} to {high:+.2f}), "
                f"{len(differences)} pairs, {same} placing the same tiles"
            )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("base", type=Path, help="the other checkout (with its gRPC code)")
    parser.add_argument("--n", type=int, default=60)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--sizes", default="mid,large")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--keep-warm", type=float, default=0.0, help="both servers' --keep-warm")
    parser.add_argument("--base-python", default=sys.executable, help="BASE's interpreter")
    args = parser.parse_args(argv)
    compare(
        args.base.resolve(),
        args.sizes.split(","),
        args.n,
        args.seed,
        args.rounds,
        args.base_python,
        args.keep_warm,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
