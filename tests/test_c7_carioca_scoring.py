"""C7 Carioca scoring and C8 void deals: the vectors of c7_carioca_scoring.toml, and the
contract line of every deal (C2)."""

from __future__ import annotations

import pytest

from solver.cards import parse_card
from solver.rulesets import CARIOCA
from solver.scoring import RoundEnd, RoundToScore, score_round
from tests.score_vectors import Case, params, run_case


@pytest.mark.parametrize("case", params("c7_carioca_scoring"))
def test_c7_vectors(case: Case) -> None:
    run_case(case)


@pytest.mark.parametrize("deal", range(1, 8))
def test_c2_every_deal_names_its_contract_and_only_deal_7_ends(deal: int) -> None:
    contract = CARIOCA.contract(deal)
    assert contract is not None
    hands = ((), (parse_card("KS"),))
    score = score_round(RoundToScore(CARIOCA, 2, RoundEnd.WENT_OUT, 0, hands, deal_number=deal))
    head = score.lines[0]
    assert head.rule == "C2" and head.text.startswith(f"deal {deal}: contract ")
    assert f"({contract.cards} cards)" in head.text
    assert score.round_points == (0, 10)
    assert score.game_over == (deal == 7)
