"""Issue 52: idle streams cannot starve calls or probes, and a full server refuses at once.

Before, the server had one pool of 16 threads: 16 idle reflection streams held all of them
and a ValidateMove, even Health/Check, timed out until the streams closed. Now calls,
health probes and streams each have their own lane (``service.capacity``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from carrossel.v1 import rulesets_pb2, rulesets_pb2_grpc, rummy_pb2, rummy_pb2_grpc
from service.rulesets import RulesetServicer
from service.server import ServeOptions
from tests.ops_helpers import CARROSSEL_MOVE, Gate, error_of, own_server, retry_delay_s


def _open_idle_streams(channel: grpc.Channel, count: int) -> tuple[list[Any], Gate]:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    gate = Gate()
    streams = [stub.ServerReflectionInfo(iter(gate)) for _ in range(count)]
    return streams, gate


def test_sixteen_idle_reflection_streams_starve_neither_calls_nor_health() -> None:
    with own_server() as server, grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        streams, gate = _open_idle_streams(channel, 16)
        try:
            # The streams beyond the lane's bound are refused at once, not left waiting.
            excess = 16 - ServeOptions().max_streams
            deadline = time.monotonic() + 10
            while sum(s.done() for s in streams) < excess and time.monotonic() < deadline:
                time.sleep(0.01)
            ended = [s for s in streams if s.done()]
            assert len(ended) == excess
            assert {s.code() for s in ended} == {grpc.StatusCode.RESOURCE_EXHAUSTED}
            rummy = rummy_pb2_grpc.RummyServiceStub(channel)
            assert rummy.ValidateMove(CARROSSEL_MOVE, timeout=5).legal
            health = health_pb2_grpc.HealthStub(channel)
            reply = health.Check(health_pb2.HealthCheckRequest(), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        finally:
            gate.opened.set()
            for stream in streams:
                stream.cancel()


def test_a_reflection_stream_still_answers_when_streams_are_free() -> None:
    with own_server() as server, grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        (reply,) = list(stub.ServerReflectionInfo(iter([request]), timeout=5))
        names = {s.name for s in reply.list_services_response.service}
        assert "carrossel.v1.RummyService" in names


@pytest.fixture
def blocking_list_rulesets(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """ListRulesets waits for the event before answering (patched before the server is
    built, which reads the servicer's methods)."""
    release = threading.Event()
    real = RulesetServicer.ListRulesets

    def slow(self: RulesetServicer, request: Any, context: grpc.ServicerContext) -> Any:
        release.wait(10)
        return real(self, request, context)

    monkeypatch.setattr(RulesetServicer, "ListRulesets", slow)
    yield release
    release.set()


def test_a_full_calls_lane_refuses_at_once_with_a_retry_hint(
    blocking_list_rulesets: threading.Event,
) -> None:
    """One worker and one admitted call: the next call is RESOURCE_EXHAUSTED with a
    google.rpc.RetryInfo, while the probes' lane still answers health."""
    options = ServeOptions(max_workers=1, max_pending=1)
    with (
        own_server(options) as server,
        grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel,
    ):
        rulesets = rulesets_pb2_grpc.RulesetServiceStub(channel)
        held = rulesets.ListRulesets.future(rulesets_pb2.ListRulesetsRequest(), timeout=10)
        while server.capacity.calls.pool.load < 1:
            time.sleep(0.01)
        rummy = rummy_pb2_grpc.RummyServiceStub(channel)
        error = error_of(rummy.ValidateMove, CARROSSEL_MOVE, timeout=10)
        assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert (retry_delay_s(error) or 0) > 0
        health = health_pb2_grpc.HealthStub(channel)
        assert health.Check(health_pb2.HealthCheckRequest(), timeout=5).status == (
            health_pb2.HealthCheckResponse.SERVING
        )
        blocking_list_rulesets.set()
        assert held.result().rulesets
        assert rummy.ValidateMove(CARROSSEL_MOVE, timeout=5).legal


def test_a_call_whose_deadline_passed_in_the_queue_is_not_run(
    blocking_list_rulesets: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One worker, busy: a call queued behind it with a short deadline is never started
    (the request's bounds, checked first thing in a started call, are never looked at)."""
    from service import bounds

    started: list[object] = []
    real = bounds.check

    def counting(request: Any) -> None:
        if isinstance(request, rummy_pb2.ValidateMoveRequest):
            started.append(request)
        real(request)

    monkeypatch.setattr(bounds, "check", counting)
    options = ServeOptions(max_workers=1, max_pending=4)
    with (
        own_server(options) as server,
        grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel,
    ):
        rulesets = rulesets_pb2_grpc.RulesetServiceStub(channel)
        held = rulesets.ListRulesets.future(rulesets_pb2.ListRulesetsRequest(), timeout=10)
        while server.capacity.calls.pool.load < 1:
            time.sleep(0.01)
        stub = rummy_pb2_grpc.RummyServiceStub(channel)
        error = error_of(stub.ValidateMove, CARROSSEL_MOVE, timeout=0.3)
        assert error.code() is grpc.StatusCode.DEADLINE_EXCEEDED
        blocking_list_rulesets.set()
        held.result()
        while server.capacity.calls.pool.load:
            time.sleep(0.01)
        assert started == []
