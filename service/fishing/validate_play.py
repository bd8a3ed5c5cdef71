"""FishingService.ValidatePlay: the referee's verdict on one play (F1-F7), decided directly."""

from __future__ import annotations

from carrossel.v1 import fishing_pb2
from service.fishing import convert
from solver.core.errors import InvalidRequest, ProblemCollector
from solver.fishing.plays import Play
from solver.fishing.position import Position
from solver.fishing.referee import judge


def parse_request(request: fishing_pb2.ValidatePlayRequest) -> tuple[Position, Play]:
    """The position and the play; a bad field in either is reported with the other's."""
    problems = ProblemCollector()
    position: Position | None = None
    play: Play | None = None
    try:
        position = convert.position_from_proto(request.position)
    except InvalidRequest as error:
        problems.extend(error)
    try:
        play = convert.play_from_proto(request.play, len(request.position.table))
    except InvalidRequest as error:
        problems.extend(error)
    problems.raise_if_any()
    assert position is not None and play is not None
    return position, play


def handle(request: fishing_pb2.ValidatePlayRequest) -> fishing_pb2.ValidatePlayResponse:
    position, play = parse_request(request)
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
