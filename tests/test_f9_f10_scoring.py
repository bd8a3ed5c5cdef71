"""F8-F10: deal points with their ties, totals, game end (vectors in deals.toml), plus
properties: the points of a 56-card deal add up to 30 unless three sides tie."""

from __future__ import annotations

import random

import pytest

from solver.core.errors import InvalidRequest
from solver.fishing.scoring import most_prize, parse_deal, score_deal
from tests.fishing_vectors import Case, params, piles


@pytest.mark.parametrize("case", params("deals"))
def test_f9_f10_deal_vectors(case: Case) -> None:
    rules, deck, parsed = parse_deal(
        case["ruleset"],
        case["deck_size"],
        piles(case),
        case["totals_before"],
        case.get("omit_broom", False),
    )
    score = score_deal(rules, deck, parsed, case["totals_before"])
    expect = case["expect"]
    assert list(score.points) == expect["points"]
    assert list(score.totals_after) == expect["totals_after"]
    assert (score.game_over, score.winner, score.another_deal) == (
        expect["game_over"],
        expect["winner"],
        expect["another_deal"],
    )
    for side, points in enumerate(score.points):
        assert sum(line.points for line in score.lines if line.side == side) == points
    assert all(line.rule == "F9" and line.text for line in score.lines)


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ([20, 36], (0, 2)),
        ([28, 28], (1, 1)),
        ([18, 18, 18], (0, 0, 0)),
        ([20, 20, 16], (1, 1, 0)),
        ([10, 30, 16], (0, 2, 0)),
    ],
)
def test_f9_most_prize_ties(counts: list[int], expected: tuple[int, ...]) -> None:
    """F9: the most takes 2; two tied 1 each; three or more tied nobody."""
    assert most_prize(counts, 2) == expected


@pytest.mark.parametrize("seed", range(40))
def test_f9_a_56_card_deal_is_worth_30_between_two_sides(seed: int) -> None:
    """003: «In una distribuzione di carte da 56 carte ci sono 30 punti» — for any split."""
    rng = random.Random(seed)
    case: Case = {
        "ruleset": rng.choice(["carosello", "carrusel", "karusele"]),
        "deck_size": 56,
        "piles": ["rest"],
    }
    every = piles(case)[0]
    rng.shuffle(every)
    cut = rng.randint(0, len(every))
    rules, deck, parsed = parse_deal(case["ruleset"], 56, [every[:cut], every[cut:]], [])
    assert sum(score_deal(rules, deck, parsed, []).points) == 30


def test_f9_piles_are_scored_as_given() -> None:
    """F9 on partial piles: two sides with as many cards tie for "most cards" (1 each); the
    prize-suit leader takes 2; cards nobody listed count for nobody."""
    rules, deck, parsed = parse_deal("carrusel", 56, [["AC", "2C", "7D"], ["JK20", "5H", "9S"]], [])
    score = score_deal(rules, deck, parsed, [])
    assert score.points == (1 + 2 + 1 + 2, 10 + 1)


def test_f1_a_card_in_two_piles_is_malformed() -> None:
    """F1: one copy of each card; a card in two piles (or outside the deck) is malformed."""
    with pytest.raises(InvalidRequest) as caught:
        parse_deal("carosello", 54, [["7H", "JK20"], ["7H"]], [])
    assert [p.field for p in caught.value.problems] == ["piles[0].cards[1]", "piles[1].cards[0]"]
