"""RummyService.SolveMove: the best legal moves, found by the CP-SAT model of solver/.

Every move leaves the server re-checked by the referee (inside
``solver.rearrangement.search``).
Solver time is the smaller of ``time_limit_ms`` and the call's deadline (SPEC §5), and
the number of solves running at once is bounded (``service.limits``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import grpc

from carrossel.v1 import rummy_pb2
from service import keep_warm
from service.convert import codes
from service.limits import solve_slot, solve_time_limit_s
from service.rummy import convert
from solver.rearrangement.search import Objective, SolvedMove, SolveResult, solve_move
from solver.rearrangement.turns import draw_violations
from solver.rummy.position import Position

_OBJECTIVES = {
    rummy_pb2.OBJECTIVE_MOST_CARDS: Objective.MOST_CARDS,
    rummy_pb2.OBJECTIVE_FEWEST_POINTS: Objective.FEWEST_POINTS,
    rummy_pb2.OBJECTIVE_GO_OUT: Objective.GO_OUT,
}


def solved_move_to_proto(solved: SolvedMove) -> rummy_pb2.SolvedMove:
    """One solved move with its effects, and which melds it changes (for a UI to highlight)."""
    verdict = solved.verdict
    new = [j for j, changed in enumerate(solved.changed) if changed]
    return rummy_pb2.SolvedMove(
        move=convert.move_to_proto(solved.move),
        played=codes(verdict.played),
        hand_after=codes(verdict.hand_after),
        hand_points_after=verdict.hand_points_after,
        went_out=verdict.went_out,
        knock_eligible=verdict.knock_eligible,
        melds_changed=solved.melds_changed,
        changed_melds=solved.unkept,
        new_melds=new,
    )


def no_play_explained(position: Position, proved: bool) -> tuple[list[rummy_pb2.Violation], str]:
    """Why SolveMove found no move: the draw rule forbids a play this turn (R8, the
    violations ValidateMove gives any play), or no hand card can be laid, or time ran out."""
    violations = draw_violations(position)
    if violations:
        reason = "no play is allowed this turn: " + "; ".join(v.message for v in violations)
    elif proved:
        reason = (
            "no legal play exists: no card of the hand can be laid on this table, alone or "
            "with a rearrangement, without breaking a rule; draw or pass"
        )
    else:
        reason = "no legal play was found before the time limit; none is proved impossible"
    return [convert.violation_to_proto(v) for v in violations], reason


def handle(
    call: convert.RummyCall, request: rummy_pb2.SolveMoveRequest, context: grpc.ServicerContext
) -> rummy_pb2.SolveMoveResponse:
    """Find up to ``max_moves`` distinct legal moves, best first."""
    with solve_slot(context):  # the time waited for the slot counts against the deadline
        limit_ms = int(solve_time_limit_s(request.time_limit_ms, context) * 1000)
        result = _solve(call, request, limit_ms)
    # The same work again on the warm thread until the next call (service/keep_warm.py).
    keep_warm.remember(_Rehearsal(request, limit_ms))
    return _response(call, result)


@dataclass
class _Rehearsal:
    """The call's work again, from its request's bytes to its answer's (thrown away),
    within the call's time limit and the ``left_ms`` the warm thread has left."""

    request: rummy_pb2.SolveMoveRequest
    limit_ms: int

    @functools.cached_property
    def data(self) -> bytes:
        """The request's bytes, written at the first repeat (off the call's path) only."""
        return self.request.SerializeToString()

    def __call__(self, left_ms: int) -> bytes:
        again = rummy_pb2.SolveMoveRequest.FromString(self.data)
        call = convert.solve_move_call(again)
        result = _solve(call, again, min(self.limit_ms, left_ms))
        return _response(call, result).SerializeToString()


def _solve(
    call: convert.RummyCall, request: rummy_pb2.SolveMoveRequest, limit_ms: int
) -> SolveResult:
    objective = _OBJECTIVES.get(request.objective)
    return solve_move(call.position, objective, request.max_moves or 1, limit_ms)


def _response(call: convert.RummyCall, result: SolveResult) -> rummy_pb2.SolveMoveResponse:
    stats = result.stats
    response = rummy_pb2.SolveMoveResponse(
        moves=[solved_move_to_proto(m) for m in result.moves],
        optimal=result.optimal,
        stats=convert.stats_to_proto(stats, len(result.moves), stats.tie_break_proved),
    )
    if not result.moves:
        violations, reason = no_play_explained(call.position, result.optimal)
        response.no_play_violations.extend(violations)
        response.no_play_reason = reason
    return response
