"""One structured (JSON) log line per call: method, status code, milliseconds.

The line is written once the call has ended (``service.interceptors._log``), so a test waits
for it rather than reading it the moment the client has its answer.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import grpc
import pytest

from carrossel.v1 import fishing_pb2, rulesets_pb2


def rpc_lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == "carrossel.rpc"]


def lines_of(
    caplog: pytest.LogCaptureFixture, rpc: str, wait_s: float = 5.0
) -> list[dict[str, Any]]:
    """The log lines of the calls to ``rpc``, waiting for one to be written."""
    deadline = time.monotonic() + wait_s
    while True:
        lines = [x for x in rpc_lines(caplog) if x["method"].endswith(f"/{rpc}")]
        if lines or time.monotonic() > deadline:
            return lines
        time.sleep(0.01)


def test_a_successful_call_logs_ok(caplog: pytest.LogCaptureFixture, rulesets_stub: Any) -> None:
    caplog.set_level(logging.INFO, logger="carrossel.rpc")
    rulesets_stub.ListRulesets(rulesets_pb2.ListRulesetsRequest(), timeout=5)
    lines = lines_of(caplog, "ListRulesets")
    assert lines and lines[-1]["code"] == "OK"
    assert lines[-1]["method"] == "/carrossel.v1.RulesetService/ListRulesets"
    assert isinstance(lines[-1]["ms"], float | int)


def test_a_failed_call_logs_its_code(caplog: pytest.LogCaptureFixture, fishing_stub: Any) -> None:
    caplog.set_level(logging.INFO, logger="carrossel.rpc")
    with pytest.raises(grpc.RpcError):
        fishing_stub.ScoreDeal(fishing_pb2.ScoreDealRequest(), timeout=5)
    lines = lines_of(caplog, "ScoreDeal")
    assert lines and lines[-1]["code"] == "INVALID_ARGUMENT"  # no ruleset named


# Not a real method: the lines of calls that other tests made can still arrive meanwhile.
_FAKE_METHOD = "/carrossel.v1.Test/Deferred"


def _fake_lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    return [x for x in rpc_lines(caplog) if x["method"] == _FAKE_METHOD]


class _EndingContext:
    """Just what ``_log`` asks of a servicer context: the code so far, and add_callback."""

    def __init__(self, ended: bool) -> None:
        self.ended = ended
        self.callbacks: list[Any] = []

    def code(self) -> None:
        return None

    def add_callback(self, callback: Any) -> bool:
        if self.ended:
            return False
        self.callbacks.append(callback)
        return True


def test_the_line_waits_for_the_call_to_end(caplog: pytest.LogCaptureFixture) -> None:
    from service.interceptors import _log

    caplog.set_level(logging.INFO, logger="carrossel.rpc")
    context = _EndingContext(ended=False)
    _log(_FAKE_METHOD, context, time.perf_counter(), False)  # type: ignore[arg-type]
    assert _fake_lines(caplog) == []  # not while the answer is still on its way
    (write,) = context.callbacks
    write()
    (line,) = _fake_lines(caplog)
    assert line["code"] == "OK" and isinstance(line["ms"], float | int)


def test_a_call_already_ended_is_logged_at_once(caplog: pytest.LogCaptureFixture) -> None:
    from service.interceptors import _log

    caplog.set_level(logging.INFO, logger="carrossel.rpc")
    _log(_FAKE_METHOD, _EndingContext(ended=True), 0.0, True)  # type: ignore[arg-type]
    (line,) = _fake_lines(caplog)
    assert line["code"] == "UNKNOWN"
