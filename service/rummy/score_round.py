"""RummyService.ScoreRound: settle the end of a round (R11-R13, C7-C8) with its line items.

The request is parsed by ``solver.rummy.scoring.parse_round`` (it reports every bad field; paths
are top-level, as ScoreRound's fields are) and settled by ``solver.rummy.scoring.score_round``.
``InvalidRequest`` becomes INVALID_ARGUMENT + BadRequest in the interceptor.
"""

from __future__ import annotations

import grpc

from carrossel.v1 import common_pb2, rummy_pb2
from solver.rummy.scoring import RoundEnd, RoundScore, RoundToScore, parse_round, score_round

_FROM_PROTO: dict[int, RoundEnd] = {
    int(rummy_pb2.RoundEnd.Value(f"ROUND_END_{end.name}")): end for end in RoundEnd
}


def round_end_from_proto(value: int) -> RoundEnd | None:
    """The domain round end of a proto ``RoundEnd`` value; None for UNSPECIFIED or unknown."""
    return _FROM_PROTO.get(value)


def round_from_proto(request: rummy_pb2.ScoreRoundRequest) -> RoundToScore:
    """Parse and check a ScoreRound request, or raise ``InvalidRequest``."""
    return parse_round(
        request.ruleset,
        request.players,
        round_end_from_proto(request.end),
        request.ender,
        [list(hand.cards) for hand in request.hands],
        list(request.totals_before),
        list(request.rounds_won_before),
        request.deal_number,
        request.game_limit if request.HasField("game_limit") else None,
    )


def score_to_proto(score: RoundScore) -> rummy_pb2.ScoreRoundResponse:
    return rummy_pb2.ScoreRoundResponse(
        round_points=score.round_points,
        winners=score.winners,
        totals_after=score.totals_after,
        game_over=score.game_over,
        final_scores=score.final_scores,
        game_winners=score.game_winners,
        lines=[
            common_pb2.ScoreLine(
                player=line.player, text=line.text, points=line.points, rule=line.rule
            )
            for line in score.lines
        ],
        another_hand=score.another_hand,
        void_deal=score.void_deal,
        rounds_won_after=score.rounds_won_after,
    )


def handle(
    request: rummy_pb2.ScoreRoundRequest, context: grpc.ServicerContext
) -> rummy_pb2.ScoreRoundResponse:
    """Answer ScoreRound."""
    del context
    return score_to_proto(score_round(round_from_proto(request)))
