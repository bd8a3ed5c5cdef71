"""Time SolveMove as a client sees it: through a channel to a server in another process.

``solve_bench --grpc`` starts ``carrossel serve`` on a free port (or uses ``--target``), waits
until its health check answers SERVING, and for each position calls
``carrossel.v1.RummyService/SolveMove`` right after our in-process solve of it. The time is
the client's wall time of the call: the request's serialisation, the loopback transport,
the server's parse of the position, the solve and the response on the way back.
"""

from __future__ import annotations

import dataclasses
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench.positions import PositionSpec
from carrossel.v1 import rummy_pb2, rummy_pb2_grpc
from service.convert import enum_to_proto
from solver.rearrangement.search import Objective
from solver.rummy.position import Turn


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now (for a server started right after)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_serving(
    channel: grpc.Channel, server: subprocess.Popen[Any] | None = None, timeout: float = 30.0
) -> None:
    """Return once the health check answers SERVING; raise if ``server`` exits first or
    ``timeout`` seconds pass."""
    health = health_pb2_grpc.HealthStub(channel)
    deadline = time.monotonic() + timeout
    while True:
        try:
            answer = health.Check(health_pb2.HealthCheckRequest(), timeout=1.0)
            if answer.status == health_pb2.HealthCheckResponse.SERVING:
                return
        except grpc.RpcError:
            pass
        if server is not None and server.poll() is not None:
            raise RuntimeError(f"carrossel serve exited with {server.returncode} before serving")
        if time.monotonic() > deadline:
            raise TimeoutError(f"no SERVING answer from the server within {timeout:.0f} s")
        time.sleep(0.1)


@contextmanager
def solve_move_stub(target: str | None) -> Iterator[rummy_pb2_grpc.RummyServiceStub]:
    """A RummyService stub on ``target`` (``host:port``), or on a server started for the run."""
    server: subprocess.Popen[bytes] | None = None
    if target is None:
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve", "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        target = f"127.0.0.1:{port}"
    try:
        with grpc.insecure_channel(target) as channel:
            wait_serving(channel, server)
            yield rummy_pb2_grpc.RummyServiceStub(channel)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)


class CodedPosition(Protocol):
    """A position as the card codes a client sends (bench's and the tests' generators)."""

    @property
    def ruleset(self) -> str: ...
    @property
    def players(self) -> int: ...
    @property
    def table(self) -> tuple[tuple[str, ...], ...]: ...
    @property
    def hand(self) -> tuple[str, ...]: ...
    @property
    def turn(self) -> Turn: ...


def position_proto(spec: CodedPosition) -> rummy_pb2.RummyPosition:
    """The position as a request carries it."""
    return rummy_pb2.RummyPosition(
        ruleset=spec.ruleset,
        players=spec.players,
        table=[rummy_pb2.Meld(cards=list(meld)) for meld in spec.table],
        hand=list(spec.hand),
        turn=rummy_pb2.Turn(**dataclasses.asdict(spec.turn)),  # the same field names
    )


def solve_move_request(
    spec: PositionSpec, objective: Objective, limit_ms: int
) -> rummy_pb2.SolveMoveRequest:
    """The SolveMove request of one bench position."""
    return rummy_pb2.SolveMoveRequest(
        position=position_proto(spec),
        objective=enum_to_proto(rummy_pb2.Objective, "OBJECTIVE", objective),
        max_moves=1,
        time_limit_ms=limit_ms,
    )


def time_solve_move(
    stub: rummy_pb2_grpc.RummyServiceStub, request: rummy_pb2.SolveMoveRequest
) -> tuple[int, float, float]:
    """Cards the best move plays, the call's wall time in ms, and the solve's own wall time
    in the server as the answer reports it (``SolveStats.wall_time_ms``)."""
    start = time.perf_counter()
    response = stub.SolveMove(request, timeout=120.0)
    elapsed = (time.perf_counter() - start) * 1000.0
    played = len(response.moves[0].played) if response.moves else 0
    return played, elapsed, response.stats.wall_time_ms
