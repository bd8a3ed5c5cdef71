"""R11 Carrossel settlement: the vectors of r11_settlement.toml, then properties (hypothesis)
of knock and exhausted-stock settlements over hands dealt from the real deck."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from solver.core.rulesets import CARROSSEL
from solver.rummy.scoring import RoundEnd, RoundToScore, score_round
from tests.score_hands import dealt_rounds
from tests.score_vectors import Case, check_lines_add_up, params, run_case


@pytest.mark.parametrize("case", params("r11_settlement"))
def test_r11_vectors(case: Case) -> None:
    run_case(case)


def expected_winners(r: RoundToScore) -> list[int]:
    """R11's tie rule, written independently: the knocker must be strictly lowest to win."""
    values = [r.ruleset.hand_points(h) for h in r.hands]
    low = min(values)
    lowest = [i for i, v in enumerate(values) if v == low]
    if r.end is RoundEnd.KNOCK and lowest != [r.ender]:
        return [i for i in lowest if i != r.ender]
    return lowest


@settings(max_examples=120, deadline=None)
@given(dealt_rounds(CARROSSEL, (RoundEnd.KNOCK, RoundEnd.STOCK_EXHAUSTED)))
def test_r11_only_the_lowest_score_and_never_negative(r: RoundToScore) -> None:
    score = score_round(r)
    winners = expected_winners(r)
    assert list(score.winners) == winners
    assert all(p >= 0 for p in score.round_points)
    assert all(p == 0 for i, p in enumerate(score.round_points) if i not in winners)
    values = [r.ruleset.hand_points(h) for h in r.hands]
    bonus = CARROSSEL.scoring.knock_bonus if r.end is RoundEnd.KNOCK and winners != [r.ender] else 0
    losers = [i for i in range(r.players) if i not in winners]
    for w in winners:
        assert score.round_points[w] == sum(values[i] - values[w] for i in losers) + bonus
    assert list(score.rounds_won_after) == [int(i in winners) for i in range(r.players)]
    check_lines_add_up(score, r.totals_before)


@settings(max_examples=100, deadline=None)
@given(dealt_rounds(CARROSSEL, (RoundEnd.WENT_OUT,)))
def test_r11_going_out_scores_every_other_hand_plus_25(r: RoundToScore) -> None:
    score = score_round(r)
    others = sum(CARROSSEL.hand_points(h) for h in r.hands)
    assert score.winners == (r.ender,)
    assert score.round_points[r.ender] == others + CARROSSEL.scoring.going_out_bonus
    check_lines_add_up(score, r.totals_before)
