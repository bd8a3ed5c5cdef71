"""CP-SAT against the brute force (tests/reference/carioca_bruteforce.py) on random carioca
positions: every contract 1-7 (C2), jokers included (C3, C5), before opening (the best
opening, C2-C4) and after (the best lay-offs, C5), each followed by the discard (C6).

The fewest penalty points left (C7) must be equal on every position; the solver's moves are
re-checked by the referee inside ``solve_contract_move``. The draw decision's baseline (the
hand with the unseen stock card as the discard, solver/contract/draw.py) is compared too.
"""

from __future__ import annotations

import random

import pytest

from solver.contract.search import fewest_points_left, solve_contract_move
from solver.rummy.position import Position, Turn, parse_position
from tests.carioca_positions import RandomPosition, layoff_position, opening_position
from tests.reference import carioca_bruteforce as brute

POSITIONS_PER_CONTRACT = 1000
OPENING_SHARE = 0.6  # the rest are lay-off positions
BASELINE_EVERY = 10  # one position in ten also checks the draw decision's baseline


def _parsed(rp: RandomPosition) -> Position:
    turn = Turn(cards_drawn=1, has_opened=rp.opened, deal_number=rp.deal)
    return parse_position("carioca", 2, rp.table, rp.hand, turn)


def _brute(rp: RandomPosition, discard_required: bool = True) -> int:
    hand = brute.parse_hand(rp.hand)
    if rp.opened:
        return brute.best_after_opening(rp.table, hand, discard_required)
    return brute.best_before_opening(hand, rp.deal, discard_required)


def _positions(deal: int) -> list[RandomPosition]:
    rng = random.Random(2002 + deal)
    openings = int(POSITIONS_PER_CONTRACT * OPENING_SHARE)
    return [
        opening_position(rng, deal) if i < openings else layoff_position(rng, deal)
        for i in range(POSITIONS_PER_CONTRACT)
    ]


@pytest.mark.parametrize("deal", range(1, 8))
def test_fewest_points_left_equal_the_brute_force(deal: int) -> None:
    opened = laid = 0
    for n, rp in enumerate(_positions(deal)):
        position = _parsed(rp)
        result = solve_contract_move(position, 1, 10_000)
        assert result.optimal, rp
        best = result.moves[0].verdict
        assert best.hand_points_after == _brute(rp), rp
        opened += not rp.opened and bool(best.played)
        laid += rp.opened and bool(best.played)
        if n % BASELINE_EVERY == 0:
            points, proved = fewest_points_left(position, 10_000)
            assert proved and points == _brute(rp, discard_required=False), rp
    # The positions are worth comparing: openings and lay-offs are found, not only discards.
    assert opened >= POSITIONS_PER_CONTRACT * OPENING_SHARE * 0.2
    assert laid >= POSITIONS_PER_CONTRACT * (1 - OPENING_SHARE) * 0.3


@pytest.mark.parametrize("deal", [2, 5, 7])
def test_more_moves_come_best_first_and_distinct(deal: int) -> None:
    rng = random.Random(77 + deal)
    for i in range(60):
        rp = opening_position(rng, deal) if i % 2 else layoff_position(rng, deal)
        result = solve_contract_move(_parsed(rp), 5, 10_000)
        points = [m.verdict.hand_points_after for m in result.moves]
        assert points == sorted(points), rp
        assert points[0] == _brute(rp), rp
        keys = {(m.move.table, m.move.discard) for m in result.moves}
        assert len(keys) == len(result.moves), rp
