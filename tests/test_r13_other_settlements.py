"""R13 Other settlements (mexe-mexe, vatikan, shangai, manipulation, rummikub): the vectors of
r13_other_settlements.toml, then properties of the penalty and rummikub settlements."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from solver.core.rulesets import MANIPULATION, RUMMIKUB, SHANGAI
from solver.rearrangement.search import Objective, solve_move, validate_move
from solver.rummy.position import Turn, parse_move, parse_position
from solver.rummy.scoring import RoundEnd, RoundToScore, score_round
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


@pytest.mark.parametrize(
    ("ruleset", "hand", "left", "points"),
    [
        # 8H lays off; A, the natural 2 and K are left: 1 + 2 + 10 (a 2 in hand counts 2).
        ("mexe-mexe", ["8H", "2C", "KS", "AD"], ["AD", "2C", "KS"], 13),
        # 8H lays off; the joker and the 5 are left: 25 + 5.
        ("vatikan", ["8H", "JK", "5S"], ["5S", "JK"], 30),
    ],
)
def test_r13_hands_that_do_not_score_are_counted_in_face_values(
    ruleset: str, hand: list[str], left: list[str], points: int
) -> None:
    """R13: "mexe-mexe, vatikan: no points". docs/rules.md's choice for hand_points_after
    there: carrossel's face values, a ranking of hands for the fewest-points hint."""
    position = parse_position(
        ruleset,
        2,
        [["5H", "6H", "7H"]],
        hand,
        Turn(cards_drawn=1 if ruleset == "mexe-mexe" else 0, has_opened=True),
    )
    assert not position.ruleset.scoring.hands_score
    verdict = validate_move(position, parse_move(position, [["5H", "6H", "7H", "8H"]]))
    assert verdict.legal
    assert sorted(c.code for c in verdict.hand_after) == sorted(left)
    assert verdict.hand_points_after == points
    best = solve_move(position, Objective.FEWEST_POINTS).moves[0].verdict
    assert best.hand_points_after <= points
    assert best.hand_points_after == position.ruleset.hand_points(best.hand_after)
