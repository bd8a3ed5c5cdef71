"""The work around each call made cheaper (issue #51) keeps what it did: the server's log
lines (``service.log_format``: the time made once per second reads as
``logging.Formatter``'s own, and a call's line is the record ``log.info`` would make), and
the interceptor's plan per method (``service.interceptors``)."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from service.log_format import LINE_FORMAT, LineFormatter


def _record(created: float, message: str = "a line") -> logging.LogRecord:
    record = logging.LogRecord("carrossel.rpc", logging.INFO, __file__, 1, message, None, None)
    record.created = created
    record.msecs = int((created - int(created)) * 1000) + 0.0
    return record


def test_the_kept_second_reads_as_the_default_formatters_time() -> None:
    ours, standard = LineFormatter(), logging.Formatter(LINE_FORMAT)
    # Within one second, across seconds, back to an earlier second (threads' records
    # arrive out of order), and on a minute's edge.
    times = [1_764_900_000.001, 1_764_900_000.999, 1_764_900_001.5, 1_764_900_000.25]
    times += [1_764_900_059.999, 1_764_900_060.0, 1_764_900_060.0005]
    for created in times:
        record = _record(created)
        assert ours.format(record) == standard.format(record)


def test_a_date_format_given_is_used_as_is() -> None:
    record = _record(1_764_900_000.5)
    assert LineFormatter().formatTime(record, "%Y") == logging.Formatter().formatTime(record, "%Y")


def test_a_calls_line_is_the_json_log_info_would_write(caplog: pytest.LogCaptureFixture) -> None:
    from service.interceptors import _LINE, _info

    caplog.set_level(logging.INFO, logger="carrossel.rpc")
    _info(_LINE, ("/carrossel.v1.Test/Line", "OK", 0.25, "abc"))
    (record,) = [r for r in caplog.records if r.name == "carrossel.rpc"]
    assert record.levelname == "INFO"
    assert json.loads(record.getMessage()) == {
        "event": "rpc",
        "method": "/carrossel.v1.Test/Line",
        "code": "OK",
        "ms": 0.25,
        "request_id": "abc",
    }


def test_no_record_is_made_below_the_loggers_level(caplog: pytest.LogCaptureFixture) -> None:
    from service.interceptors import _LINE, _info

    caplog.set_level(logging.WARNING, logger="carrossel.rpc")
    _info(_LINE, ("/carrossel.v1.Test/Quiet", "OK", 0.25, "abc"))
    assert not [r for r in caplog.records if r.name == "carrossel.rpc"]


def test_the_interceptor_plans_a_method_once_and_again_for_a_new_handler() -> None:
    """A method's lane and handler factory are decided on its first call; a handler object
    that changes (a server re-registering its services) gets a plan of its own."""
    import grpc

    from service.capacity import Capacity
    from service.interceptors import CallInterceptor

    def behavior(request: object, context: object) -> object:
        return request

    class Details:
        method = "/carrossel.v1.RummyService/ValidateMove"
        invocation_metadata = (("x-request-id", "plan-1"),)

    capacity = Capacity(workers=1)
    try:
        interceptor = CallInterceptor(capacity)
        first: grpc.RpcMethodHandler[Any, Any] = grpc.unary_unary_rpc_method_handler(behavior)
        second: grpc.RpcMethodHandler[Any, Any] = grpc.unary_unary_rpc_method_handler(behavior)
        for _ in range(2):
            wrapped = interceptor.intercept_service(lambda _: first, Details())  # type: ignore[arg-type]
            assert wrapped is not None and wrapped.unary_unary is not behavior
            assert wrapped.unary_unary.experimental_thread_pool is capacity.calls.pool  # type: ignore[union-attr]
        plan = interceptor._plans[Details.method]
        assert plan.handler is first
        interceptor.intercept_service(lambda _: second, Details())  # type: ignore[arg-type]
        assert interceptor._plans[Details.method].handler is second
    finally:
        capacity.shutdown()
