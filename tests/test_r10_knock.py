"""R9 going out and R10 knock eligibility (verdicts in r10_knock.toml)."""

from __future__ import annotations

import pytest

from solver.core.rulesets import CARROSSEL, MEXE_MEXE, RUMMIKUB
from solver.rearrangement.turns import knock_eligible


@pytest.mark.parametrize(
    ("points", "eligible"), [(0, False), (1, True), (5, True), (6, False), (25, False)]
)
def test_r10_threshold(points: int, eligible: bool) -> None:
    assert knock_eligible(CARROSSEL, played=1, hand_points=points) is eligible


def test_r10_needs_a_card_played() -> None:
    assert not knock_eligible(CARROSSEL, played=0, hand_points=3)


@pytest.mark.parametrize("ruleset", [MEXE_MEXE, RUMMIKUB])
def test_r10_only_where_the_ruleset_knocks(ruleset: object) -> None:
    assert not knock_eligible(ruleset, played=1, hand_points=3)  # type: ignore[arg-type]
