"""Issue #53's evidence for the fishing games: ValidatePlay's suggestion equals the
brute-force reference key by key (same card, kept groups, proposed items, extra items, same
action, same build value, SolvePlay's key) on random illegal proposals made as players err
(F3-F7), and each suggestion is legal for the reference. ``make test`` runs
CARROSSEL_FISHING_SUGGEST_PROPOSALS per game (100 by default);
``python -m bench.fishing_suggest_differential`` runs 1,000 per game."""

from __future__ import annotations

import os

import pytest

from tests.fishing_suggest_differential import compare
from tests.reference.fishing_proposals import MISTAKES

GAMES = ("carosello", "carrusel", "karusele")
PROPOSALS = int(os.environ.get("CARROSSEL_FISHING_SUGGEST_PROPOSALS", "100"))
SHOWN = 5


@pytest.mark.parametrize("ruleset", GAMES)
def test_f3_f7_suggestion_equals_the_reference(ruleset: str) -> None:
    results = list(compare(ruleset, PROPOSALS))
    assert len(results) == PROPOSALS
    wrong = [r for r in results if not r.agrees]
    shown = "\n".join(r.where for r in wrong[:SHOWN])
    assert not wrong, f"{len(wrong)} of {len(results)} proposals disagree:\n{shown}"
    # Every kind of mistake is made, and the answers cover each key: a group kept, another
    # card offered, a build suggested.
    assert {r.mistake for r in results} == set(MISTAKES)
    found = [r.got for r in results if r.got is not None]
    assert any(key[1] > 0 for key in found)
    assert any(key[0] == 0 for key in found)
    assert any(key[0] == 1 for key in found)
