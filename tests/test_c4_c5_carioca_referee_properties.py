"""The carioca referee on moves derived from legal ones (C4-C6): each spoiling of a legal
move must meet exactly the violations its ruling names, on random positions of every deal.

The legal moves are SolveMove's (each already judged legal); the spoilings are:
no discard (C6), a discard the hand no longer holds (C6), a knock (carioca has none),
the same lay-offs by a player who has not opened (C4), the same opening by one who has
(C5: no new melds), a new meld after opening (C5), and a card taken off the table (C5).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from solver.contract.referee import validate_contract_move
from solver.contract.search import ContractSolvedMove, solve_contract_move
from solver.core.cards import Card, TableCard
from solver.core.violations import ViolationCode as Code
from solver.rummy.position import Move, Position, Turn, parse_position
from tests.carioca_positions import layoff_position, opening_position

POSITIONS_PER_DEAL = 40


def _cases(deal: int) -> list[tuple[Position, ContractSolvedMove]]:
    rng = random.Random(4848 + deal)
    out = []
    for i in range(POSITIONS_PER_DEAL):
        rp = opening_position(rng, deal) if i % 2 else layoff_position(rng, deal)
        turn = Turn(cards_drawn=1, has_opened=rp.opened, deal_number=deal)
        position = parse_position("carioca", 2, rp.table, rp.hand, turn)
        out.append((position, solve_contract_move(position, 1, 10_000).moves[0]))
    return out


def codes(position: Position, move: Move) -> Counter[Code]:
    return Counter(v.code for v in validate_contract_move(position, move).violations)


@pytest.mark.parametrize("deal", range(1, 8))
def test_c6_spoiled_discards(deal: int) -> None:
    for position, solved in _cases(deal):
        assert codes(position, replace(solved.move, discard=None)) == {Code.DISCARD_RULE: 1}
        held = Counter(position.hand) - Counter(solved.verdict.played)
        in_play = position.table_cards() + Counter(position.hand)
        absent = next(
            c
            for c in (Card(r, s) for r in range(1, 14) for s in "CDHS")
            if held[c] == 0 and in_play[c] < 2
        )
        assert codes(position, replace(solved.move, discard=absent)) == {Code.DISCARD_RULE: 1}
        assert codes(position, replace(solved.move, knock=True)) == {Code.KNOCK_NOT_ALLOWED: 1}


@pytest.mark.parametrize("deal", range(1, 8))
def test_c4_c5_opened_or_not(deal: int) -> None:
    checked = 0
    for position, solved in _cases(deal):
        if not solved.verdict.played:
            continue
        checked += 1
        opened = not position.turn.has_opened
        flipped = replace(position, turn=replace(position.turn, has_opened=opened))
        found = codes(flipped, solved.move)
        if position.turn.has_opened:
            # The same lay-offs by a player who has not opened: each grown meld (C4).
            assert found == {Code.NOT_OPENED: solved.melds_changed}
        else:
            # The same opening by a player who has: every contract meld is new (C5).
            new = len(solved.move.table) - len(position.table)
            assert found == {Code.TOO_MANY_NEW_MELDS: new}
    assert checked >= POSITIONS_PER_DEAL // 4


@pytest.mark.parametrize("deal", range(1, 8))
def test_c5_new_melds_and_cards_off_the_table(deal: int) -> None:
    for position, solved in _cases(deal):
        if not position.turn.has_opened:
            continue
        kept = list(solved.verdict.hand_after)
        if kept:
            extra = (*solved.move.table, (TableCard(kept[0]),))
            assert codes(position, replace(solved.move, table=extra)) == {
                Code.TOO_MANY_NEW_MELDS: 1
            }
        # A natural card of the table's meld 0 goes missing (to the hand or the pile).
        first = solved.move.table[0]
        before = Counter(tc.card for tc in position.table[0])
        after = Counter(tc.card for tc in first)
        card = next((c for c in before if not c.is_joker and after[c] == before[c]), None)
        if card is None:
            continue  # every natural of meld 0 was laid again from the hand
        gone = next(i for i, tc in enumerate(first) if tc.card == card)
        shorter = (first[:gone] + first[gone + 1 :], *solved.move.table[1:])
        found = codes(position, replace(solved.move, table=shorter))
        assert found[Code.TABLE_CARD_REMOVED] == 1, (position, shorter)


@pytest.mark.parametrize("deal", range(1, 8))
def test_the_order_of_the_moves_melds_does_not_matter(deal: int) -> None:
    # A move may list its melds in any order: each is matched by its cards (docs/rules.md, carioca).
    rng = random.Random(deal)
    for position, solved in _cases(deal):
        melds = list(solved.move.table)
        rng.shuffle(melds)
        verdict = validate_contract_move(position, replace(solved.move, table=tuple(melds)))
        assert verdict.legal, (position, melds, verdict.violations)
        assert verdict.hand_points_after == solved.verdict.hand_points_after
