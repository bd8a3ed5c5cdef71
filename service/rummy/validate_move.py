"""RummyService.ValidateMove: legal or not, every violation, and the play's effects.

The servicer has already rejected malformed requests (``convert.validate_move_call``); an
illegal move is a normal answer with ``legal = false`` (SPEC §5). The rules themselves live
in ``solver.rearrangement.referee``.
"""

from __future__ import annotations

import grpc

from carrossel.v1 import rummy_pb2
from service.convert import codes
from service.limits import bounded_search
from service.rummy import convert
from solver.rearrangement.referee import Verdict
from solver.rearrangement.search import validate_move


def verdict_to_proto(verdict: Verdict) -> rummy_pb2.ValidateMoveResponse:
    """The response message of a verdict."""
    return rummy_pb2.ValidateMoveResponse(
        legal=verdict.legal,
        violations=[convert.violation_to_proto(v) for v in verdict.violations],
        played=codes(verdict.played),
        hand_after=codes(verdict.hand_after),
        hand_points_after=verdict.hand_points_after,
        went_out=verdict.went_out,
        knock_eligible=verdict.knock_eligible,
        table=convert.table_to_proto(verdict.table),
    )


def handle(
    call: convert.RummyCall,
    request: rummy_pb2.ValidateMoveRequest,
    context: grpc.ServicerContext,
) -> rummy_pb2.ValidateMoveResponse:
    """Judge the move of the request in its position."""
    assert call.move is not None  # validate_move_call always parses the move
    verdict = validate_move(call.position, call.move, max_placed=bounded_search(context))
    return verdict_to_proto(verdict)
