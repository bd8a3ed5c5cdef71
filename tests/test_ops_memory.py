"""Issue 52: what holds memory is bounded: open health watches, and glibc's free pages
after large requests (``service.memory``; the RSS over bursts is bench/soak.py's figure)."""

from __future__ import annotations

import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from service import health, memory
from tests.ops_helpers import own_server


def test_a_large_request_asks_for_one_trim_and_a_small_one_for_none() -> None:
    calls: list[int] = []

    def trim(pad: int) -> int:
        calls.append(pad)
        return 1

    trimmer = memory.Trimmer(trim=trim)
    trimmer.note(memory.LARGE_REQUEST_BYTES - 1)
    time.sleep(memory.SETTLE_S * 2)
    assert calls == []
    for _ in range(5):  # a burst: one trim once it is over
        trimmer.note(memory.LARGE_REQUEST_BYTES)
    deadline = time.monotonic() + 10
    while not calls and time.monotonic() < deadline:
        time.sleep(0.01)
    assert calls == [0]


def test_without_glibc_nothing_is_trimmed() -> None:
    trimmer = memory.Trimmer(trim=None)
    trimmer._trim = None  # as on musl or macOS, where malloc_trim is not found
    trimmer.note(10 * memory.LARGE_REQUEST_BYTES)
    assert trimmer._thread is None


def test_health_watches_beyond_the_bound_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(health, "MAX_WATCHERS", 3)
    with own_server() as server, grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        watches = [stub.Watch(health_pb2.HealthCheckRequest()) for _ in range(4)]
        try:
            seen = []
            for watch in watches:  # they reach the server in any order: one is refused
                try:
                    seen.append(
                        health_pb2.HealthCheckResponse.ServingStatus.Name(next(watch).status)
                    )
                except grpc.RpcError as error:
                    seen.append(error.code().name)
            assert sorted(seen) == ["RESOURCE_EXHAUSTED", "SERVING", "SERVING", "SERVING"]
            assert stub.Check(health_pb2.HealthCheckRequest(), timeout=5).status == (
                health_pb2.HealthCheckResponse.SERVING
            )
        finally:
            for watch in watches:
                watch.cancel()
