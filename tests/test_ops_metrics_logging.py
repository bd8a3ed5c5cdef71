"""Issue 52: Prometheus metrics on --metrics-port, and one JSON log line per call with its
request id; bytes that are not a message are INTERNAL and logged as one line."""

from __future__ import annotations

import json
import logging
import re
import time
import urllib.request
from typing import Any

import grpc
import pytest

from carrossel.v1 import rulesets_pb2, rulesets_pb2_grpc, rummy_pb2, rummy_pb2_grpc
from service import limits
from service.server import ServeOptions
from tests.ops_helpers import CARROSSEL_MOVE, error_of, own_server


def _scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as reply:
        text: str = reply.read().decode()
        return text


def _value(text: str, name: str, **labels: str) -> float:
    """A sample's value (0 when the series does not exist yet)."""
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line.split("}")[0]))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_metrics_count_calls_outcomes_and_refusals(monkeypatch: pytest.MonkeyPatch) -> None:
    with (
        own_server(ServeOptions(metrics_port=0)) as server,
        grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel,
    ):
        assert server.metrics is not None
        port = server.metrics.port
        listing = "/carrossel.v1.RulesetService/ListRulesets"
        solve = "/carrossel.v1.RummyService/SolveMove"
        before = _scrape(port)
        rulesets_pb2_grpc.RulesetServiceStub(channel).ListRulesets(
            rulesets_pb2.ListRulesetsRequest(), timeout=10
        )
        rummy = rummy_pb2_grpc.RummyServiceStub(channel)
        rummy.SolveMove(rummy_pb2.SolveMoveRequest(position=CARROSSEL_MOVE.position), timeout=30)
        busy = limits.SolveSlots(1, queue=0)  # no queue: refused at once
        monkeypatch.setattr(limits, "_slots", busy)
        assert busy.try_acquire()
        request = rummy_pb2.SolveMoveRequest(position=CARROSSEL_MOVE.position)
        assert error_of(rummy.SolveMove, request, timeout=10).code() is (
            grpc.StatusCode.RESOURCE_EXHAUSTED
        )
        busy.release()
        time.sleep(0.2)  # the lines and counts of calls are written as they end
        after = _scrape(port)

        def grew(name: str, **labels: str) -> float:
            return _value(after, name, **labels) - _value(before, name, **labels)

        assert grew("carrossel_rpcs_total", method=listing, code="OK") == 1
        assert grew("carrossel_rpcs_total", method=solve, code="OK") == 1
        assert grew("carrossel_rpcs_total", method=solve, code="RESOURCE_EXHAUSTED") == 1
        assert grew("carrossel_rpc_duration_seconds_count", method=listing) == 1
        assert grew("carrossel_solver_outcomes_total", method=solve, outcome="optimal") == 1
        assert grew("carrossel_solves_rejected_total") == 1
        assert "carrossel_solves_in_flight 0.0" in after


def _lines(caplog: pytest.LogCaptureFixture, method: str) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 5
    while True:
        found = [
            json.loads(r.getMessage())
            for r in caplog.records
            if r.name == "carrossel.rpc" and r.getMessage().startswith("{")
        ]
        found = [x for x in found if x["method"].endswith(method)]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.01)


@pytest.mark.parametrize(
    ("sent", "kept"),
    [("game-42.turn-7", True), ("has spaces", False), ("x" * 500, False), ("", False)],
)
def test_a_call_is_logged_with_its_request_id(
    rulesets_stub: Any, caplog: pytest.LogCaptureFixture, sent: str, kept: bool
) -> None:
    caplog.set_level(logging.INFO, logger="carrossel.rpc")
    metadata = (("x-request-id", sent),) if sent else ()
    rulesets_stub.ListRulesets(rulesets_pb2.ListRulesetsRequest(), timeout=10, metadata=metadata)
    (line,) = _lines(caplog, "/ListRulesets")[-1:]
    if kept:
        assert line["request_id"] == sent
    else:
        assert re.fullmatch(r"[0-9a-f]{32}", line["request_id"])
    assert line["code"] == "OK"


def test_bytes_that_are_not_a_message_are_internal_and_one_line(
    channel: grpc.Channel, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    raw = channel.unary_unary(
        "/carrossel.v1.RummyService/ValidateMove",
        request_serializer=lambda data: data,
        response_deserializer=lambda data: data,
    )
    error = error_of(raw, b"\xff\xff\xff\xff not a protobuf", timeout=10)
    assert error.code() is grpc.StatusCode.INTERNAL
    (line,) = _lines(caplog, "/ValidateMove")
    assert line["code"] == "INTERNAL" and "not a" in line["error"]
    assert not [r for r in caplog.records if r.exc_info]
    # The server is still there.
    stub = rummy_pb2_grpc.RummyServiceStub(channel)
    assert stub.ValidateMove(CARROSSEL_MOVE, timeout=10).legal
