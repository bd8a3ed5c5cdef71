"""Time ValidateMove(suggest=true) as a client sees it (issue #53): through one kept channel
to a server this script starts (``bench.over_grpc``), on mid tables (``bench.positions``)
with illegal proposals made as players make them (``tests.reference.suggest_oracle``'s
mutations of the best move, or of the table as it was).

    .venv/bin/python -m bench.suggest_bench [--n 40] [--seed 1] [--size mid] [ruleset ...]

Every proposal of a ruleset is made first (each from a 2 s SolveMove in this process), then
the calls are timed back to back, the request built before the clock starts as issue #51
defines a call's time; ``--interleaved`` makes each proposal just before its call instead.
Prints per ruleset the call's p50 / p90 / max in ms, the same calls without ``suggest``, and
how many suggestions were found and proved nearest (``suggestion_optimal``).

``--server-cpu`` (Linux; a one-worker server this script starts): also the CPU the server
spent during each call, all its threads summed (``/proc/PID/task/*/schedstat``), p50 / p90
with and without ``suggest``. Unlike the wall time it hardly grows when other work shares
the cores; it includes the server's own threads (gRPC's pollers), whose share the calls
without ``suggest`` show.

``--target HOST:PORT@PID`` twice or more (e.g. main's server and a branch's, each
``carrossel serve --workers 1 --pin-calls``): every request goes to each server in turn,
the first server alternating request by request, so both see the same machine; each
server's line and, with ``@PID``, its CPU per call. ``--frozen FILE`` (``bench.suggest_ab
freeze``): those proposals instead of new ones, the same in every run::

    .venv/bin/python -m bench.suggest_bench --frozen /tmp/m1.json \
        --target 127.0.0.1:50061@PID_A --target 127.0.0.1:50062@PID_B
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from bench.over_grpc import free_port, position_proto, solve_move_stub, wait_serving
from bench.positions import PositionSpec, bench_positions
from carrossel.v1 import rummy_pb2, rummy_pb2_grpc
from service.rummy.convert import move_to_proto
from solver.rearrangement.search import solve_move, validate_move
from solver.rummy.position import Move, Position
from tests.reference.suggest_oracle import MUTATIONS

RULESETS = ("carrossel", "mexe-mexe", "rummikub")  # the rulesets bench.positions makes
TRIES = 20  # mutations tried per position for an illegal proposal


def illegal_proposal(spec: PositionSpec, rng: random.Random) -> Move | None:
    """One or two mutations of the best move (or of the table as it was) that the referee
    rejects; None if none of ``TRIES`` is illegal."""
    position = spec.position()
    best = solve_move(position, time_limit_ms=2000).moves
    for _ in range(TRIES):
        start = best[0].move if best and rng.random() < 0.7 else Move(position.table)
        table = [list(meld) for meld in start.table]
        for mutate in rng.sample(MUTATIONS, rng.choice((1, 1, 2))):
            mutate(table, rng, position)
        proposal = Move(tuple(tuple(meld) for meld in table if meld), start.to_hand)
        if not validate_move(position, proposal).legal:
            return proposal
    return None


def judged_proposals(
    ruleset_id: str, size: str, n: int, seed: int
) -> Iterator[tuple[PositionSpec, Position, Move]]:
    """The positions' illegal proposals that the referee can judge, with the same random
    draws as this bench's calls (a malformed one, which the service refuses, is left out)."""
    rng = random.Random(f"{seed}/{ruleset_id}/suggest")
    for spec in bench_positions(ruleset_id, size, n, seed):
        proposal = illegal_proposal(spec, rng)
        if proposal is None:
            continue
        position = spec.position()
        try:
            validate_move(position, proposal)
        except Exception:  # a malformed proposal: the service refuses it
            continue
        yield spec, position, proposal


def server_cpu_ms(pid: int) -> float:
    """The CPU time process ``pid`` and the processes it started have run, all threads
    summed, in ms (Linux; the server runs solves in processes of its own)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError):  # a process that ended meanwhile
            # The command's name is in parentheses and may hold spaces: the parent follows.
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
    family = {pid}
    grown = True
    while grown:
        more = {child for child, parent in parents.items() if parent in family} - family
        family |= more
        grown = bool(more)
    total = 0
    for member in family:
        for task in Path(f"/proc/{member}/task").glob("*/schedstat"):
            with contextlib.suppress(OSError, ValueError):  # a thread that ended meanwhile
                total += int(task.read_text().split()[0])
    return total / 1e6


SERVE = [sys.executable, "-m", "service.cli", "serve"]


@contextlib.contextmanager
def started_server() -> Iterator[tuple[rummy_pb2_grpc.RummyServiceStub, int]]:
    """A stub on a one-worker server started for the run, and the server's process id (with
    more workers, the calls' CPU would be in processes other than the one measured)."""
    port = free_port()
    server = subprocess.Popen(
        # One worker of `make run`'s server, its call path pinned as there.
        [*SERVE, "--port", str(port), "--workers", "1", "--pin-calls"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            wait_serving(channel, server)
            yield rummy_pb2_grpc.RummyServiceStub(channel), server.pid
    finally:
        server.terminate()
        server.wait(timeout=30)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _timed_call(
    stub: rummy_pb2_grpc.RummyServiceStub,
    request: rummy_pb2.ValidateMoveRequest,
    pid: int | None,
    timed: list[float],
    plain: list[float],
    cpu: list[float],
    plain_cpu: list[float],
) -> tuple[int, int]:
    """One proposal with ``suggest`` and then without, each timed; (found, proved nearest).
    A refused proposal counts nowhere: a mutation can write more copies of a card than the
    deck holds (a 2 both taken back and left on the table), a malformed request."""
    spent = server_cpu_ms(pid) if pid else 0.0
    started = time.perf_counter()
    try:
        answer = stub.ValidateMove(request, timeout=30)
    except grpc.RpcError as error:
        if error.code() is not grpc.StatusCode.INVALID_ARGUMENT:
            raise
        return 0, 0
    timed.append((time.perf_counter() - started) * 1000.0)
    if pid:
        cpu.append(server_cpu_ms(pid) - spent)
        spent = server_cpu_ms(pid)
    plain_request = rummy_pb2.ValidateMoveRequest()
    plain_request.CopyFrom(request)
    plain_request.suggest = False
    started = time.perf_counter()
    stub.ValidateMove(plain_request, timeout=30)
    plain.append((time.perf_counter() - started) * 1000.0)
    if pid:
        plain_cpu.append(server_cpu_ms(pid) - spent)
    return int(answer.HasField("nearest_legal")), int(answer.suggestion_optimal)


@dataclass
class Target:
    """A server the calls go to, and its figures (``_timed_call``'s lists)."""

    name: str
    stub: rummy_pb2_grpc.RummyServiceStub
    pid: int | None
    timed: list[float] = field(default_factory=list)
    plain: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    plain_cpu: list[float] = field(default_factory=list)
    found: int = 0
    proved: int = 0

    def call(self, request: rummy_pb2.ValidateMoveRequest) -> None:
        tally = _timed_call(
            self.stub, request, self.pid, self.timed, self.plain, self.cpu, self.plain_cpu
        )
        self.found, self.proved = self.found + tally[0], self.proved + tally[1]

    def report(self, label: str) -> None:
        if not self.timed:
            print(f"{label}: no illegal proposal made")
            return
        timed, plain = self.timed, self.plain
        print(
            f"{label}: {len(timed)} proposals, suggest p50 "
            f"{statistics.median(timed):.1f} ms, p90 {percentile(timed, 0.9):.1f}, max "
            f"{max(timed):.1f}; without suggest p50 {statistics.median(plain):.1f} ms; "
            f"{self.found} suggestions, {self.proved} proved nearest",
            flush=True,
        )
        if self.cpu:
            print(
                f"  server CPU per call: suggest p50 {statistics.median(self.cpu):.1f} ms, p90 "
                f"{percentile(self.cpu, 0.9):.1f}; without suggest p50 "
                f"{statistics.median(self.plain_cpu):.1f} ms",
                flush=True,
            )


def _targets(stack: contextlib.ExitStack, args: argparse.Namespace) -> list[Target]:
    """The servers of the run: one started here (``--server-cpu``), or each ``--target``
    (``HOST:PORT``, or ``HOST:PORT@PID`` for its CPU), or one started here."""
    if args.server_cpu:
        stub, pid = stack.enter_context(started_server())
        return [Target("", stub, pid)]
    if not args.target:
        return [Target("", stack.enter_context(solve_move_stub(None)), None)]
    targets = []
    for target in args.target:
        address, _, pid = target.partition("@")
        channel = stack.enter_context(grpc.insecure_channel(address))
        wait_serving(channel)
        stub = rummy_pb2_grpc.RummyServiceStub(channel)
        name = address if len(args.target) > 1 else ""
        targets.append(Target(name, stub, int(pid) if pid else None))
    return targets


def _frozen_requests(path: Path) -> list[rummy_pb2.ValidateMoveRequest]:
    """``bench.suggest_ab freeze``'s proposals as requests (those the service accepts)."""
    from bench.suggest_stages import frozen_requests

    return frozen_requests([path])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40, help="positions per ruleset")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", default="mid")
    parser.add_argument(
        "--target",
        action="append",
        help="HOST:PORT[@PID] of a running server; twice or more: the servers in turn, "
        "request by request (e.g. main's and a branch's, each `serve --workers 1 --pin-calls`)",
    )
    parser.add_argument("--server-cpu", action="store_true", help="the server's CPU per call")
    parser.add_argument(
        "--frozen",
        type=Path,
        action="append",
        help="the proposals of this `bench.suggest_ab freeze` file instead of making them "
        "(the same proposals in every run); the rulesets are then ignored",
    )
    parser.add_argument(
        "--interleaved",
        action="store_true",
        help="make each proposal (a 2 s SolveMove here) just before its call, as this bench "
        "did before 2026-12-05 (later): the client's search then shares the cores with the "
        "call and evicts the server's caches",
    )
    parser.add_argument("rulesets", nargs="*", default=list(RULESETS))
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        targets = _targets(stack, args)
        groups = (
            [(str(path), _frozen_requests(path)) for path in args.frozen]
            if args.frozen
            else [(f"{r} {args.size}", None) for r in args.rulesets]
        )
        for label, frozen in groups:
            targets = [Target(t.name, t.stub, t.pid) for t in targets]  # figures anew
            requests = frozen if frozen is not None else []
            if frozen is None:
                ruleset_id = label.split()[0]
                rng = random.Random(f"{args.seed}/{ruleset_id}/suggest")
                for spec in bench_positions(ruleset_id, args.size, args.n, args.seed):
                    proposal = illegal_proposal(spec, rng)
                    if proposal is None:
                        continue
                    request = rummy_pb2.ValidateMoveRequest(
                        position=position_proto(spec), move=move_to_proto(proposal), suggest=True
                    )
                    if args.interleaved:
                        for target in targets:
                            target.call(request)
                    else:
                        requests.append(request)  # every request made first, then timed
            for k, request in enumerate(requests):
                for j in range(len(targets)):  # with several servers, the first in turn
                    targets[(j + k) % len(targets)].call(request)
            for target in targets:
                target.report(f"{label} {target.name}".rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
