"""ScoreRound: settle the end of a rummy round and check for the end of the game.

``parse_round`` builds a ``RoundToScore`` from card codes; ``score_round`` settles it.
Both raise ``InvalidRequest`` listing every bad field (paths relative to the request).
How a round is settled is chosen by the ruleset's ``settlement`` kind
(``solver.rummy.scoring.rounds``); how a game ends, by the kind's traits
(``solver.rummy.scoring.game``).
"""

from __future__ import annotations

from collections.abc import Sequence

from solver.core.cards import Card
from solver.core.errors import ProblemCollector
from solver.core.rulesets import RULESETS, get_ruleset
from solver.rummy.position import parse_cards
from solver.rummy.scoring.check import check_round
from solver.rummy.scoring.data import traits
from solver.rummy.scoring.game import game_end
from solver.rummy.scoring.rounds import settle
from solver.rummy.scoring.types import (
    RoundEnd,
    RoundScore,
    RoundToScore,
    ScoreLine,
    parse_round_end,
)

__all__ = [
    "RoundEnd",
    "RoundScore",
    "RoundToScore",
    "ScoreLine",
    "parse_round",
    "parse_round_end",
    "score_round",
]


def score_round(round_: RoundToScore) -> RoundScore:
    """Settle one round (R11-R13, C7-C8); raise ``InvalidRequest`` if it cannot have happened."""
    errors = ProblemCollector()
    check_round(round_, errors)
    errors.raise_if_any()
    outcome = settle(round_)
    totals_after = tuple(b + p for b, p in zip(round_.totals, outcome.round_points, strict=True))
    rounds_won_after = tuple(
        won + (1 if i in outcome.winners else 0) for i, won in enumerate(round_.rounds_won)
    )
    end = game_end(round_, outcome, totals_after, rounds_won_after)
    return RoundScore(
        round_points=outcome.round_points,
        winners=outcome.winners,
        totals_after=totals_after,
        rounds_won_after=rounds_won_after,
        game_over=end.game_over,
        final_scores=end.final_scores,
        game_winners=end.game_winners,
        lines=outcome.lines + end.lines,
        another_hand=end.another_hand,
        void_deal=outcome.void_deal,
    )


def parse_round(
    ruleset_id: str,
    players: int,
    end: RoundEnd | None,
    ender: int,
    hands: Sequence[Sequence[str]],
    totals_before: Sequence[int] = (),
    rounds_won_before: Sequence[int] = (),
    deal_number: int = 0,
    game_limit: int | None = None,
) -> RoundToScore:
    """Build a checked ``RoundToScore`` from card codes, or raise ``InvalidRequest``.

    ``end`` is None when the request did not say how the round ended.
    """
    errors = ProblemCollector()
    ruleset = get_ruleset(ruleset_id)
    if ruleset is None:
        known = ", ".join(r.id for r in RULESETS.values() if traits(r) is not None)
        errors.add("ruleset", f"unknown ruleset {ruleset_id!r} (rummy rulesets: {known})")
    if end is None:
        errors.add("end", "say how the round ended: went out, knock or stock exhausted")
    parsed: list[tuple[Card, ...]] = []
    unreadable: set[int] = set()
    for h, texts in enumerate(hands):
        before = len(errors.problems)
        parsed.append(tuple(parse_cards(texts, f"hands[{h}].cards", errors)))
        if len(errors.problems) > before:
            unreadable.add(h)
    if ruleset is None:
        errors.raise_if_any()
        raise AssertionError("unreachable")  # the unknown ruleset was recorded above
    round_ = RoundToScore(
        ruleset=ruleset,
        players=players,
        end=end or RoundEnd.STOCK_EXHAUSTED,  # a placeholder: end-dependent checks are skipped
        ender=ender,
        hands=tuple(parsed),
        totals_before=tuple(totals_before),
        rounds_won_before=tuple(rounds_won_before),
        deal_number=deal_number,
        game_limit=game_limit,
    )
    check_round(round_, errors, unreadable, end_known=end is not None)
    errors.raise_if_any()
    return round_
