"""Run a RummyService RPC in process, for ``knock`` and the commands' ``--json``.

The command builds the request message from its options and calls the servicer's own method,
so the answer is the message the service would send, and ``--json`` prints it as ``grpcurl``
shows it (the proto's field names, as grpcurl keeps them; default values left out).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import NoReturn, TypeVar, cast

import grpc
from google.protobuf.json_format import MessageToJson
from google.protobuf.message import Message

from carrossel.v1 import rummy_pb2
from service.cli.position_args import split_cards, split_melds, turn_from_args
from solver.core.errors import InvalidRequest


class RpcAborted(Exception):
    """The handler aborted the call (``context.abort``): a status code and its sentence."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self.code = code
        self.details = details


class LocalContext:
    """The few ``grpc.ServicerContext`` calls the rummy handlers make, for a call with no
    deadline: the request's own time limit is the only clock."""

    def time_remaining(self) -> float | None:
        return None

    def abort(self, code: grpc.StatusCode, details: str) -> NoReturn:
        raise RpcAborted(code, details)

    def abort_with_status(self, status: grpc.Status) -> NoReturn:
        raise RpcAborted(status.code, status.details)


def position_to_proto(args: argparse.Namespace) -> rummy_pb2.RummyPosition:
    """The RummyPosition the shared position options describe (defaults applied)."""
    turn = turn_from_args(args)
    return rummy_pb2.RummyPosition(
        ruleset=args.ruleset,
        players=args.players,
        table=[rummy_pb2.Meld(cards=meld) for meld in split_melds(args.table, args.ruleset)],
        hand=split_cards(args.hand, args.ruleset),
        turn=rummy_pb2.Turn(
            cards_drawn=turn.cards_drawn,
            stock_empty=turn.stock_empty,
            has_melded_sequence=turn.has_melded_sequence,
            has_opened=turn.has_opened,
            deal_number=turn.deal_number,
        ),
        discard_top=getattr(args, "discard_top", ""),
    )


def move_to_proto(args: argparse.Namespace) -> rummy_pb2.RummyMove:
    """The RummyMove of ``--after``, ``--to-hand``, ``--knock`` and ``--discard``."""
    return rummy_pb2.RummyMove(
        table=[rummy_pb2.Meld(cards=meld) for meld in split_melds(args.after, args.ruleset)],
        to_hand=split_cards(getattr(args, "to_hand", ""), args.ruleset),
        knock=getattr(args, "knock", False),
        discard=getattr(args, "discard", ""),
    )


Request = TypeVar("Request", bound=Message)
Response = TypeVar("Response", bound=Message)

# Exit status of an answer the service refused: a search left undecided in time is 3, as
# ``validate`` reports it; any other refusal is the request's fault, 2.
_ABORT_EXIT = {grpc.StatusCode.DEADLINE_EXCEEDED: 3}


def call_rpc(
    method: Callable[[Request, grpc.ServicerContext], Response], request: Request
) -> Response | int:
    """The RPC's answer, or the exit status after printing why it has none."""
    try:
        return method(request, cast(grpc.ServicerContext, LocalContext()))
    except InvalidRequest as error:
        print("malformed request:", file=sys.stderr)
        for problem in error.problems:
            print(f"  {problem.field}: {problem.description}", file=sys.stderr)
        return 2
    except RpcAborted as aborted:
        print(f"{aborted.code.name.lower()}: {aborted.details}", file=sys.stderr)
        return _ABORT_EXIT.get(aborted.code, 2)


def print_json(message: Message) -> None:
    """The message as grpcurl prints it."""
    print(MessageToJson(message, preserving_proto_field_name=True))
