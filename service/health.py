"""grpc.health.v1 with Check and a non-blocking Watch that never sends while holding a lock.

grpcio-health-checking's own servicer sends Watch updates while holding its lock; the server
thread that completes those sends may itself be waiting for that lock (to drop a cancelled
watcher), so a status change racing a client's cancel deadlocks the server, typically at
shutdown. This servicer keeps the same behaviour without that lock order.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import TypeAlias

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

Status: TypeAlias = int  # a health_pb2.HealthCheckResponse.ServingStatus value
SERVING: Status = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING: Status = health_pb2.HealthCheckResponse.NOT_SERVING
SERVICE_UNKNOWN: Status = health_pb2.HealthCheckResponse.SERVICE_UNKNOWN

SendResponse = Callable[[health_pb2.HealthCheckResponse | None], object]

MAX_WATCHERS = 256
"""Watch streams open at once. A watch holds no thread, but each holds memory until its
client leaves; one more is refused with RESOURCE_EXHAUSTED (issue 52)."""


class _Watcher:
    """One Watch stream: sends a status only when it differs from the last one it sent."""

    def __init__(self, service: str, send: SendResponse) -> None:
        self.service = service
        self._send = send
        self._lock = threading.Lock()  # orders this stream's sends; never held with others'
        self._sent: Status | None = None

    def push(self, current: Callable[[str], Status]) -> None:
        with self._lock:
            status = current(self.service)
            if status != self._sent:
                self._sent = status
                self._send(health_pb2.HealthCheckResponse(status=status))


class HealthServicer(health_pb2_grpc.HealthServicer):  # type: ignore[misc]  # untyped base
    """Service statuses for Check and Watch; ``enter_graceful_shutdown`` freezes NOT_SERVING."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._status: dict[str, Status] = {"": SERVING}
        self._watchers: set[_Watcher] = set()
        self._shutting_down = False

    def _current(self, service: str) -> Status:
        with self._lock:
            return self._status.get(service, SERVICE_UNKNOWN)

    def _notify(self) -> None:
        with self._lock:
            watchers = list(self._watchers)
        for watcher in watchers:  # outside the lock: a send waits for the server thread
            watcher.push(self._current)

    def set(self, service: str, status: Status) -> None:
        """Set a service's status (ignored once shutting down) and tell its watchers."""
        with self._lock:
            if self._shutting_down:
                return
            self._status[service] = status
        self._notify()

    def enter_graceful_shutdown(self) -> None:
        """Mark every service NOT_SERVING for good; later ``set`` calls are ignored."""
        with self._lock:
            if self._shutting_down:
                return
            self._shutting_down = True
            for service in self._status:
                self._status[service] = NOT_SERVING
        self._notify()

    def Check(
        self, request: health_pb2.HealthCheckRequest, context: grpc.ServicerContext
    ) -> health_pb2.HealthCheckResponse:
        with self._lock:
            status = self._status.get(request.service)
        if status is None:
            context.abort(grpc.StatusCode.NOT_FOUND, f"unknown service {request.service!r}")
        return health_pb2.HealthCheckResponse(status=status)

    def Watch(
        self,
        request: health_pb2.HealthCheckRequest,
        context: grpc.ServicerContext,
        send_response_callback: SendResponse | None = None,
    ) -> Iterator[health_pb2.HealthCheckResponse] | None:
        if send_response_callback is None:  # a server without non-blocking streams
            return iter([health_pb2.HealthCheckResponse(status=self._current(request.service))])
        watcher = _Watcher(request.service, send_response_callback)
        with self._lock:
            full = len(self._watchers) >= MAX_WATCHERS
            if not full:
                self._watchers.add(watcher)
        if full:
            context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"{MAX_WATCHERS} health watches are open, the most; use Check, or retry later.",
            )
        context.add_callback(lambda: self._forget(watcher))
        watcher.push(self._current)
        return None

    def _forget(self, watcher: _Watcher) -> None:
        with self._lock:
            self._watchers.discard(watcher)


# grpc hands a send callback to behaviours marked this way, so a watch holds no worker thread.
setattr(HealthServicer.Watch, "experimental_non_blocking", True)  # noqa: B010
setattr(HealthServicer.Watch, "experimental_thread_pool", None)  # noqa: B010
