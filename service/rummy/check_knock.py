"""RummyService.CheckKnock (R10): may the player knock after this move, or can they this turn?"""

from __future__ import annotations

import grpc

from carrossel.v1 import rummy_pb2
from service.limits import bounded_search, solve_slot, solve_time_limit_s
from service.rummy import convert
from solver.rearrangement.search import knock_reach, validate_move


def handle(
    call: convert.RummyCall, request: rummy_pb2.CheckKnockRequest, context: grpc.ServicerContext
) -> rummy_pb2.CheckKnockResponse:
    """With a move: is a knock after it allowed, and why not. Without: what is reachable."""
    position = call.position
    threshold = position.ruleset.knock_threshold
    if call.move is not None:
        search = bounded_search(context, request.time_limit_ms)
        verdict = validate_move(position, call.move, max_placed=search)
        reason = ""
        if not threshold:
            reason = f"there is no knock in {position.ruleset.id} (R10)"
        elif not verdict.legal:
            reason = "the move is illegal: " + "; ".join(v.message for v in verdict.violations)
        elif not verdict.knock_eligible:
            reason = _why_not(verdict.hand_points_after, len(verdict.played), threshold)
        return rummy_pb2.CheckKnockResponse(
            eligible=not reason,
            reason=reason,
            hand_points=verdict.hand_points_after,
            optimal=True,
        )
    with solve_slot(context):  # the time waited for the slot counts against the deadline
        limit_ms = int(solve_time_limit_s(request.time_limit_ms, context) * 1000)
        reach = knock_reach(position, limit_ms)
    response = rummy_pb2.CheckKnockResponse(
        hand_points=position.ruleset.hand_points(position.hand),
        best_hand_points=(
            reach.best_hand_points
            if reach.best_hand_points is not None
            else position.ruleset.hand_points(position.hand)
        ),
        can_knock=reach.can_knock,
        can_go_out=reach.can_go_out,
        optimal=reach.optimal,
        time_limited=reach.time_limited,
    )
    if reach.witness is not None:
        response.witness.CopyFrom(convert.move_to_proto(reach.witness.move))
    if reach.knock_witness is not None:
        response.knock_witness.CopyFrom(convert.move_to_proto(reach.knock_witness.move))
        response.knock_hand_points = reach.knock_witness.verdict.hand_points_after
    if not threshold:
        response.reason = f"there is no knock in {position.ruleset.id} (R10)"
    elif reach.best_hand_points is None:
        response.reason = "no legal play exists this turn, so no knock (R10)"
    return response


def _why_not(points: int, played: int, threshold: int) -> str:
    if played == 0:
        return "a knock needs a play that places at least one card from the hand (R10)"
    if points == 0:
        return "the hand is empty: that is going out, not a knock (R9)"
    return f"the hand left is worth {points} points; a knock needs 1-{threshold} (R10)"
