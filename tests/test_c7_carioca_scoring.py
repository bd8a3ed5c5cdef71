"""C7 Carioca scoring and C8 void deals: the vectors of c7_carioca_scoring.toml, and the
contract line of every deal (C2)."""

from __future__ import annotations

import pytest

from solver.core.cards import parse_card
from solver.core.errors import InvalidRequest
from solver.core.rulesets import CARIOCA
from solver.rummy.scoring import RoundEnd, RoundToScore, score_round
from tests.score_vectors import Case, params, run_case


@pytest.mark.parametrize("case", params("c7_carioca_scoring"))
def test_c7_vectors(case: Case) -> None:
    run_case(case)


@pytest.mark.parametrize("deal", range(1, 8))
def test_c2_every_deal_names_its_contract_and_only_deal_7_ends(deal: int) -> None:
    contract = CARIOCA.contract.for_deal(deal)
    assert contract is not None
    hands = ((), (parse_card("KS"),))
    score = score_round(RoundToScore(CARIOCA, 2, RoundEnd.WENT_OUT, 0, hands, deal_number=deal))
    head = score.lines[0]
    assert head.rule == "C2" and head.text.startswith(f"deal {deal}: contract ")
    assert f"({contract.cards} cards)" in head.text
    assert score.round_points == (0, 10)
    assert score.game_over == (deal == 7)


@pytest.mark.parametrize(("deal", "dealt"), [(1, 11), (6, 11), (7, 12)])
def test_c2_c6_no_hand_holds_more_than_the_deal_dealt(deal: int, dealt: int) -> None:
    # C2: "Deals 1–6 deal 11 cards, deal 7 deals 12"; C6: a turn draws 1 and discards 1, so
    # between turns no hand is larger (SPEC §5: impossible card counts are malformed).
    codes = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS"]
    ok = tuple(parse_card(c) for c in codes[:dealt])
    too_many = tuple(parse_card(c) for c in codes[: dealt + 1])
    score_round(RoundToScore(CARIOCA, 2, RoundEnd.WENT_OUT, 0, ((), ok), deal_number=deal))
    with pytest.raises(InvalidRequest) as raised:
        score_round(
            RoundToScore(CARIOCA, 2, RoundEnd.WENT_OUT, 0, ((), too_many), deal_number=deal)
        )
    [problem] = raised.value.problems
    assert problem.field == "hands[1]"
    assert f"{dealt + 1} cards" in problem.description and "(C2, C6)" in problem.description
