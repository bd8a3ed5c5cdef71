"""``carrossel serve --workers N``: N server processes sharing one port (grpcio's
multiprocessing pattern), so CP-SAT and the Python around it use every core.

The parent reserves the port with ``SO_REUSEPORT`` (port 0 picks one), starts N worker
processes with the ``spawn`` method (gRPC must not be forked after it started), each of which
binds the same port with ``grpc.so_reuseport`` and runs the ordinary ``serve``. The kernel
spreads **connections** over the workers, so every client connection is served by one
worker: many clients use every core, one client with one channel uses one worker. On SIGTERM
or SIGINT the parent forwards SIGTERM to every worker, each of which turns NOT_SERVING,
drains and stops as a single server does; the parent then exits. A worker that dies stops
the others and the parent exits non-zero, so an orchestrator restarts the whole server; a
parent that dies without stopping them (SIGKILL) is noticed by each worker within half a
second, and the worker stops as on SIGTERM.
Health, bounds, the solve slots and the solve queue are per worker (``--max-solves`` and
``--solve-queue`` each; by default the cores are shared out, one solve per core).
"""

from __future__ import annotations

import dataclasses
import logging
import multiprocessing
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import TYPE_CHECKING

from service import cores

if TYPE_CHECKING:
    from service.server import ServeOptions

log = logging.getLogger("carrossel.server")

STOP_TIMEOUT_S = 30.0
"""How long the parent waits for the workers to stop after forwarding SIGTERM."""


def default_workers() -> int:
    """The cores this process may keep busy (``taskset``, cpusets and a cgroup CPU quota
    count: ``service.cores``)."""
    return cores.usable_cores()


@contextmanager
def reserve_port(host: str, port: int) -> Iterator[int]:
    """Hold ``host:port`` with SO_REUSEPORT while the workers bind it too; yields the port."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
        yield int(sock.getsockname()[1])
    finally:
        sock.close()


ORPHAN_POLL_S = 0.5
"""How often a worker looks whether its parent is still there."""


def _stop_when_orphaned(parent: int) -> None:
    """SIGTERM this worker once its parent has gone (killed without forwarding a stop, e.g.
    SIGKILL): it then stops gracefully like on any SIGTERM instead of serving on alone."""
    while os.getppid() == parent:
        time.sleep(ORPHAN_POLL_S)
    log.warning("the parent process %d has gone: stopping this worker", parent)
    os.kill(os.getpid(), signal.SIGTERM)


def _worker(port: int, host: str, options: ServeOptions, index: int, parent: int) -> None:
    """One worker process: an ordinary server on the shared port (the page, if any, is the
    parent's, for every worker). ``parent`` is the parent's pid as the parent saw it, so a
    parent that died while this worker was starting is noticed too."""
    from service.server import serve

    threading.Thread(
        target=_stop_when_orphaned, args=(parent,), name="carrossel-parent", daemon=True
    ).start()

    metrics_port = options.metrics_port + index if options.metrics_port is not None else None
    mine = dataclasses.replace(
        options, reuse_port=True, metrics_port=metrics_port, worker_index=index
    )
    raise SystemExit(serve(port, host, options=mine))


def serve_workers(
    port: int, host: str, workers: int, http_port: int | None, options: ServeOptions
) -> int:
    """Serve with ``workers`` processes until SIGTERM or SIGINT; the process exit code."""
    from service.server import configure_logging

    configure_logging()
    try:
        reservation = reserve_port(host, port)
        bound = reservation.__enter__()
    except OSError as exc:
        log.error(
            "cannot listen on %s:%d (is another server using that port?): %s", host, port, exc
        )
        return 2
    try:
        shared = dataclasses.replace(options, processes=workers)  # the cores are shared out
        return _run(bound, host, workers, http_port, shared)
    finally:
        reservation.__exit__(None, None, None)


def _run(port: int, host: str, workers: int, http_port: int | None, options: ServeOptions) -> int:
    context = multiprocessing.get_context("spawn")
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        del frame
        log.info("received %s: stopping %d workers", signal.Signals(signum).name, workers)
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    processes: list[BaseProcess] = []
    front = None
    try:
        for index in range(workers):
            process = context.Process(
                target=_worker, args=(port, host, options, index, os.getpid()), daemon=False
            )
            process.start()
            processes.append(process)
        if http_port is not None:
            from service.web.front import start_front

            try:
                front = start_front(host, http_port, port)
            except OSError as exc:
                log.error("cannot serve the page on %s port %d: %s", host, http_port, exc)
                _stop_all(processes)
                return 2
            log.info("referee's page on http://%s:%d/", host, front.port)
        log.info("carrossel serving on %s:%d with %d worker processes", host, port, workers)
        failed = _wait(processes, stop)
        _stop_all(processes)
        if front is not None:
            front.stop()
        log.info("carrossel stopped")
        return 1 if failed else 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for leftover in processes:
            if leftover.is_alive():
                leftover.kill()


def _wait(processes: list[BaseProcess], stop: threading.Event) -> bool:
    """Block until a stop is asked for (False) or a worker has exited on its own (True)."""
    while not stop.wait(0.2):
        if any(not p.is_alive() for p in processes):
            dead = [p.exitcode for p in processes if not p.is_alive()]
            log.error("a worker exited (exit codes %s): stopping the others", dead)
            return True
    return False


def _stop_all(processes: list[BaseProcess]) -> None:
    for process in processes:
        if process.is_alive() and process.pid is not None:
            os.kill(process.pid, signal.SIGTERM)
    for process in processes:
        process.join(STOP_TIMEOUT_S)
