"""RummyService.ValidateMove and SolveMove for contract rummy (carioca, C2-C7).

The servicer has parsed the request and asked the registry; the rules live in
``solver.contract``. Every solved move has been judged legal by the referee there.
"""

from __future__ import annotations

import grpc

from carrossel.v1 import rummy_pb2
from service.convert import codes
from service.limits import solve_slot, solve_time_limit_s
from service.rummy import convert
from service.rummy.validate_move import verdict_to_proto
from solver.contract.draw import DrawDecision, decide_draw
from solver.contract.referee import validate_contract_move
from solver.contract.search import ContractSolvedMove, ContractSolveResult, solve_contract_move
from solver.contract.suggest import suggest_contract_move
from solver.rummy.melds import card_text
from solver.rummy.position import Meld


def validate(
    call: convert.RummyCall, request: rummy_pb2.ValidateMoveRequest, context: grpc.ServicerContext
) -> rummy_pb2.ValidateMoveResponse:
    """Judge a carioca move: every violation, and the effects of the play and discard; with
    ``suggest``, an illegal move's answer also carries the nearest legal turn (#53)."""
    assert call.move is not None  # validate_move_call always parses the move
    response = verdict_to_proto(validate_contract_move(call.position, call.move))
    if request.suggest and not response.legal:
        add_suggestion(response, call, context)
    return response


def add_suggestion(
    response: rummy_pb2.ValidateMoveResponse,
    call: convert.RummyCall,
    context: grpc.ServicerContext,
) -> None:
    """Fill the nearest legal turn, searched like SolveMove: within the call's deadline and
    holding a solve slot. Re-checked by the carioca referee inside the solver."""
    assert call.move is not None
    with solve_slot(context):  # the time waited for the slot counts against the deadline
        limit_ms = int(solve_time_limit_s(0, context) * 1000)
        suggestion = suggest_contract_move(call.position, call.move, limit_ms)
    response.suggestion_optimal = suggestion.optimal
    response.suggestion_note = suggestion.note
    if suggestion.move is not None:
        solved = suggestion.move.solved
        response.nearest_legal.CopyFrom(solved_move_to_proto(solved, call.position.table))
        response.nearest_kept_melds.extend(suggestion.move.kept)
        response.nearest_same_cards = suggestion.move.same_cards


def solved_move_to_proto(
    solved: ContractSolvedMove, before: tuple[Meld, ...]
) -> rummy_pb2.SolvedMove:
    """One carioca move; meld i of the move continues meld i of the table (lay-offs), and the
    melds past the table's are the opening's."""
    verdict = solved.verdict
    after = solved.move.table
    changed = [i for i, meld in enumerate(before) if i >= len(after) or after[i] != meld]
    new = [*changed, *range(len(before), len(after))]
    return rummy_pb2.SolvedMove(
        move=convert.move_to_proto(solved.move),
        played=codes(verdict.played),
        hand_after=codes(verdict.hand_after),
        hand_points_after=verdict.hand_points_after,
        went_out=verdict.went_out,
        knock_eligible=False,
        melds_changed=solved.melds_changed,
        changed_melds=changed,
        new_melds=[j for j in new if j < len(after)],
    )


def _result_to_proto(
    result: ContractSolveResult, before: tuple[Meld, ...]
) -> rummy_pb2.SolveMoveResponse:
    stats = result.stats
    return rummy_pb2.SolveMoveResponse(
        moves=[solved_move_to_proto(m, before) for m in result.moves],
        optimal=result.optimal,
        # The objective holds the tie-breaks (jokers spent, melds changed): an optimal
        # first move is optimal in them too.
        stats=convert.stats_to_proto(stats, len(result.moves), result.optimal),
    )


def draw_reason(decision: DrawDecision) -> str:
    """What to draw, and why, in a sentence."""
    card = card_text(decision.card)
    if decision.take:
        return (
            f"take {card}: the best turn with it leaves {decision.points_after_taking} points, "
            f"drawing from the stock leaves {decision.points_without} (C6, C7)"
        )
    return (
        f"draw from the stock: taking {card} leaves {decision.points_after_taking} points at "
        f"best, no fewer than the {decision.points_without} left without it (C6, C7)"
    )


def solve(
    call: convert.RummyCall, request: rummy_pb2.SolveMoveRequest, context: grpc.ServicerContext
) -> rummy_pb2.SolveMoveResponse:
    """The best carioca turns, best first; with ``discard_top``, also the draw decision."""
    most_cards = request.objective == rummy_pb2.OBJECTIVE_MOST_CARDS
    max_moves = request.max_moves or 1
    with solve_slot(context):  # the time waited for the slot counts against the deadline
        limit_ms = int(solve_time_limit_s(request.time_limit_ms, context) * 1000)
        if call.discard_top is None:
            return _result_to_proto(
                solve_contract_move(call.position, max_moves, limit_ms, most_cards),
                call.position.table,
            )
        drawn = decide_draw(call.position, call.discard_top, max_moves, limit_ms, most_cards)
    response = _result_to_proto(drawn.solved, call.position.table)
    decision = drawn.decision
    response.take_discard_top = decision.take
    response.draw_advice.CopyFrom(
        rummy_pb2.DrawAdvice(
            discard_top=decision.card.code,
            take_discard_top=decision.take,
            hand_points_after_taking=decision.points_after_taking,
            hand_points_drawing_from_stock=decision.points_without,
            optimal=decision.proved,
            reason=draw_reason(decision),
        )
    )
    return response
