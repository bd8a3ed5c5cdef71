"""FishingService.ValidatePlay: the referee's verdict on one play (F1-F7), decided directly."""

from __future__ import annotations

from carrossel.v1 import fishing_pb2
from service.fishing import convert
from solver.fishing.referee import judge


def handle(request: fishing_pb2.ValidatePlayRequest) -> fishing_pb2.ValidatePlayResponse:
    position = convert.position_from_proto(request.position)
    play = convert.play_from_proto(request.play, len(position.table))
    verdict = judge(position, play)
    answer = fishing_pb2.ValidatePlayResponse(
        legal=verdict.legal,
        violations=[convert.violation_to_proto(v) for v in verdict.violations],
    )
    if verdict.outcome is not None:
        answer.captured.extend(convert.codes(verdict.outcome.captured))
        answer.table_after.extend(convert.table_to_proto(verdict.outcome.table_after))
        answer.deal_points = verdict.outcome.deal_points
    return answer
