"""R3's reasons for an invalid group name the group's fault, wilds' written values included."""

from __future__ import annotations

import pytest

from solver.core.errors import ProblemCollector
from solver.core.rulesets import RULESETS
from solver.rummy.melds import classify
from solver.rummy.position import parse_melds


@pytest.mark.parametrize(
    ("meld", "reason"),
    [
        # SPEC R3: "3 or 4 cards of one rank, natural suits all different". Two wilds
        # written as 7♥ beside a 7♠ are a group of 7s with two hearts; the reason used to
        # speak of a sequence (an audit, 2026-12-02).
        ("JK=7H JK=7H 7S", "two 7♥ in one group; a group's suits must all differ (R3)"),
        ("JK=7H 7H 7S", "two 7♥ in one group; a group's suits must all differ (R3)"),
        ("7H 7S 7D 7C JK=7", "a group of 7s has at most 4 cards (R3)"),
        ("JK=9 8H 9S", "a wild's written value does not match its place in the sequence (R2)"),
    ],
)
def test_r3_reason_for_an_invalid_group(meld: str, reason: str) -> None:
    errors = ProblemCollector()
    [cards] = parse_melds([meld.split()], "table", errors)
    assert not errors.problems
    verdict = classify(RULESETS["carrossel"], cards)
    assert not verdict.ok and not verdict.ambiguous
    assert verdict.reason == f"{meld}: {reason}"
