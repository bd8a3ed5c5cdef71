"""``carrossel serve --workers N`` (issue 51) keeps SPEC §5's shared behaviour and issue
52's guarantees: every worker answers, a SIGTERM lets the calls in flight on every worker
finish, and the parent and its workers all exit 0 (docs/deploy.md)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc

from bench.over_grpc import free_port, wait_serving
from carrossel.v1 import rummy_pb2, rummy_pb2_grpc
from tests.ops_helpers import CARROSSEL_MOVE
from tests.test_ops_cancellation import HARD

REPO = Path(__file__).resolve().parent.parent


def _children(pid: int) -> list[int]:
    listed = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in listed.read_text().split()] if listed.exists() else []


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_sigterm_lets_every_workers_calls_finish_and_all_exit() -> None:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--workers", "2"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    target = f"127.0.0.1:{port}"
    # A connection each, as separate clients: the kernel spreads them over the workers.
    channels = [
        grpc.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in range(6)
    ]
    try:
        for channel in channels:
            wait_serving(channel, server)
        workers = _children(server.pid)
        assert len(workers) >= 2
        stubs = [rummy_pb2_grpc.RummyServiceStub(channel) for channel in channels]
        assert all(stub.ValidateMove(CARROSSEL_MOVE, timeout=10).legal for stub in stubs)
        # Searches of up to 1 s each, running or queued when SIGTERM arrives (three a worker
        # must finish within the server's 5 s grace): the position needs under 0.1 s of a
        # core for its first table, so a loaded 2-core machine still finds one within the
        # limit and every answer holds a move.
        slow = rummy_pb2.SolveMoveRequest(position=HARD.position, time_limit_ms=1000)
        in_flight = [stub.SolveMove.future(slow, timeout=30) for stub in stubs]
        time.sleep(0.3)
        os.kill(server.pid, signal.SIGTERM)
        answers = [future.result() for future in in_flight]
        assert all(answer.moves for answer in answers)
        assert server.wait(timeout=30) == 0
        # The workers were joined; multiprocessing's helper ends once it sees the parent go.
        deadline = time.monotonic() + 10
        while [pid for pid in workers if _alive(pid)]:
            assert time.monotonic() < deadline, "a worker process outlived the server"
            time.sleep(0.05)
    finally:
        for channel in channels:
            channel.close()
        if server.poll() is None:
            server.kill()
            server.wait()
    log = server.stderr.read().decode() if server.stderr else ""
    assert log.count("marking NOT_SERVING and stopping") == 2, log
    assert "carrossel stopped" in log


def test_workers_stop_when_their_parent_is_killed() -> None:
    """A parent killed without forwarding a stop (SIGKILL) leaves no worker serving on."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--workers", "2"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            wait_serving(channel, server)
        workers = _children(server.pid)
        assert len(workers) >= 2
    finally:
        server.kill()
        server.wait()
    deadline = time.monotonic() + 15
    while [pid for pid in workers if _alive(pid)]:
        assert time.monotonic() < deadline, "a worker kept serving after its parent was killed"
        time.sleep(0.05)
