"""FishingService.ScoreDeal: every side's deal points with line items (F9), game end (F10)."""

from __future__ import annotations

from carrossel.v1 import common_pb2, fishing_pb2
from service.fishing import convert
from solver.fishing.scoring import parse_deal, score_deal


def handle(request: fishing_pb2.ScoreDealRequest) -> fishing_pb2.ScoreDealResponse:
    convert.check_size((c for pile in request.piles for c in pile.cards), "piles")
    rules, deck, piles = parse_deal(
        request.ruleset,
        request.deck_size,
        [list(p.cards) for p in request.piles],
        list(request.totals_before),
        request.omit_broom,
    )
    score = score_deal(rules, deck, piles, list(request.totals_before))
    return fishing_pb2.ScoreDealResponse(
        points=list(score.points),
        lines=[
            common_pb2.ScoreLine(
                player=line.side, text=line.text, points=line.points, rule=line.rule
            )
            for line in score.lines
        ],
        totals_after=list(score.totals_after),
        game_over=score.game_over,
        winner=score.winner,
        another_deal=score.another_deal,
    )
