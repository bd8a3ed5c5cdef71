"""The gRPC server: the three carrossel services, health, reflection, bounds and shutdown.

``create_server(address) -> (server, port)`` builds and starts a server (port 0 binds a free
port, returned), so tests run a real server in-process; ``build_server`` takes the
``ServeOptions`` of a deployment too (TLS, tokens, metrics, capacity: docs/deploy.md).
``serve(port)`` is ``carrossel serve``: on SIGTERM or SIGINT it marks health NOT_SERVING,
drains for a moment, then stops gracefully.
"""

from __future__ import annotations

import gc
import logging
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

from carrossel.v1 import (
    fishing_pb2,
    fishing_pb2_grpc,
    rulesets_pb2,
    rulesets_pb2_grpc,
    rummy_pb2,
    rummy_pb2_grpc,
)
from service import affinity, capacity, keep_warm, limits, memory, metrics
from service.fishing import FishingServicer
from service.health import HealthServicer
from service.interceptors import CallInterceptor
from service.log_format import LineFormatter
from service.rulesets import RulesetServicer
from service.rummy import RummyServicer
from service.security import ConfigError, TlsFiles, TokenAuth, server_credentials
from solver.core.rulesets import RULESETS
from solver.rearrangement.warm import warm_up

log = logging.getLogger("carrossel.server")

DEFAULT_WORKERS = capacity.DEFAULT_WORKERS
"""Worker threads for carrossel calls; health probes and reflection streams have their own."""

GRACE_SECONDS = 5.0
"""How long in-flight calls may finish after a stop is requested."""

DRAIN_SECONDS = 1.0
"""How long ``carrossel serve`` answers NOT_SERVING, still taking calls, before it stops:
calls that clients send in that moment are answered rather than cut by the stop (a call
the server has received but not yet taken up is cancelled when it stops)."""

SWITCH_INTERVAL_S = 0.001
"""The interpreter's thread switch interval while serving (Python's default is 5 ms)."""

SERVICE_NAMES = (
    rulesets_pb2.DESCRIPTOR.services_by_name["RulesetService"].full_name,
    rummy_pb2.DESCRIPTOR.services_by_name["RummyService"].full_name,
    fishing_pb2.DESCRIPTOR.services_by_name["FishingService"].full_name,
)


HEALTH_SERVICE_NAME = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name
REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"


def _reflection_v1_alias(servicer: reflection.ReflectionServicer) -> grpc.GenericRpcHandler:
    """Serve reflection under ``grpc.reflection.v1`` too (newer clients ask for it first).

    grpcio-reflection only ships v1alpha; the v1 messages are wire-identical, so the same
    servicer answers both.
    """
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    return grpc.method_handlers_generic_handler(REFLECTION_V1, {"ServerReflectionInfo": handler})


@dataclass(frozen=True)
class ServeOptions:
    """What ``carrossel serve`` may add to a plain server (all optional)."""

    tls: TlsFiles | None = None
    token_file: Path | None = None
    metrics_port: int | None = None
    metrics_host: str = "127.0.0.1"
    max_workers: int = DEFAULT_WORKERS
    max_pending: int | None = None
    max_streams: int = capacity.DEFAULT_STREAMS
    max_message_bytes: int = limits.MAX_MESSAGE_BYTES
    max_concurrent_solves: int | None = None  # None: the process's share of the cores
    solve_queue: int = limits.DEFAULT_SOLVE_QUEUE
    processes: int = 1  # server processes sharing the cores (`serve --workers N`)
    drain_seconds: float = DRAIN_SECONDS
    reuse_port: bool = False  # a worker of `serve --workers N` shares its port (service/workers.py)
    worker_index: int = 0  # which worker of `serve --workers N` (0 for a single process)
    # The call path on one core (service/affinity.py): None decides by the cores the
    # processes may use (serve's default); a server built in-process pins nothing.
    pin_calls: bool | None = False
    # Seconds the solves lane's warm thread rehearses after a SolveMove (service/keep_warm.py);
    # None decides by the cores (serve's default); a server built in-process keeps none.
    keep_warm_s: float | None = 0.0


class CarrosselServer:
    """A started server with its health servicer, so shutdown can flip health first."""

    def __init__(
        self,
        server: grpc.Server,
        port: int,
        health_servicer: HealthServicer,
        lanes: capacity.Capacity,
        metrics_server: metrics.MetricsServer | None = None,
    ):
        self.server = server
        self.port = port
        self.health = health_servicer
        self.capacity = lanes
        self.metrics = metrics_server

    def stop(self, grace: float | None = GRACE_SECONDS, drain: float = 0.0) -> threading.Event:
        """Mark every service NOT_SERVING, wait ``drain`` seconds while clients that watch
        health (and the orchestrator's probes) move away, then stop accepting calls and
        finish in-flight ones."""
        self.health.enter_graceful_shutdown()
        if drain > 0:
            time.sleep(drain)
        event: threading.Event = self.server.stop(grace)
        if self.metrics is not None:
            self.metrics.stop()
        return event


def _channel_options(max_message_bytes: int, reuse_port: bool) -> list[tuple[str, int]]:
    return [
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.max_send_message_length", max_message_bytes),
        ("grpc.so_reuseport", int(reuse_port)),
        # Every connection is closed (GOAWAY, in-flight calls finish) after MAX_CONNECTION_AGE:
        # an idle reflection stream is held no longer than that and its grace, and clients
        # reconnect, so new replicas behind a connection-level balancer get traffic too.
        ("grpc.max_connection_age_ms", MAX_CONNECTION_AGE_MS),
        ("grpc.max_connection_age_grace_ms", MAX_CONNECTION_AGE_GRACE_MS),
        # A peer that vanished without closing is noticed and its calls released.
        ("grpc.keepalive_time_ms", 60_000),
        ("grpc.keepalive_timeout_ms", 20_000),
        ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ]


MAX_CONNECTION_AGE_MS = 5 * 60 * 1000
MAX_CONNECTION_AGE_GRACE_MS = 30 * 1000


def build_server(
    address: str,
    *,
    max_workers: int = DEFAULT_WORKERS,
    max_message_bytes: int = limits.MAX_MESSAGE_BYTES,
    max_concurrent_solves: int | None = None,
    options: ServeOptions | None = None,
) -> CarrosselServer:
    """Build and start the server on ``address`` (``host:port``; port 0 picks a free one).

    ``options``, when given, supersedes the keyword bounds (``carrossel serve`` passes it).
    """
    if options is None:
        options = ServeOptions(
            max_workers=max_workers,
            max_message_bytes=max_message_bytes,
            max_concurrent_solves=max_concurrent_solves,
        )
    solves = options.max_concurrent_solves or limits.default_concurrent_solves(options.processes)
    limits.configure_solve_slots(solves, options.solve_queue)
    keep_warm_s = keep_warm.default_window() if options.keep_warm_s is None else options.keep_warm_s
    lanes = capacity.Capacity(
        options.max_workers,
        options.max_pending,
        options.max_streams,
        solves + options.solve_queue,
        keep_warm_s,
    )
    auth = TokenAuth.from_file(options.token_file) if options.token_file else None
    credentials = server_credentials(options.tls) if options.tls else None
    pin = affinity.pins_calls(options.pin_calls, options.processes)
    core = affinity.calls_core(options.worker_index) if pin else None
    with affinity.pinned_while_built(core):  # grpcio's threads start on the call path's core
        return _start_server(address, options, lanes, auth, credentials)


def _start_server(
    address: str,
    options: ServeOptions,
    lanes: capacity.Capacity,
    auth: TokenAuth | None,
    credentials: grpc.ServerCredentials | None,
) -> CarrosselServer:
    server = grpc.server(
        lanes.calls.pool,
        interceptors=[CallInterceptor(lanes, auth)],
        options=_channel_options(options.max_message_bytes, options.reuse_port),
        maximum_concurrent_rpcs=lanes.max_concurrent_rpcs,
    )
    rulesets_pb2_grpc.add_RulesetServiceServicer_to_server(RulesetServicer(), server)
    rummy_pb2_grpc.add_RummyServiceServicer_to_server(RummyServicer(), server)
    fishing_pb2_grpc.add_FishingServiceServicer_to_server(FishingServicer(), server)

    health_servicer = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", *SERVICE_NAMES):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)

    reflection_servicer = reflection.ReflectionServicer(
        (*SERVICE_NAMES, HEALTH_SERVICE_NAME, reflection.SERVICE_NAME)
    )
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(reflection_servicer, server)
    server.add_generic_rpc_handlers((_reflection_v1_alias(reflection_servicer),))
    if credentials is None:
        port = server.add_insecure_port(address)
    else:
        port = server.add_secure_port(address, credentials)
    if port == 0:
        raise OSError(f"could not bind {address}")
    metrics_server = None
    if options.metrics_port is not None:
        metrics_server = metrics.serve_metrics(options.metrics_port, options.metrics_host)
    server.start()
    return CarrosselServer(server, port, health_servicer, lanes, metrics_server)


def create_server(
    address: str,
    *,
    max_workers: int = DEFAULT_WORKERS,
    max_message_bytes: int = limits.MAX_MESSAGE_BYTES,
    max_concurrent_solves: int | None = None,
) -> tuple[grpc.Server, int]:
    """Start a server on ``address`` and return it with the port it really bound."""
    built = build_server(
        address,
        max_workers=max_workers,
        max_message_bytes=max_message_bytes,
        max_concurrent_solves=max_concurrent_solves,
    )
    return built.server, built.port


def configure_logging() -> None:
    """One line per record on stderr; the per-call lines are JSON objects."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(LineFormatter())
    logging.basicConfig(level=logging.INFO, handlers=[handler])


def warm_up_models() -> None:
    """Build the deck models before listening, so that no call waits for them (their
    first calls took ten times as long): about 0.2 s of CPU per process."""
    started = time.perf_counter()
    built = warm_up(RULESETS.values())
    log.info("built %d deck models in %.0f ms", built, (time.perf_counter() - started) * 1000)


def serve(
    port: int,
    host: str = "127.0.0.1",
    *,
    grace: float = GRACE_SECONDS,
    http_port: int | None = None,
    options: ServeOptions | None = None,
    workers: int = 1,
) -> int:
    """Serve until SIGTERM or SIGINT, then stop gracefully; returns the process exit code.

    ``http_port`` also serves the referee's page and the Connect JSON API on that port of the
    same host (``service/web``), which forwards every call to this server. ``workers`` > 1
    runs that many server processes on the port (``service/workers.py``)."""
    if workers > 1:
        from service.workers import serve_workers

        return serve_workers(port, host, workers, http_port, options or ServeOptions())
    _prepare_process()
    options = options or ServeOptions()
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        built = build_server(address, options=options)
    except ConfigError as exc:
        log.error("cannot start: %s", exc)
        return 2
    except (RuntimeError, OSError) as exc:
        log.error("cannot listen on %s (is another server using that port?): %s", address, exc)
        return 2
    # What is alive now (the modules, OR-Tools, the rulesets) lives as long as the server: a
    # full collection, 20-50 ms with all of it, then walks only what calls have added since.
    gc.freeze()
    front = None
    if http_port is not None:
        from service.web.front import start_front  # only a server with the page loads it

        try:
            front = start_front(host, http_port, built.port)
        except OSError as exc:
            log.error("cannot serve the page on %s port %d: %s", host, http_port, exc)
            built.stop(None).wait(1.0)
            return 2
        log.info("referee's page on http://%s:%d/", host, front.port)
    with _stop_signals() as stop_requested:
        warm = built.capacity.solves.pool.warm
        log.info(
            "carrossel serving on %s:%d (%s%s%s)",
            host,
            built.port,
            "TLS" if options.tls else "plaintext",
            f", metrics on port {built.metrics.port}" if built.metrics else "",
            f", warm solve thread for {warm.window_s:g} s after a SolveMove" if warm else "",
        )
        while not stop_requested.wait(0.5):
            pass
        built.stop(grace, options.drain_seconds).wait(grace + 1.0)
        built.capacity.shutdown()
        if front is not None:
            front.stop()  # after: the page's calls in flight finish within the grace too
        log.info("carrossel stopped")
    return 0


def _prepare_process() -> None:
    """The process's settings for serving, and the models built before the first call."""
    configure_logging()
    memory.limit_arenas()
    # A thread building a CP-SAT model in Python gives the GIL up every millisecond rather
    # than every 5: a cheap call that arrives meanwhile waits at most about that long.
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    warm_up_models()


@contextmanager
def _stop_signals() -> Iterator[threading.Event]:
    """An event set by SIGTERM or SIGINT within the block (a graceful stop, not the process's
    end); the signals' handlers before are put back after it."""
    stop_requested = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        del frame
        log.info("received %s: marking NOT_SERVING and stopping", signal.Signals(signum).name)
        stop_requested.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield stop_requested
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
