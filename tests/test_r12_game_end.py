"""R12 Carrossel game end: the vectors of r12_game_end.toml, then properties of the bonuses."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.core.rulesets import CARROSSEL
from solver.rummy.scoring import RoundEnd, RoundToScore, score_round
from tests.score_hands import dealt_rounds
from tests.score_vectors import Case, check_lines_add_up, params, run_case


@pytest.mark.parametrize("case", params("r12_game_end"))
def test_r12_vectors(case: Case) -> None:
    run_case(case)


@st.composite
def rounds_with_history(draw: Any) -> RoundToScore:
    r: RoundToScore = draw(dealt_rounds(CARROSSEL, tuple(RoundEnd)))
    won = draw(st.lists(st.integers(0, 12), min_size=r.players, max_size=r.players))
    return RoundToScore(r.ruleset, r.players, r.end, r.ender, r.hands, r.totals_before, tuple(won))


@settings(max_examples=120, deadline=None)
@given(rounds_with_history())
def test_r12_final_scores_are_totals_plus_bonuses(r: RoundToScore) -> None:
    score = score_round(r)
    target = CARROSSEL.scoring.game_target
    assert target is not None
    assert score.game_over == any(t >= target for t in score.totals_after)
    if not score.game_over:
        assert score.final_scores == () and score.game_winners == ()
        return
    for i, total in enumerate(score.totals_after):
        bonus = 100 if total >= target else 0
        assert score.final_scores[i] == total + bonus + 25 * score.rounds_won_after[i]
    best = max(score.final_scores)
    assert list(score.game_winners) == [i for i, s in enumerate(score.final_scores) if s == best]
    check_lines_add_up(score, r.totals_before)
