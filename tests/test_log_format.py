"""The server's log lines (``service.log_format``): the time made once per second reads as
``logging.Formatter``'s own, and a call's line is the record ``log.info`` would make."""

from __future__ import annotations

import json
import logging

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
