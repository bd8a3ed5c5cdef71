"""Where a SolveMove call's wall time goes between client and server, stage by stage.

Run from the repository root::

    python -m bench.call_stages [--n 60] [--seed 15] [--sizes mid,large] [--rounds 2] \
        [--gap-ms 20]

It starts ``carrossel serve --workers 1`` in a child process whose SolveMove handler and
call dispatch are timed on the clock both processes share (``CLOCK_MONOTONIC``), then sends
each Rummikub position's SolveMove (``MOST_CARDS``, requests built before the clock starts)
on one kept channel, each after ``--gap-ms`` of client work (the solve bench's client
solves in process between calls, so the server sits idle about that long). Per size it
prints the medians of each stage:

- *reaching the server*: from the client's call to the server's interceptor choosing the
  call's lane (on grpcio's polling thread);
- *hand-off*: from there to the handler's start on a solve thread (grpcio hands the call
  to the lane's pool, which then reads the request's message);
- *handler*: ``RummyServicer.SolveMove`` (parse, solve, answer);
- *back*: from the handler's end to the client holding the answer;

and a bare ``Health/Check`` after the same client work, the transport's own floor. Wall
time on a shared machine: compare runs of one sitting only.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # ``python bench/call_stages.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

STAGES = ("reaching the server", "hand-off", "handler", "back", "whole")


def serve(port: int, times: str) -> None:
    """The server, its dispatch and SolveMove handler timed: one line per call in ``times``
    (dispatch, handler start, handler end, in ns)."""
    import service.rummy as rummy
    from service import capacity
    from service.cli import main as cli

    dispatched = [0]
    lane_for = capacity.Capacity.lane_for
    solve = rummy.RummyServicer.SolveMove
    log = open(times, "w")  # noqa: SIM115 - open while the server runs

    def timed_lane_for(self: capacity.Capacity, method: str, handler: object) -> object:
        if method.endswith("/SolveMove"):
            dispatched[0] = time.monotonic_ns()
        return lane_for(self, method, handler)

    def timed_solve(self: rummy.RummyServicer, request: object, context: object) -> object:
        start = time.monotonic_ns()
        response = solve(self, request, context)  # type: ignore[arg-type]
        log.write(f"{dispatched[0]} {start} {time.monotonic_ns()}\n")
        log.flush()
        return response

    capacity.Capacity.lane_for = timed_lane_for  # type: ignore[assignment,method-assign]
    rummy.RummyServicer.SolveMove = timed_solve  # type: ignore[assignment,method-assign]
    cli(["serve", "--port", str(port), "--workers", "1"])


def _client_work(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def _stages(
    stub: Any, requests: Sequence[Any], times: Path, rounds: int, gap_s: float
) -> dict[str, list[float]]:
    """Each stage's ms per call: the client's clock around the call, the server's in
    ``times`` (the last line, written by the call just answered)."""
    ms: dict[str, list[float]] = {stage: [] for stage in STAGES}
    for _ in range(rounds):
        for request in requests:
            _client_work(gap_s)
            sent = time.monotonic_ns()
            stub.SolveMove(request, timeout=60)
            back = time.monotonic_ns()
            dispatched, start, end = map(int, times.read_text().split("\n")[-2].split())
            spans = (dispatched - sent, start - dispatched, end - start, back - end, back - sent)
            for stage, ns in zip(STAGES, spans, strict=True):
                ms[stage].append(ns / 1e6)
    return ms


def _health_floor(channel: Any, gap_s: float, calls: int = 200) -> float:
    """The median ms of a bare Health/Check after the same client work."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    health = health_pb2_grpc.HealthStub(channel)
    check = health_pb2.HealthCheckRequest()
    floor = []
    for _ in range(calls):
        _client_work(gap_s)
        start = time.perf_counter()
        health.Check(check, timeout=10)
        floor.append((time.perf_counter() - start) * 1000)
    return statistics.median(floor)


def measure(sizes: Sequence[str], n: int, seed: int, rounds: int, gap_s: float) -> None:
    import grpc

    from bench.over_grpc import free_port, solve_move_request, wait_serving
    from bench.positions import bench_positions
    from carrossel.v1 import rummy_pb2_grpc
    from solver.rearrangement.search import Objective

    port = free_port()
    with tempfile.NamedTemporaryFile("r", suffix=".times") as times:
        server = subprocess.Popen(
            [sys.executable, "-m", "bench.call_stages", "--serve", str(port), times.name],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                wait_serving(channel, server)
                stub = rummy_pb2_grpc.RummyServiceStub(channel)
                work = f"{gap_s * 1000:.0f} ms of client work before each call"
                print(f"medians, ms ({rounds} rounds, {work})")
                print(f"{'size':6} {'n':>4} " + " ".join(f"{s:>19}" for s in STAGES))
                for size in sizes:
                    specs = bench_positions("rummikub", size, n, seed)
                    requests = [solve_move_request(s, Objective.MOST_CARDS, 10_000) for s in specs]
                    for request in requests[:3]:  # the server's first solves build its models
                        stub.SolveMove(request, timeout=60)
                    ms = _stages(stub, requests, Path(times.name), rounds, gap_s)
                    medians = " ".join(f"{statistics.median(ms[s]):>19.2f}" for s in STAGES)
                    print(f"{size:6} {len(ms['whole']):>4} {medians}")
                floor = _health_floor(channel, gap_s)
                print(f"Health/Check after the same client work: {floor:.2f} ms")
        finally:
            server.terminate()
            server.wait(timeout=30)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=60)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--sizes", default="mid,large")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--gap-ms", type=float, default=20.0)
    parser.add_argument("--serve", nargs=2, metavar=("PORT", "TIMES"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(int(args.serve[0]), args.serve[1])
        return 0
    measure(args.sizes.split(","), args.n, args.seed, args.rounds, args.gap_ms / 1000)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
