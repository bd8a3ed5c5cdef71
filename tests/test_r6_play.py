"""R6 internals: card flow counted by code, and what counts as a changed table."""

from __future__ import annotations

from collections import Counter

from solver.core.cards import Card, parse_table_card
from solver.core.rulesets import CARROSSEL
from solver.rearrangement.search import validate_move
from solver.rummy.conservation import count_flow
from solver.rummy.position import Turn, parse_move, parse_position
from solver.rummy.table_change import meld_key, table_change


def melds(*texts: str) -> list[list[str]]:
    return [t.split() for t in texts]


def test_r6_flow_with_duplicates() -> None:
    pos = parse_position("carrossel", 3, melds("4H 5S 6D"), ["6D", "6C", "7C"], Turn(cards_drawn=1))
    mv = parse_move(pos, melds("4H 5S 6D 7C", "6D 6C 6H"))
    flow = count_flow(pos, mv)
    assert flow.played == Counter(
        {Card(7, "C"): 1, Card(6, "D"): 1, Card(6, "C"): 1, Card(6, "H"): 1}
    )
    # Only what the hand really holds was played; the 6♥ is CARD_NOT_IN_HAND.
    assert flow.played_cards == (Card(6, "C"), Card(6, "D"), Card(7, "C"))
    assert not flow.removed


def test_r6_group_order_and_annotations_do_not_change_the_table() -> None:
    before = [tuple(parse_table_card(c) for c in ["9H", "9C", "JK=9"])]
    after = [tuple(parse_table_card(c) for c in ["JK", "9C", "9H"])]
    assert not table_change(CARROSSEL, before, after).changed
    seq_before = [tuple(parse_table_card(c) for c in ["7H", "8S", "JK"])]
    seq_after = [tuple(parse_table_card(c) for c in ["JK", "7H", "8S"])]
    assert table_change(CARROSSEL, seq_before, seq_after).changed


def test_r6_meld_key_sorts_groups_only() -> None:
    group = [parse_table_card(c) for c in ["9S", "9C", "JK"]]
    seq = [parse_table_card(c) for c in ["9S", "10C", "JK"]]
    assert meld_key(CARROSSEL, group) == ("9C", "9S", "JK")
    assert meld_key(CARROSSEL, seq) == ("9S", "10C", "JK")


def test_r6_every_violation_is_reported_not_just_the_first() -> None:
    pos = parse_position("carrossel", 2, melds("4H 5S 6D 7C"), ["KD"], Turn(cards_drawn=0))
    mv = parse_move(pos, melds("4H 5S 6D", "QD KD JD", "AC 2C 3C"))
    codes = {v.code.name for v in validate_move(pos, mv).violations}
    assert codes == {
        "TABLE_CARD_REMOVED",
        "CARD_NOT_IN_HAND",
        "TOO_MANY_NEW_MELDS",
        "INVALID_MELD",
        "DRAW_RULE",
    }


def test_r6_reordering_a_group_with_a_wild_2_is_a_pass() -> None:
    pos = parse_position("mexe-mexe", 2, melds("2H 7S 7D"), ["KC"], Turn(cards_drawn=1))
    verdict = validate_move(pos, parse_move(pos, melds("7S 2H 7D")))
    assert verdict.legal and not verdict.played


def test_r6_too_many_new_melds_names_the_new_melds() -> None:
    # R6: "At most one new meld per turn"; SPEC §4: the message names the cards.
    pos = parse_position(
        "carrossel", 3, melds("7H 8H 9H"), ["2C", "2D", "2S", "4C", "4D", "4S"], Turn(cards_drawn=1)
    )
    verdict = validate_move(pos, parse_move(pos, melds("7H 8H 9H", "2C 2D 2S", "4C 4D 4S")))
    [violation] = verdict.violations
    assert violation.code.name == "TOO_MANY_NEW_MELDS"
    assert violation.cards == ("2C", "2D", "2S", "4C", "4D", "4S")
    assert "2♣ 2♦ 2♠; 4♣ 4♦ 4♠" in violation.message
