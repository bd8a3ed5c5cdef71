"""One server interceptor for every call: error mapping and a structured log line.

- ``solver.core.errors.InvalidRequest`` raised anywhere in a handler becomes ``INVALID_ARGUMENT``
  with a ``google.rpc.BadRequest`` (its field paths are relative to the request).
- Any other unexpected exception becomes ``INTERNAL`` with a sentence; the server keeps serving.
- Every call logs one JSON line to the ``carrossel.rpc`` logger: method, status code, ms.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc

from service.errors import bad_request_status, problems_as_pairs
from solver.core.errors import InvalidRequest

log = logging.getLogger("carrossel.rpc")

Behavior = Callable[[Any, grpc.ServicerContext], Any]


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


def _already_aborted(context: grpc.ServicerContext) -> bool:
    code = _status_code(context)
    return code is not None and code != grpc.StatusCode.OK


def _handle_error(method: str, context: grpc.ServicerContext, exc: Exception) -> None:
    """Map an exception to a status; re-raises the abort that ends the call."""
    if _already_aborted(context) or isinstance(exc, grpc.RpcError) or not context.is_active():
        # Already ended: an abort, or a stream the client cancelled (e.g. a reflection
        # stream closed): nothing to map or log.
        raise exc
    if isinstance(exc, InvalidRequest):
        context.abort_with_status(bad_request_status(problems_as_pairs(exc.problems)))
    log.exception("unexpected error in %s", method)
    context.abort(
        grpc.StatusCode.INTERNAL,
        f"The service failed while answering {method} ({type(exc).__name__}); "
        "this is a bug in carrossel, not in the request.",
    )


def _log(method: str, context: grpc.ServicerContext, start: float, failed: bool) -> None:
    """The call's line, written once the call has ended.

    ``ms`` is the handler's time, taken now. Writing the line waits for the status to be
    sent (``add_callback``): a log record on caches that a solve has just filled costs
    0.1-0.2 ms, which the answer then no longer waits for (bench/README.md)."""
    elapsed_ms = (time.perf_counter() - start) * 1000.0
    line = {
        "event": "rpc",
        "method": method,
        "code": _code_name(context, failed),
        "ms": round(elapsed_ms, 3),
    }

    def write() -> None:
        log.info(json.dumps(line, ensure_ascii=False))

    if not context.add_callback(write):  # the call has already ended
        write()


def _wrap_unary_response(method: str, behavior: Behavior) -> Behavior:
    def call(request: Any, context: grpc.ServicerContext) -> Any:
        start = time.perf_counter()
        failed = False
        try:
            return behavior(request, context)
        except Exception as exc:
            failed = True
            _handle_error(method, context, exc)
            raise  # pragma: no cover - _handle_error always raises
        finally:
            _log(method, context, start, failed)

    return call


def _wrap_stream_response(method: str, behavior: Behavior) -> Behavior:
    def call(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        start = time.perf_counter()
        failed = False
        try:
            yield from behavior(request, context)
        except Exception as exc:
            failed = True
            _handle_error(method, context, exc)
            raise  # pragma: no cover
        finally:
            _log(method, context, start, failed)

    return call


class CallInterceptor(grpc.ServerInterceptor):
    """Wraps every method handler with error mapping and per-call logging."""

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler[Any, Any] | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        method: str = handler_call_details.method
        for kind, factory in (
            ("unary_unary", grpc.unary_unary_rpc_method_handler),
            ("stream_unary", grpc.stream_unary_rpc_method_handler),
            ("unary_stream", grpc.unary_stream_rpc_method_handler),
            ("stream_stream", grpc.stream_stream_rpc_method_handler),
        ):
            behavior = getattr(handler, kind)
            if behavior is None:
                continue
            if getattr(behavior, "experimental_non_blocking", False):
                # Health.Watch answers through a callback and frees its thread; wrapping
                # it would turn it into a blocking stream that holds a worker per watcher.
                return handler
            wrap = _wrap_stream_response if handler.response_streaming else _wrap_unary_response
            return factory(
                wrap(method, behavior),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler
