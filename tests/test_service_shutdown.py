"""`carrossel serve`: SIGTERM marks health NOT_SERVING, then the server stops gracefully."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from typing import cast

import grpc
import pytest
from grpc_health.v1 import health, health_pb2

from bench import over_grpc
from carrossel.v1 import rummy_pb2, rummy_pb2_grpc
from service.server import build_server


def wait_serving(port: int, process: subprocess.Popen[str]) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        over_grpc.wait_serving(channel, process)


@pytest.mark.parametrize("solve_first", [False, True])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_stops_the_server_gracefully(sig: signal.Signals, solve_first: bool) -> None:
    # After a solve too: CP-SAT used to take SIGINT over and leave it at its default action,
    # so Ctrl-C killed a server that had solved anything (an audit, 2026-12-02).
    port = over_grpc.free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_serving(port, process)
        if solve_first:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                table = [rummy_pb2.Meld(cards=["7H", "8S", "JK=9"])]
                request = rummy_pb2.SolveMoveRequest(
                    position=rummy_pb2.RummyPosition(
                        ruleset="carrossel",
                        players=2,
                        table=table,
                        hand=["6H", "KC"],
                        turn=rummy_pb2.Turn(cards_drawn=1),
                    )
                )
                answer = rummy_pb2_grpc.RummyServiceStub(channel).SolveMove(request, timeout=10)
                assert answer.moves
        process.send_signal(sig)
        _, stderr = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, stderr
    assert "NOT_SERVING" in stderr
    assert "carrossel stopped" in stderr
    assert '"method": "/grpc.health.v1.Health/Check"' in stderr  # one JSON line per call


# Health/Check reads nothing of its context.
NO_CONTEXT = cast(grpc.ServicerContext, None)


def test_stop_marks_health_not_serving_first() -> None:
    built = build_server("127.0.0.1:0")
    request = health_pb2.HealthCheckRequest(service="carrossel.v1.RummyService")
    status = health_pb2.HealthCheckResponse
    assert built.health.Check(request, NO_CONTEXT).status == status.SERVING
    stopped = built.stop(grace=1.0)
    assert built.health.Check(request, NO_CONTEXT).status == status.NOT_SERVING
    assert stopped.wait(5)
    assert health.SERVICE_NAME == "grpc.health.v1.Health"


def test_port_zero_returns_the_bound_port() -> None:
    from service.server import create_server

    server, port = create_server("127.0.0.1:0")
    try:
        assert port > 0
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            pass
    finally:
        server.stop(None)


def test_watchers_see_not_serving_at_shutdown() -> None:
    from grpc_health.v1 import health_pb2_grpc

    built = build_server("127.0.0.1:0")
    with grpc.insecure_channel(f"127.0.0.1:{built.port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        watch = stub.Watch(
            health_pb2.HealthCheckRequest(service="carrossel.v1.RummyService"), timeout=10
        )
        assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
        cancelled = [stub.Watch(health_pb2.HealthCheckRequest(), timeout=10) for _ in range(5)]
        for other in cancelled:
            next(other)
            other.cancel()  # cancels racing the status change must not deadlock the server
        stopped = built.stop(grace=2.0)
        assert next(watch).status == health_pb2.HealthCheckResponse.NOT_SERVING
        assert stopped.wait(10)


def test_a_busy_port_is_a_clear_error() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "service.cli", "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr
