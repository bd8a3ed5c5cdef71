"""RummyService.ValidateMove: legal or not, every violation, and the play's effects.

The servicer has already rejected malformed requests (``convert.validate_move_call``); an
illegal move is a normal answer with ``legal = false`` (SPEC §5). The rules themselves live
in ``solver.rearrangement.referee``.
"""

from __future__ import annotations

import grpc

from carrossel.v1 import rummy_pb2
from service.convert import codes
from service.limits import bounded_search, solve_slot, solve_time_limit_s
from service.rummy import convert
from service.rummy.solve_move import solved_move_to_proto
from solver.contract.referee import ContractVerdict
from solver.core.rulesets import Family
from solver.rearrangement.referee import Verdict
from solver.rearrangement.search import validate_move
from solver.rearrangement.suggest import suggest_move
from solver.rummy.position import Move, Position

NOT_FOR_CONTRACT = (
    "No suggestion from the rearrangement search: a contract ruleset's nearest legal turn "
    "is searched by its own handler."
)
"""The note of a contract position given to the rearrangement suggestion: never an answer's
(carioca's ValidateMove is ``service.rummy.contract``'s, with its own suggestion), only a
guard against running the wrong model."""


def verdict_to_proto(verdict: Verdict | ContractVerdict) -> rummy_pb2.ValidateMoveResponse:
    """The response message of a verdict (carioca's too: it has no knock)."""
    response = rummy_pb2.ValidateMoveResponse(
        legal=verdict.legal,
        violations=[convert.violation_to_proto(v) for v in verdict.violations],
        played=codes(verdict.played),
        hand_after=codes(verdict.hand_after),
        hand_points_after=verdict.hand_points_after,
        went_out=verdict.went_out,
        knock_eligible=verdict.knock_eligible,
    )
    convert.add_table(response, "table", verdict.table)
    return response


def handle(
    call: convert.RummyCall,
    request: rummy_pb2.ValidateMoveRequest,
    context: grpc.ServicerContext,
) -> rummy_pb2.ValidateMoveResponse:
    """Judge the move of the request in its position."""
    assert call.move is not None  # validate_move_call always parses the move
    verdict = validate_move(call.position, call.move, max_placed=bounded_search(context))
    response = verdict_to_proto(verdict)
    if request.suggest and not verdict.legal:
        add_suggestion(response, call.position, call.move, context)
    return response


def add_suggestion(
    response: rummy_pb2.ValidateMoveResponse,
    position: Position,
    proposal: Move,
    context: grpc.ServicerContext,
) -> None:
    """Fill the nearest legal move (issue #53), searched like SolveMove: within the call's
    deadline and holding a solve slot. Re-checked by the referee inside the solver."""
    if position.ruleset.family is not Family.REARRANGEMENT:
        response.suggestion_note = NOT_FOR_CONTRACT
        return
    with solve_slot(context):  # the time waited for the slot counts against the deadline
        limit_ms = int(solve_time_limit_s(0, context) * 1000)
        suggestion = suggest_move(position, proposal, limit_ms)
    response.suggestion_optimal = suggestion.optimal
    response.suggestion_note = suggestion.note
    if suggestion.move is not None:
        response.nearest_legal.CopyFrom(solved_move_to_proto(suggestion.move.solved))
        response.nearest_kept_melds.extend(suggestion.move.kept)
        response.nearest_same_cards = suggestion.move.same_cards
