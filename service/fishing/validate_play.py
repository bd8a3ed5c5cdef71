"""FishingService.ValidatePlay: the referee's verdict on one play (F1-F7), decided directly;
with ``suggest``, an illegal play's nearest legal play (issue #53), searched like SolvePlay."""

from __future__ import annotations

import grpc

from carrossel.v1 import fishing_pb2
from service.fishing import convert
from service.fishing.solve_play import solved_to_proto
from service.limits import solve_slot, solve_time_limit_s
from solver.core.errors import InvalidRequest, ProblemCollector
from solver.fishing.plays import Play
from solver.fishing.position import Position
from solver.fishing.referee import judge
from solver.fishing.suggest import suggest_play


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


def handle(
    request: fishing_pb2.ValidatePlayRequest, context: grpc.ServicerContext
) -> fishing_pb2.ValidatePlayResponse:
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
    if request.suggest and not verdict.legal:
        add_suggestion(answer, position, play, context)
    return answer


def add_suggestion(
    answer: fishing_pb2.ValidatePlayResponse,
    position: Position,
    proposal: Play,
    context: grpc.ServicerContext,
) -> None:
    """Fill the nearest legal play within the call's deadline, holding a solve slot; the
    solver re-checks it with the referee before it returns it."""
    with solve_slot(context):  # the time waited for the slot counts against the deadline
        limit_ms = int(solve_time_limit_s(0, context) * 1000)
        suggestion = suggest_play(position, proposal, limit_ms)
    answer.suggestion_optimal = suggestion.optimal
    answer.suggestion_note = suggestion.note
    found = suggestion.play
    if found is None:
        return
    answer.nearest_legal.CopyFrom(solved_to_proto(found.solved))
    answer.nearest_kept_groups.extend(found.kept)
    answer.nearest_same_card = found.closeness.same_card
    answer.nearest_proposed_items.extend(found.proposed_items)
    answer.nearest_extra_items.extend(found.extra_items)
