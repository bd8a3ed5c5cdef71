"""The Connect protocol's unary subset, in front of the gRPC server (connectrpc.com/docs/protocol).

A browser calls ``POST /carrossel.v1.RummyService/ValidateMove`` with a JSON body in the
standard protobuf JSON mapping (or ``application/proto`` bytes); the call is forwarded to
the gRPC server over a local channel, so the very same servicers, interceptor, bounds and
logging answer it. A gRPC status comes back as Connect's JSON error: the code's lower-case
name, the message, and every ``google.rpc.Status`` detail (a ``BadRequest``, say) as
``{"type", "value", "debug"}``.

Only unary methods of the ``carrossel.v1`` services are routed: the table is built from the
proto descriptors, so nothing a request carries is looked up anywhere else.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import grpc
from google.protobuf import any_pb2, json_format, message_factory
from google.protobuf.descriptor import FileDescriptor, MethodDescriptor
from google.protobuf.message import DecodeError, Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from carrossel.v1 import fishing_pb2, rulesets_pb2, rummy_pb2

PROTO_FILES: tuple[FileDescriptor, ...] = (
    rulesets_pb2.DESCRIPTOR,
    rummy_pb2.DESCRIPTOR,
    fishing_pb2.DESCRIPTOR,
)

JSON = "application/json"
PROTO = "application/proto"

DEFAULT_TIMEOUT_S = 60.0
"""The deadline of a call that names none: above the longest solve a request may ask for."""

MAX_TIMEOUT_S = 300.0
"""The longest deadline a ``Connect-Timeout-Ms`` header may set."""

MAX_MESSAGE_CHARS = 500
"""The longest error message sent, as service/errors.py keeps the gRPC statuses'."""

FORWARDED_HEADERS = ("authorization",)
"""Request headers passed on to the gRPC call as metadata (a bearer token); no others."""

# Connect's HTTP status for each code (connectrpc.com/docs/protocol#error-codes).
_HTTP_STATUS = {
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.UNKNOWN: 500,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 400,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 500,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 500,
    grpc.StatusCode.UNAUTHENTICATED: 401,
}


@dataclass(frozen=True)
class Route:
    """One unary method: its gRPC path and its request and response classes."""

    path: str
    request_class: type[Message]
    response_class: type[Message]


@dataclass(frozen=True)
class Reply:
    """What the HTTP layer sends: a status, a content type and the body."""

    status: int
    content_type: str
    body: bytes


class ConnectError(Exception):
    """A call that ends with a Connect error instead of a message."""

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        details: Sequence[Mapping[str, Any]] = (),
        *,
        http: int | None = None,
    ):
        # A parser's message may quote the request (a 4 MiB string field): keep it short.
        if len(message) > MAX_MESSAGE_CHARS:
            message = message[: MAX_MESSAGE_CHARS - 3] + "..."
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = list(details)
        # Errors of the HTTP layer itself (no such path, a content type that is not
        # Connect's) keep the HTTP status Connect gives them; the rest follow the code.
        self.http = _HTTP_STATUS[code] if http is None else http

    def reply(self) -> Reply:
        """The error as Connect's JSON error body, with its HTTP status."""
        body: dict[str, Any] = {"code": code_name(self.code), "message": self.message}
        if self.details:
            body["details"] = self.details
        # "replace": should a message ever quote a lone surrogate, it is sent, not a 500.
        text = json.dumps(body, ensure_ascii=False)
        return Reply(self.http, JSON, text.encode("utf-8", "replace"))


def code_name(code: grpc.StatusCode) -> str:
    """Connect's name of a gRPC code: ``INVALID_ARGUMENT`` is ``invalid_argument``."""
    return "canceled" if code is grpc.StatusCode.CANCELLED else code.name.lower()


def _route(method: MethodDescriptor) -> Route:
    return Route(
        path=f"/{method.containing_service.full_name}/{method.name}",
        request_class=message_factory.GetMessageClass(method.input_type),
        response_class=message_factory.GetMessageClass(method.output_type),
    )


def build_routes(files: Sequence[FileDescriptor] = PROTO_FILES) -> Mapping[str, Route]:
    """Every unary method of the given proto files, by its HTTP path."""
    routes = {}
    for file in files:
        for service in file.services_by_name.values():
            for method in service.methods:
                if not (method.client_streaming or method.server_streaming):
                    route = _route(method)
                    routes[route.path] = route
    return MappingProxyType(routes)


def media_type(content_type: str | None) -> str:
    """``application/json; charset=utf-8`` is ``application/json``."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def decode_request(route: Route, content_type: str, body: bytes) -> Message:
    """The request message, from JSON (unknown fields refused, so a typo is an error) or
    binary; a body that does not parse is INVALID_ARGUMENT."""
    request = route.request_class()
    try:
        if content_type == JSON:
            json_format.Parse(body.decode("utf-8") if body else "{}", request)
        else:
            request.ParseFromString(body)
    except (json_format.ParseError, DecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise ConnectError(
            grpc.StatusCode.INVALID_ARGUMENT, f"the request body is not a valid message: {exc}"
        ) from exc
    return request


def encode_response(message: Message, content_type: str) -> Reply:
    """The answer in the request's encoding (JSON with the proto field names' camelCase)."""
    if content_type == JSON:
        text = json_format.MessageToJson(message, indent=None, ensure_ascii=False)
        return Reply(200, JSON, text.encode("utf-8", "replace"))  # "Q♣" stays readable
    return Reply(200, PROTO, message.SerializeToString())


def timeout_seconds(header: str | None) -> float:
    """The call's deadline: ``Connect-Timeout-Ms`` (at most 10 digits), else the default."""
    if header is None:
        return DEFAULT_TIMEOUT_S
    if not (header.isascii() and header.isdigit() and len(header) <= 10):
        raise ConnectError(
            grpc.StatusCode.INVALID_ARGUMENT, "Connect-Timeout-Ms must be 1 to 10 digits"
        )
    return min(int(header) / 1000.0, MAX_TIMEOUT_S)


def error_from_rpc(error: grpc.RpcError) -> ConnectError:
    """A failed gRPC call as a Connect error, with its rich status details if it had any."""
    call: Any = error  # a failed unary call is both an RpcError and a grpc.Call
    code: grpc.StatusCode = call.code()
    message: str = call.details() or ""
    status = rpc_status.from_call(call)
    details = [_detail(packed) for packed in status.details] if status is not None else []
    return ConnectError(code, message, details)


# The detail types the service sends (service/errors.py), which the error also shows as JSON.
_DETAIL_TYPES: Mapping[str, type[Message]] = {
    error_details_pb2.BadRequest.DESCRIPTOR.full_name: error_details_pb2.BadRequest,
}


def _detail(packed: any_pb2.Any) -> dict[str, Any]:
    """One ``google.protobuf.Any`` detail in Connect's shape: the type's full name, the
    message's bytes in unpadded base64, and (for a known type) the message as JSON to read."""
    name = packed.TypeName()
    detail: dict[str, Any] = {
        "type": name,
        "value": base64.b64encode(packed.value).decode("ascii").rstrip("="),
    }
    if name in _DETAIL_TYPES:
        message = _DETAIL_TYPES[name]()
        if packed.Unpack(message):
            detail["debug"] = json_format.MessageToDict(message)
    return detail


class Forwarder:
    """Sends each routed call to the gRPC server over one shared channel."""

    def __init__(self, channel: grpc.Channel, routes: Mapping[str, Route] | None = None):
        self._routes = build_routes() if routes is None else routes
        self._callables = {
            path: channel.unary_unary(
                path,
                request_serializer=route.request_class.SerializeToString,
                response_deserializer=route.response_class.FromString,
            )
            for path, route in self._routes.items()
        }

    def route(self, path: str) -> Route | None:
        return self._routes.get(path)

    def call(
        self, route: Route, request: Message, timeout: float, headers: Mapping[str, str]
    ) -> Message:
        """The server's answer to one call, or the ConnectError its status makes."""
        metadata = tuple((name, headers[name]) for name in FORWARDED_HEADERS if name in headers)
        try:
            answer: Message = self._callables[route.path](
                request, timeout=timeout, metadata=metadata or None
            )
        except grpc.RpcError as exc:
            raise error_from_rpc(exc) from exc
        return answer
