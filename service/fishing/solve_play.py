"""FishingService.SolvePlay: the best plays now (CP-SAT, Part 1) or by the deal's end
(exact alpha-beta, Part 2), within the smaller of ``time_limit_ms`` and the deadline."""

from __future__ import annotations

import grpc

from carrossel.v1 import fishing_pb2
from service.fishing import convert
from service.limits import solve_slot, solve_time_limit_s
from solver.core.errors import FieldProblem, InvalidRequest
from solver.fishing.endgame import DealEndPlay, check_complete, solve_deal_end
from solver.fishing.position import Position
from solver.fishing.search import SolvedPlay, solve_plays


def solved_to_proto(solved: SolvedPlay) -> fishing_pb2.SolvedPlay:
    effect = solved.outcome
    return fishing_pb2.SolvedPlay(
        play=convert.play_to_proto(solved.play),
        captured=convert.codes(effect.captured),
        table_after=convert.table_to_proto(effect.table_after),
        deal_points=effect.deal_points,
        prize_suit_cards=effect.prize_suit_cards,
    )


def deal_end_to_proto(found: DealEndPlay) -> fishing_pb2.SolvedPlay:
    message = solved_to_proto(found.solved)
    message.final_points.extend(found.final_points)
    message.final_margin = found.value
    message.line.extend(
        fishing_pb2.LinePlay(player=step.player, play=convert.play_to_proto(step.play))
        for step in found.line
    )
    return message


MAX_PLAYS = 100
"""The most plays one answer lists (each past the first costs one more CP-SAT solve)."""


def _check_max_plays(max_plays: int) -> None:
    if not 0 <= max_plays <= MAX_PLAYS:
        raise InvalidRequest(
            [FieldProblem("max_plays", f"{max_plays}: ask for 0 (meaning 1) to {MAX_PLAYS} plays")]
        )


def handle(
    request: fishing_pb2.SolvePlayRequest, context: grpc.ServicerContext
) -> fishing_pb2.SolvePlayResponse:
    _check_max_plays(request.max_plays)
    position = convert.position_from_proto(request.position)
    if request.horizon == fishing_pb2.HORIZON_DEAL_END:
        return _deal_end(position, request.max_plays, request.time_limit_ms, context)
    with solve_slot(context):  # the time waited for the slot counts against the deadline
        limit_ms = int(solve_time_limit_s(request.time_limit_ms, context) * 1000)
        result = solve_plays(position, request.max_plays, limit_ms)
    return fishing_pb2.SolvePlayResponse(
        plays=[solved_to_proto(p) for p in result.plays],
        optimal=result.optimal,
        solves=result.solves,
    )


def _deal_end(
    position: Position, max_plays: int, time_limit_ms: int, context: grpc.ServicerContext
) -> fishing_pb2.SolvePlayResponse:
    try:
        check_complete(position)
    except InvalidRequest as error:
        raise error.prefixed("position") from None
    with solve_slot(context):  # the time waited for the slot counts against the deadline
        limit_ms = int(solve_time_limit_s(time_limit_ms, context) * 1000)
        result = solve_deal_end(position, max_plays, limit_ms)
    return fishing_pb2.SolvePlayResponse(
        plays=[deal_end_to_proto(p) for p in result.plays]
        + [solved_to_proto(p) for p in result.unsolved],
        optimal=result.optimal,
        nodes=result.nodes,
        deal_end=bool(result.plays),
    )
