"""Turning failures into gRPC statuses (SPEC §5).

A malformed request is ``INVALID_ARGUMENT`` with a packed ``google.rpc.BadRequest`` that names
every bad field; clients read it back with ``grpc_status.rpc_status.from_call``. An RPC whose
issue has not landed is ``UNIMPLEMENTED`` with a sentence. Nothing here ever fakes an answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NoReturn

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from solver.core.errors import FieldProblem, InvalidRequest

FieldViolations = Iterable[tuple[str, str]]

# Status details travel in trailing metadata, which gRPC caps at a few KiB: keep them small.
MAX_FIELD_VIOLATIONS = 20
MAX_DESCRIPTION_CHARS = 200
MAX_MESSAGE_CHARS = 500


def bad_request_status(violations: FieldViolations, message: str = "") -> grpc.Status:
    """An INVALID_ARGUMENT status carrying a BadRequest with one entry per (field, description)."""
    pairs = [(field, _truncate(text, MAX_DESCRIPTION_CHARS)) for field, text in violations]
    if len(pairs) > MAX_FIELD_VIOLATIONS:
        hidden = len(pairs) - MAX_FIELD_VIOLATIONS + 1
        pairs = [*pairs[: MAX_FIELD_VIOLATIONS - 1], ("", f"... and {hidden} more problems")]
    detail = error_details_pb2.BadRequest(
        field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field=field, description=description)
            for field, description in pairs
        ]
    )
    packed = any_pb2.Any()
    packed.Pack(detail)
    if not message:
        message = "malformed request: " + "; ".join(f"{f}: {d}" for f, d in pairs)
    status = status_pb2.Status(
        code=code_pb2.INVALID_ARGUMENT,
        message=_truncate(message, MAX_MESSAGE_CHARS),
        details=[packed],
    )
    converted: grpc.Status = rpc_status.to_status(status)
    return converted


def abort_invalid(context: grpc.ServicerContext, violations: FieldViolations) -> NoReturn:
    """Abort the call with INVALID_ARGUMENT and a BadRequest naming every bad field."""
    context.abort_with_status(bad_request_status(violations))
    raise AssertionError("abort_with_status returned")  # pragma: no cover


def abort_invalid_request(context: grpc.ServicerContext, error: InvalidRequest) -> NoReturn:
    """Abort the call for an ``InvalidRequest`` (its paths are request-relative)."""
    abort_invalid(context, problems_as_pairs(error.problems))


def problems_as_pairs(problems: Iterable[FieldProblem]) -> list[tuple[str, str]]:
    """(field path, description) pairs of the solver's field problems."""
    return [(p.field, p.description) for p in problems]


def abort_unimplemented(context: grpc.ServicerContext, sentence: str) -> NoReturn:
    """Abort the call with UNIMPLEMENTED and a sentence saying what is missing."""
    context.abort(grpc.StatusCode.UNIMPLEMENTED, sentence)
    raise AssertionError("abort returned")  # pragma: no cover


RETRY_AFTER_S = 0.25
"""The retry hint of a call refused for want of capacity: about one typical solve."""


def resource_exhausted_status(sentence: str, retry_after_s: float = RETRY_AFTER_S) -> grpc.Status:
    """RESOURCE_EXHAUSTED with a ``google.rpc.RetryInfo`` saying when to try again."""
    retry = error_details_pb2.RetryInfo()
    retry.retry_delay.FromMilliseconds(round(retry_after_s * 1000))
    packed = any_pb2.Any()
    packed.Pack(retry)
    status = status_pb2.Status(
        code=code_pb2.RESOURCE_EXHAUSTED,
        message=_truncate(sentence, MAX_MESSAGE_CHARS),
        details=[packed],
    )
    converted: grpc.Status = rpc_status.to_status(status)
    return converted


def abort_resource_exhausted(
    context: grpc.ServicerContext, sentence: str, retry_after_s: float = RETRY_AFTER_S
) -> NoReturn:
    """Abort the call with RESOURCE_EXHAUSTED (a bound was exceeded), a sentence and a
    ``google.rpc.RetryInfo`` hint."""
    context.abort_with_status(resource_exhausted_status(sentence, retry_after_s))
    raise AssertionError("abort returned")  # pragma: no cover


def _truncate(message: str, limit: int) -> str:
    """Keep status texts short enough for the trailers (a quoted 4 MiB code must not go back)."""
    return message if len(message) <= limit else message[: limit - 3] + "..."
