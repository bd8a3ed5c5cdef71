"""Issue #53's evidence for carioca: the CP-SAT suggestion (solver/contract/suggest.py) equals
the brute-force reference (tests/reference/carioca_suggest_oracle.py) key by key — hand cards
laid, proposal melds kept, melds changed, the proposal's discard, points left (C7) — on random
illegal proposals across the seven contracts (C2), before opening (C2-C4) and after (C5), and
every suggestion is a legal turn (C2-C6). ``make test`` runs CARROSSEL_CARIOCA_SUGGEST_PROPOSALS
(150 by default); ``python -m bench.carioca_suggest_differential`` runs 1,000 or more."""

from __future__ import annotations

import os

from tests.carioca_suggest_differential import compare

PROPOSALS = int(os.environ.get("CARROSSEL_CARIOCA_SUGGEST_PROPOSALS", "150"))
SHOWN = 5


def test_suggestion_equals_the_reference() -> None:
    results = list(compare(PROPOSALS))
    assert len(results) == PROPOSALS
    wrong = [r for r in results if not r.agrees]
    shown = "\n".join(r.where for r in wrong[:SHOWN])
    assert not wrong, f"{len(wrong)} of {len(results)} proposals disagree:\n{shown}"
    # The proposals exercise every answer: none, a full match, a partial one, kept melds,
    # melds changed, both sides of the opening and every contract.
    assert any(r.got is None for r in results)
    assert any(r.got and r.got[1] > 0 for r in results)
    assert any(r.got and r.got[2] < 0 for r in results)
    assert any(r.got and r.opened for r in results)
    assert any(r.got and not r.opened for r in results)
    assert {r.deal for r in results} == set(range(1, 8))
