"""One structured (JSON) log line per call: method, status code, milliseconds."""

from __future__ import annotations

import json
import logging
from typing import Any

import grpc
import pytest

from carrossel.v1 import fishing_pb2, rulesets_pb2


def rpc_lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == "carrossel.rpc"]


def test_a_successful_call_logs_ok(caplog: pytest.LogCaptureFixture, rulesets_stub: Any) -> None:
    caplog.set_level(logging.INFO, logger="carrossel.rpc")
    rulesets_stub.ListRulesets(rulesets_pb2.ListRulesetsRequest(), timeout=5)
    lines = [x for x in rpc_lines(caplog) if x["method"].endswith("/ListRulesets")]
    assert lines and lines[-1]["code"] == "OK"
    assert lines[-1]["method"] == "/carrossel.v1.RulesetService/ListRulesets"
    assert isinstance(lines[-1]["ms"], float | int)


def test_a_failed_call_logs_its_code(caplog: pytest.LogCaptureFixture, fishing_stub: Any) -> None:
    caplog.set_level(logging.INFO, logger="carrossel.rpc")
    with pytest.raises(grpc.RpcError):
        fishing_stub.ScoreDeal(fishing_pb2.ScoreDealRequest(), timeout=5)
    lines = [x for x in rpc_lines(caplog) if x["method"].endswith("/ScoreDeal")]
    assert lines and lines[-1]["code"] == "UNIMPLEMENTED"
