"""One server interceptor for every call: admission, tokens, bounds, cancellation, errors, logs.

grpcio calls ``intercept_service`` on its polling thread, before the call is handed to a
worker, so what is decided there costs no worker and no parsing of the request:

- a call without a valid bearer token (when tokens are configured) is UNAUTHENTICATED;
  health stays open for probes (``service.security``);
- a call whose lane is full is RESOURCE_EXHAUSTED with a retry hint (``service.capacity``);
- an admitted call runs on its lane's pool.

Then, on the worker, every admitted call:

- is refused when its deadline passed, or its client left, while it waited for a worker;
- has its request's shape checked before any element is processed (``service.bounds``);
- runs in a ``solver.core.cancel`` scope whose token is cancelled when the call ends, so a
  cancelled or expired call stops its CP-SAT search at once;
- maps ``solver.core.errors.InvalidRequest`` to INVALID_ARGUMENT with a ``google.rpc.BadRequest``
  and any other unexpected exception to INTERNAL with a sentence (the server keeps serving);
- logs one JSON line to the ``carrossel.rpc`` logger (method, final status code, ms and the
  request id, from ``x-request-id`` when the client sent a usable one) and updates the
  metrics (``service.metrics``).

Request bytes that are not the method's message keep gRPC's INTERNAL ("error parsing
request") and are logged as one line, without a traceback.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf.message import Message

from service import bounds, memory, metrics
from service.capacity import HEALTH_PREFIX, Capacity, Lane
from service.errors import bad_request_status, problems_as_pairs, resource_exhausted_status
from service.security import TokenAuth
from solver.core import cancel
from solver.core.errors import InvalidRequest

log = logging.getLogger("carrossel.rpc")

Behavior = Callable[..., Any]
Metadata = Iterable[tuple[str, str | bytes]] | None

CARROSSEL_PREFIX = "/carrossel."
REQUEST_ID_KEY = "x-request-id"
_USABLE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:/+=-]{1,128}")
_KINDS = (
    ("unary_unary", grpc.unary_unary_rpc_method_handler),
    ("stream_unary", grpc.stream_unary_rpc_method_handler),
    ("unary_stream", grpc.unary_stream_rpc_method_handler),
    ("stream_stream", grpc.stream_stream_rpc_method_handler),
)


@dataclass(frozen=True)
class _Status(grpc.Status):
    """A plain status to abort with."""

    code: grpc.StatusCode
    details: str
    trailing_metadata: tuple[tuple[str, str | bytes], ...] = field(default=())


UNAUTHENTICATED = _Status(
    grpc.StatusCode.UNAUTHENTICATED,
    "This server needs a bearer token: send the metadata 'authorization: Bearer <token>'.",
)


def request_id_of(metadata: Metadata) -> str:
    """The client's ``x-request-id`` when it is short and plain, else a fresh random one (32
    hex digits, as ``uuid4().hex`` from the same source, without building a UUID: 0.6 µs
    against 3.9 on grpcio's polling thread): an odd or huge id is never copied into a log
    line."""
    for key, value in metadata or ():
        if key == REQUEST_ID_KEY and isinstance(value, str) and _USABLE_REQUEST_ID.fullmatch(value):
            return value
    return os.urandom(16).hex()


# --- the status a call ended with ---------------------------------------------------------


def _status_code(context: grpc.ServicerContext) -> object:
    """The code set by abort() or set_code() so far; None means OK (not in the type stubs)."""
    code: object = getattr(context, "code")()  # noqa: B009
    return code


def _code_name(context: grpc.ServicerContext, failed: bool) -> str:
    code = _status_code(context)
    if isinstance(code, grpc.StatusCode):
        return code.name
    if isinstance(code, int):  # some grpcio versions store the numeric value
        for status in grpc.StatusCode:
            if status.value[0] == code:
                return status.name
    return "UNKNOWN" if failed else "OK"


def _expired(context: grpc.ServicerContext) -> bool:
    remaining = context.time_remaining()
    return remaining is not None and remaining <= 0.0


def _ended_code(context: grpc.ServicerContext) -> grpc.StatusCode:
    """Why a call ended without a status of ours: its deadline, or its client cancelled."""
    return grpc.StatusCode.DEADLINE_EXCEEDED if _expired(context) else grpc.StatusCode.CANCELLED


def _final_code(context: grpc.ServicerContext, failed: bool) -> str:
    """The status the client really got: a call its client left is not OK whatever the
    handler returned."""
    if _status_code(context) is None and not context.is_active():
        return _ended_code(context).name
    return _code_name(context, failed)


def _already_aborted(context: grpc.ServicerContext) -> bool:
    code = _status_code(context)
    return code is not None and code != grpc.StatusCode.OK


def _handle_error(method: str, context: grpc.ServicerContext, exc: Exception) -> None:
    """Map an exception to a status; re-raises the abort that ends the call."""
    if _already_aborted(context) or isinstance(exc, grpc.RpcError):
        raise exc
    if not context.is_active() or isinstance(exc, cancel.Cancelled):
        # The client left or the deadline passed (a stopped search raises Cancelled): record
        # why, so the log says so; nothing reaches the client any more.
        code = _ended_code(context)
        context.abort(code, f"the call ended ({code.name}) before its answer")
    if isinstance(exc, InvalidRequest):
        context.abort_with_status(bad_request_status(problems_as_pairs(exc.problems)))
    log.exception("unexpected error in %s", method)
    context.abort(
        grpc.StatusCode.INTERNAL,
        f"The service failed while answering {method} ({type(exc).__name__}); "
        "this is a bug in carrossel, not in the request.",
    )


def _log(
    method: str,
    context: grpc.ServicerContext,
    start: float,
    failed: bool,
    *,
    request_id: str = "",
    code: str | None = None,
) -> None:
    """The call's line, written once the call has ended, and its metrics.

    ``ms`` is the handler's time, taken now. Writing the line waits for the status to be
    sent (``add_callback``): a log record on caches that a solve has just filled costs
    0.1-0.2 ms, which the answer then no longer waits for (bench/README.md)."""
    elapsed_s = time.perf_counter() - start
    code = code or _code_name(context, failed)
    metrics.observe_call(method, code, elapsed_s)
    ms = round(elapsed_s * 1000.0, 3)

    def write() -> None:
        # The same JSON as json.dumps of the fields, formatted only if the line is written:
        # a method served here, a status name and a request id of plain characters
        # (request_id_of) need no escaping.
        if request_id:
            _info(_LINE, (method, code, ms, request_id))
        else:
            _info(_LINE_WITHOUT_ID, (method, code, ms))

    if not context.add_callback(write):  # the call has already ended
        write()


def _info(line: str, args: tuple[object, ...]) -> None:
    """``log.info(line, *args)`` without its caller look-up (a walk up the stack for the
    record's file, line and function, a fifth of the line's CPU, which no format here
    shows): the record names this function."""
    if log.isEnabledFor(logging.INFO):
        log.handle(log.makeRecord(log.name, logging.INFO, __file__, 0, line, args, None, "_info"))


_LINE = '{"event": "rpc", "method": "%s", "code": "%s", "ms": %r, "request_id": "%s"}'
_LINE_WITHOUT_ID = '{"event": "rpc", "method": "%s", "code": "%s", "ms": %r}'


# --- admitted calls -----------------------------------------------------------------------


def _refuse_if_stale(context: grpc.ServicerContext) -> None:
    """A call that waited for a worker past its deadline, or whose client left, is not run."""
    if not context.is_active() or _expired(context):
        code = _ended_code(context)
        context.abort(code, f"the call ended ({code.name}) while it waited for a worker")


def _wrap_unary_response(method: str, request_id: str, behavior: Behavior) -> Behavior:
    check_bounds = method.startswith(CARROSSEL_PREFIX)

    def call(request: Any, context: grpc.ServicerContext) -> Any:
        start = time.perf_counter()
        failed = False
        token = cancel.CancelToken()
        if not context.add_callback(token.cancel):  # fires when the call ends, however
            token.cancel()
        try:
            _refuse_if_stale(context)
            if check_bounds and isinstance(request, Message):
                bounds.check(request)
            with cancel.scope(token):
                response = behavior(request, context)
            metrics.observe_answer(method, response)
            return response
        except Exception as exc:
            failed = True
            _handle_error(method, context, exc)
            raise  # pragma: no cover - _handle_error always raises
        finally:
            code = _final_code(context, failed)
            _log(method, context, start, failed, request_id=request_id, code=code)

    return call


def _wrap_stream_response(method: str, request_id: str, behavior: Behavior) -> Behavior:
    def call(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        start = time.perf_counter()
        failed = False
        try:
            _refuse_if_stale(context)
            yield from behavior(request, context)
        except Exception as exc:
            failed = True
            _handle_error(method, context, exc)
            raise  # pragma: no cover
        finally:
            code = _final_code(context, failed)
            _log(method, context, start, failed, request_id=request_id, code=code)

    return call


def _parse_or_log(
    deserializer: Callable[[bytes], Any] | None, method: str, request_id: str
) -> Callable[[bytes], Any] | None:
    """The request parser, answering None (gRPC's INTERNAL, no traceback) for bytes that
    are not the message, with one log line instead of grpcio's traceback."""
    if deserializer is None:
        return None

    def parse(data: bytes) -> Any:
        memory.TRIMMER.note(len(data))
        try:
            return deserializer(data)
        except Exception as exc:
            metrics.CALLS_REFUSED.labels(reason="unparsable").inc()
            metrics.observe_call(method, grpc.StatusCode.INTERNAL.name, 0.0)
            line = {
                "event": "rpc",
                "method": method,
                "code": grpc.StatusCode.INTERNAL.name,
                "error": f"the request is not a {method} message ({type(exc).__name__})",
                "bytes": len(data),
                "request_id": request_id,
            }
            log.warning(json.dumps(line))
            return None

    return parse


def _on_pool(behavior: Behavior, pool: Any, like: Behavior | None = None) -> Behavior:
    """``behavior`` to be run on ``pool`` (grpcio reads the attribute when it dispatches)."""
    behavior.experimental_thread_pool = pool  # type: ignore[attr-defined]
    if like is not None and getattr(like, "experimental_non_blocking", False):
        behavior.experimental_non_blocking = True  # type: ignore[attr-defined]
    return behavior


def _non_blocking(behavior: Behavior) -> Behavior:
    """Health.Watch answers through a callback and frees its thread: kept so, on ``pool``."""

    def watch(request: Any, context: grpc.ServicerContext, send: Any = None) -> Any:
        return behavior(request, context, send)

    return watch


# --- refused calls ------------------------------------------------------------------------

_UNREAD = object()


def _skip(data: bytes) -> object:
    """A refused call's request is never parsed."""
    memory.TRIMMER.note(len(data))
    return _UNREAD


def _refusal(
    handler: grpc.RpcMethodHandler[Any, Any],
    method: str,
    request_id: str,
    status: grpc.Status,
    pool: Any,
) -> grpc.RpcMethodHandler[Any, Any]:
    def refuse(request: Any, context: grpc.ServicerContext) -> Any:
        del request
        start = time.perf_counter()
        try:
            context.abort_with_status(status)
        finally:
            _log(method, context, start, True, request_id=request_id, code=status.code.name)

    def refuse_stream(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        refuse(request, context)
        yield  # pragma: no cover - refuse always raises

    behavior = refuse_stream if handler.response_streaming else refuse
    factory = _factory(handler)
    return factory(  # type: ignore[no-any-return]
        _on_pool(behavior, pool),
        request_deserializer=_skip,
        response_serializer=handler.response_serializer,
    )


def _factory(handler: grpc.RpcMethodHandler[Any, Any]) -> Callable[..., Any]:
    for kind, factory in _KINDS:
        if getattr(handler, kind) is not None:
            return factory
    raise ValueError("a method handler with no behaviour")  # pragma: no cover


def _behavior(handler: grpc.RpcMethodHandler[Any, Any]) -> Behavior:
    for kind, _ in _KINDS:
        behavior: Behavior | None = getattr(handler, kind)
        if behavior is not None:
            return behavior
    raise ValueError("a method handler with no behaviour")  # pragma: no cover


# --- the interceptor ----------------------------------------------------------------------


@dataclass(frozen=True)
class _MethodPlan:
    """What the interceptor decides once per method and handler (only the request id, the
    token and the admission are the call's own): its lane, its behaviour and how its
    handler is rebuilt; a Health.Watch handler, which depends on nothing of the call, whole."""

    handler: grpc.RpcMethodHandler[Any, Any]
    behavior: Behavior
    factory: Callable[..., Any]
    lane: Lane
    open_method: bool
    wrap: Callable[[str, str, Behavior], Behavior]
    non_blocking: grpc.RpcMethodHandler[Any, Any] | None


class CallInterceptor(grpc.ServerInterceptor):
    """Admits, authenticates and wraps every method handler (see the module's docstring)."""

    def __init__(self, capacity: Capacity | None = None, auth: TokenAuth | None = None) -> None:
        self.capacity = capacity or Capacity()
        self.auth = auth
        self._plans: dict[str, _MethodPlan] = {}

    def _plan(self, method: str, handler: grpc.RpcMethodHandler[Any, Any]) -> _MethodPlan:
        """The method's plan, made on its first call (and again if its handler changed)."""
        plan = self._plans.get(method)
        if plan is not None and plan.handler is handler:
            return plan
        behavior = _behavior(handler)
        lane = self.capacity.lane_for(method, handler)
        factory = _factory(handler)
        non_blocking = None
        if getattr(behavior, "experimental_non_blocking", False):
            # Health.Watch holds no thread while it waits: not counted, just kept off the
            # calls' pool.
            non_blocking = factory(
                _on_pool(_non_blocking(behavior), lane.pool, like=behavior),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        plan = _MethodPlan(
            handler=handler,
            behavior=behavior,
            factory=factory,
            lane=lane,
            open_method=method.startswith(HEALTH_PREFIX),
            wrap=_wrap_stream_response if handler.response_streaming else _wrap_unary_response,
            non_blocking=non_blocking,
        )
        self._plans[method] = plan
        return plan

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler[Any, Any] | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        method: str = handler_call_details.method
        plan = self._plan(method, handler)
        metadata: Metadata = handler_call_details.invocation_metadata
        request_id = request_id_of(metadata)
        if self.auth is not None and not plan.open_method and not self.auth.allows(metadata):
            metrics.CALLS_REFUSED.labels(reason="unauthenticated").inc()
            return _refusal(
                handler, method, request_id, UNAUTHENTICATED, self.capacity.refusals.pool
            )
        if plan.non_blocking is not None:
            return plan.non_blocking
        lane = plan.lane
        if not lane.admits():
            metrics.CALLS_REFUSED.labels(reason="overload").inc()
            status = resource_exhausted_status(
                f"The server has {lane.limit} {lane.name} in progress, its most; retry in a moment."
            )
            return _refusal(handler, method, request_id, status, self.capacity.refusals.pool)
        return plan.factory(  # type: ignore[no-any-return]
            _on_pool(plan.wrap(method, request_id, plan.behavior), lane.pool),
            request_deserializer=_parse_or_log(handler.request_deserializer, method, request_id),
            response_serializer=handler.response_serializer,
        )
