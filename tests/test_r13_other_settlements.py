"""R13 Other settlements (mexe-mexe, vatikan, shangai, manipulation, rummikub): the vectors of
r13_other_settlements.toml, then properties of the penalty and rummikub settlements."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from solver.rulesets import MANIPULATION, RUMMIKUB, SHANGAI
from solver.scoring import RoundEnd, RoundToScore, score_round
from tests.score_hands import dealt_rounds
from tests.score_vectors import Case, check_lines_add_up, params, run_case

BOTH_ENDS = (RoundEnd.WENT_OUT, RoundEnd.STOCK_EXHAUSTED)


@pytest.mark.parametrize("case", params("r13_other_settlements"))
def test_r13_vectors(case: Case) -> None:
    run_case(case)


@settings(max_examples=100, deadline=None)
@given(dealt_rounds(RUMMIKUB, BOTH_ENDS))
def test_r13_rummikub_rounds_sum_to_zero(r: RoundToScore) -> None:
    score = score_round(r)
    assert sum(score.round_points) == 0
    assert all(score.round_points[w] >= 0 for w in score.winners)
    assert all(p <= 0 for i, p in enumerate(score.round_points) if i not in score.winners)
    assert not score.game_over  # no target unless the request agrees one
    check_lines_add_up(score, r.totals_before)


@settings(max_examples=100, deadline=None)
@given(dealt_rounds(SHANGAI, (RoundEnd.WENT_OUT,)))
def test_r13_shangai_one_penalty_point_per_card(r: RoundToScore) -> None:
    r = RoundToScore(r.ruleset, r.players, r.end, r.ender, r.hands, (0,) * r.players)
    score = score_round(r)
    assert list(score.round_points) == [len(h) for h in r.hands]
    check_lines_add_up(score, r.totals_before)


@settings(max_examples=100, deadline=None)
@given(dealt_rounds(MANIPULATION, (RoundEnd.WENT_OUT,)))
def test_r13_manipulation_game_end(r: RoundToScore) -> None:
    score = score_round(r)
    over_200 = any(t >= 200 for t in score.totals_after)
    low = min(score.totals_after)
    tied = sum(1 for t in score.totals_after if t == low) > 1
    assert score.another_hand == (over_200 and tied)
    assert score.game_over == (over_200 and not tied)
    if score.game_over:
        assert list(score.game_winners) == [score.totals_after.index(low)]
