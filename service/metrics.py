"""Prometheus metrics (``prometheus-client``), served on ``--metrics-port`` when given.

The metrics live in the process's default registry, so every server of one process (tests
start several) adds to the same series. Names follow Prometheus' conventions: a ``_total``
counter per outcome, seconds for durations, a ``carrossel_`` prefix.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from typing import Any
from wsgiref.simple_server import WSGIServer

from prometheus_client import Counter, Gauge, Histogram, start_http_server

RPCS = Counter(
    "carrossel_rpcs",
    "Calls handled, by full method name and final gRPC status code.",
    ["method", "code"],
)
RPC_SECONDS = Histogram(
    "carrossel_rpc_duration_seconds",
    "Time from a call's start in its handler to its end, by method.",
    ["method"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
SOLVER_OUTCOMES = Counter(
    "carrossel_solver_outcomes",
    "CP-SAT searches answered, by method and outcome: optimal (proved), feasible (found but "
    "not proved) or time_limited (the clock stopped the search).",
    ["method", "outcome"],
)
SOLVES_IN_FLIGHT = Gauge("carrossel_solves_in_flight", "Solves running now (each holds a slot).")
SOLVES_QUEUED = Gauge(
    "carrossel_solves_queued", "Solves waiting for a slot now (--solve-queue bounds them)."
)
SOLVES_REJECTED = Counter(
    "carrossel_solves_rejected",
    "Solves refused with RESOURCE_EXHAUSTED: every slot busy and the queue full, or no slot "
    "could come free before the call's deadline.",
)
CALLS_REFUSED = Counter(
    "carrossel_calls_refused",
    "Calls refused before their handler ran, by reason: overload (calls or streams lane "
    "full), unauthenticated, or unparsable (the request bytes were not the message).",
    ["reason"],
)
REHEARSALS = Counter(
    "carrossel_rehearsals",
    "Solves of the last SolveMove repeated by the warm thread between calls (--keep-warm), "
    "answers thrown away, by outcome: done, cancelled (a call came) or failed.",
    ["outcome"],
)
REHEARSAL_SECONDS = Counter(
    "carrossel_rehearsal_seconds",
    "Wall seconds the warm thread spent repeating solves between calls (--keep-warm): the "
    "busy core an operator sees on a server that idles between a client's calls.",
)


@functools.cache
def _series(metric: Any, **labels: str) -> Any:
    """``metric``'s child of ``labels``, looked up once: ``labels`` costs more than the count
    itself, and a call counts two series and a search one more."""
    return metric.labels(**labels)


def observe_call(method: str, code: str, seconds: float) -> None:
    """Count one finished call and its duration."""
    _series(RPCS, method=method, code=code).inc()
    _series(RPC_SECONDS, method=method).observe(seconds)


def observe_answer(method: str, response: Any) -> None:
    """Count a search's outcome from an answer that reports one (SolveMove, CheckKnock)."""
    if not hasattr(response, "optimal"):
        return
    stats = getattr(response, "stats", None)
    time_limited = bool(getattr(stats, "time_limited", getattr(response, "time_limited", False)))
    if time_limited:
        outcome = "time_limited"
    elif response.optimal:
        outcome = "optimal"
    else:
        outcome = "feasible"
    _series(SOLVER_OUTCOMES, method=method, outcome=outcome).inc()


@dataclass
class MetricsServer:
    """The HTTP server of ``/metrics`` and its thread; ``stop`` ends both."""

    server: WSGIServer
    thread: threading.Thread

    @property
    def port(self) -> int:
        return int(self.server.server_port)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def serve_metrics(port: int, host: str = "127.0.0.1") -> MetricsServer:
    """Serve ``/metrics`` on ``host:port`` (port 0 picks a free one) in a daemon thread."""
    server, thread = start_http_server(port, addr=host)
    return MetricsServer(server, thread)


def observe_rehearsal(outcome: str, seconds: float) -> None:
    """Count one of the warm thread's repeated solves (``service.keep_warm``)."""
    _series(REHEARSALS, outcome=outcome).inc()
    REHEARSAL_SECONDS.inc(seconds)
