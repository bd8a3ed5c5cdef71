"""Helpers of the deployment tests (issue 52): a server of one's own, statuses, details."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from carrossel.v1 import rummy_pb2
from service.server import CarrosselServer, ServeOptions, build_server

# A legal carrossel move (R5's seed: the joker stays a 9 when the 6 is laid before the run).
CARROSSEL_MOVE = rummy_pb2.ValidateMoveRequest(
    position=rummy_pb2.RummyPosition(
        ruleset="carrossel",
        players=2,
        table=[rummy_pb2.Meld(cards=["7H", "8S", "JK=9"])],
        hand=["6H"],
        turn=rummy_pb2.Turn(cards_drawn=1),
    ),
    move=rummy_pb2.RummyMove(table=[rummy_pb2.Meld(cards=["6H", "7H", "8S", "JK=9"])]),
)


@contextmanager
def own_server(options: ServeOptions | None = None) -> Iterator[CarrosselServer]:
    """A server of the test's own on a free loopback port, stopped afterwards."""
    built = build_server("127.0.0.1:0", options=options or ServeOptions())
    try:
        yield built
    finally:
        built.stop(grace=None).wait(5)
        built.capacity.shutdown()


def error_of(call: Any, request: Any, **kwargs: Any) -> grpc.RpcError:
    """The error a call ends with (the test fails if it is answered)."""
    try:
        call(request, **kwargs)
    except grpc.RpcError as error:
        return error
    raise AssertionError("the call was answered")


def retry_delay_s(error: grpc.RpcError) -> float | None:
    """The ``google.rpc.RetryInfo`` hint of an error, in seconds, if it has one."""
    status = rpc_status.from_call(error)
    for detail in status.details if status else ():
        info = error_details_pb2.RetryInfo()
        if detail.Unpack(info):
            return float(info.retry_delay.ToMilliseconds()) / 1000.0
    return None


def field_violations(error: grpc.RpcError) -> dict[str, str]:
    """The ``google.rpc.BadRequest`` field violations of an error, by field path."""
    status = rpc_status.from_call(error)
    found: dict[str, str] = {}
    for detail in status.details if status else ():
        bad = error_details_pb2.BadRequest()
        if detail.Unpack(bad):
            found.update({v.field: v.description for v in bad.field_violations})
    return found


class Gate:
    """A request iterator that sends nothing until opened: an idle client stream."""

    def __init__(self) -> None:
        self.opened = threading.Event()

    def __iter__(self) -> Iterator[Any]:
        self.opened.wait()
        yield from ()
