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

- *reaching the server*: from the client's call to the server's interceptor taking the
  call (on grpcio's polling thread; it then chooses the call's lane);
- *hand-off*: from there to the handler's start on a solve thread (grpcio hands the call
  to the lane's pool, which then reads the request's message);
- *handler*: ``RummyServicer.SolveMove`` (parse, solve, answer);
- *back*: from the handler's end to the client holding the answer;

and a bare ``Health/Check`` after the same client work, the transport's own floor, and a
CP-SAT solve of one variable in the client's process after the same work and back to back,
the solver's own floor (its fixed cost, cold and warm). Wall time on a shared machine:
compare runs of one sitting only.
"""

from __future__ import annotations

import argparse
import os
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


TIMED = ("SolveMove", "ValidateMove")
RECORD = "{:>20} {:>20} {:>20}\n"
RECORD_BYTES = len(RECORD.format(0, 0, 0))


def serve(port: int, times: str, serve_flags: Sequence[str] = ()) -> None:
    """The server, its dispatch and its SolveMove and ValidateMove handlers timed: the last
    call's dispatch, handler start and handler end (ns) written over one fixed-size record
    of ``times`` (one ``pwrite``: a few µs, not a buffered line and its flush)."""
    import service.rummy as rummy
    from service import interceptors
    from service.cli import main as cli

    dispatched = [0]
    intercept = interceptors.CallInterceptor.intercept_service
    record = os.open(times, os.O_WRONLY)

    def timed_intercept(self: interceptors.CallInterceptor, continuation: Any, details: Any) -> Any:
        if details.method.rsplit("/", 1)[-1] in TIMED:
            dispatched[0] = time.monotonic_ns()
        return intercept(self, continuation, details)

    def timed(handle: Any) -> Any:
        def call(self: rummy.RummyServicer, request: object, context: object) -> object:
            start = time.monotonic_ns()
            response = handle(self, request, context)
            end = time.monotonic_ns()
            os.pwrite(record, RECORD.format(dispatched[0], start, end).encode(), 0)
            return response

        return call

    interceptors.CallInterceptor.intercept_service = timed_intercept  # type: ignore[method-assign,assignment]
    for method in TIMED:
        setattr(rummy.RummyServicer, method, timed(getattr(rummy.RummyServicer, method)))
    # One worker of `make run`'s server, pinned as there; a later --serve-flag wins.
    cli(["serve", "--port", str(port), "--workers", "1", "--pin-calls", *serve_flags])


def _last_call(times: int) -> tuple[int, int, int]:
    dispatched, start, end = map(int, os.pread(times, RECORD_BYTES, 0).split())
    return dispatched, start, end


def _client_work(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def _stages(
    call: Any, requests: Sequence[Any], times: int, rounds: int, gap_s: float
) -> dict[str, list[float]]:
    """Each stage's ms per call: the client's clock around the call, the server's in
    ``times`` (the record written by the call just answered)."""
    ms: dict[str, list[float]] = {stage: [] for stage in STAGES}
    for _ in range(rounds):
        for request in requests:
            _client_work(gap_s)
            sent = time.monotonic_ns()
            call(request, timeout=60)
            back = time.monotonic_ns()
            dispatched, start, end = _last_call(times)
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


def _solver_floor(gap_s: float, solves: int = 200) -> tuple[float, float]:
    """The median ms of a CP-SAT solve of one boolean variable in this process, after the
    same client work and back to back: CP-SAT's own fixed cost (its code and set-up, no
    model to speak of) on cold caches and on warm ones."""
    from ortools.sat.python import cp_model

    from solver.rearrangement.budget import Budget

    model = cp_model.CpModel()
    model.maximize(model.new_bool_var("x"))
    medians = []
    for gap in (gap_s, 0.0):
        times = []
        for _ in range(solves):
            _client_work(gap)
            solver = Budget(1_000).solver(lean=True)  # the parameters of a deck-model solve
            start = time.perf_counter()
            solver.solve(model)
            times.append((time.perf_counter() - start) * 1000)
        medians.append(statistics.median(times))
    return medians[0], medians[1]


def measure(
    sizes: Sequence[str],
    n: int,
    seed: int,
    rounds: int,
    gap_s: float,
    validate: str | None = None,
    serve_flags: Sequence[str] = (),
) -> None:
    import grpc

    from bench.over_grpc import free_port, wait_serving
    from carrossel.v1 import rummy_pb2_grpc

    port = free_port()
    with tempfile.NamedTemporaryFile("r", suffix=".times") as times:
        Path(times.name).write_text(RECORD.format(0, 0, 0))
        command = [sys.executable, "-m", "bench.call_stages", "--serve", str(port), times.name]
        server = subprocess.Popen(
            [*command, *(f"--serve-flag={flag}" for flag in serve_flags)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        record = os.open(times.name, os.O_RDONLY)
        try:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                wait_serving(channel, server)
                stub = rummy_pb2_grpc.RummyServiceStub(channel)
                work = f"{gap_s * 1000:.0f} ms of client work before each call"
                print(f"medians, ms ({rounds} rounds, {work})")
                print(f"{'calls':12} {'n':>4} " + " ".join(f"{s:>19}" for s in STAGES))
                if validate:
                    _validate_rows(stub, validate.split(","), n, seed, record, rounds, gap_s)
                else:
                    _solve_rows(stub, sizes, n, seed, record, rounds, gap_s)
                floor = _health_floor(channel, gap_s)
                print(f"Health/Check after the same client work: {floor:.2f} ms")
                cold, warm = _solver_floor(gap_s)
                print(
                    f"a one-variable CP-SAT solve in this process after the same client "
                    f"work: {cold:.2f} ms (back to back {warm:.2f} ms)"
                )
        finally:
            os.close(record)
            server.terminate()
            server.wait(timeout=30)


def _row(name: str, ms: dict[str, list[float]]) -> str:
    medians = " ".join(f"{statistics.median(ms[s]):>19.3f}" for s in STAGES)
    return f"{name:12} {len(ms['whole']):>4} {medians}"


def _solve_rows(
    stub: Any, sizes: Sequence[str], n: int, seed: int, record: int, rounds: int, gap_s: float
) -> None:
    """A row per size: Rummikub SolveMove (``MOST_CARDS``) on the bench's positions."""
    from bench.over_grpc import solve_move_request
    from bench.positions import bench_positions
    from solver.rearrangement.search import Objective

    for size in sizes:
        specs = bench_positions("rummikub", size, n, seed)
        requests = [solve_move_request(s, Objective.MOST_CARDS, 10_000) for s in specs]
        for request in requests[:3]:  # the server's first solves build its models
            stub.SolveMove(request, timeout=60)
        print(_row(size, _stages(stub.SolveMove, requests, record, rounds, gap_s)))


def _validate_rows(
    stub: Any, rulesets: Sequence[str], n: int, seed: int, record: int, rounds: int, gap_s: float
) -> None:
    """A row per ruleset and one for all: ValidateMove on ``bench.validate_bench``'s mid
    proposals (each position's best move and an illegal one), shuffled anew each round."""
    import random

    from bench.validate_bench import proposals

    calls = proposals(rulesets, n, seed)
    for proposal in calls:  # warm: the server's first parse of each ruleset and meld
        stub.ValidateMove(proposal.request, timeout=60)
    rng = random.Random(seed)
    by_ruleset: dict[str, dict[str, list[float]]] = {}
    for _ in range(rounds):
        rng.shuffle(calls)  # a request never follows itself: its caches are not warmer
        for proposal in calls:
            ms = _stages(stub.ValidateMove, [proposal.request], record, 1, gap_s)
            into = by_ruleset.setdefault(proposal.ruleset, {stage: [] for stage in STAGES})
            for stage, values in ms.items():
                into[stage].extend(values)
    everything = {stage: [v for ms in by_ruleset.values() for v in ms[stage]] for stage in STAGES}
    for ruleset, ms in by_ruleset.items():
        print(_row(ruleset, ms))
    print(_row("all", everything))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=60)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--sizes", default="mid,large")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--gap-ms", type=float, default=20.0)
    parser.add_argument(
        "--validate",
        metavar="RULESETS",
        help="time ValidateMove on these rulesets' mid proposals (bench.validate_bench's) "
        "instead of SolveMove, e.g. carrossel,rummikub,vatikan,mexe-mexe",
    )
    parser.add_argument(
        "--serve-flag",
        action="append",
        default=[],
        help="a flag for the server's `carrossel serve`, e.g. --serve-flag=--no-pin-calls",
    )
    parser.add_argument("--serve", nargs=2, metavar=("PORT", "TIMES"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(int(args.serve[0]), args.serve[1], args.serve_flag)
        return 0
    measure(
        args.sizes.split(","),
        args.n,
        args.seed,
        args.rounds,
        args.gap_ms / 1000,
        args.validate,
        args.serve_flag,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
