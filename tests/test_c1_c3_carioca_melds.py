"""Carioca's melds (C1, C3, C5): trios and same-suit sequences as opened and as grown, and
the position's table read with the grown rules (solver/contract/melds.py)."""

from __future__ import annotations

import pytest

from solver.contract.melds import check_opening_meld, classify_table_meld, read_continuation
from solver.core.cards import parse_table_card
from solver.core.errors import InvalidRequest
from solver.core.rulesets import CARIOCA, CARROSSEL
from solver.rummy.melds import MeldKind
from solver.rummy.position import Turn, parse_position

RULES = CARIOCA.contract


def meld(text: str) -> tuple:  # type: ignore[type-arg]
    return tuple(parse_table_card(c) for c in text.split())


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("8C 8C 8D", MeldKind.GROUP),  # C3: suits may repeat (two decks)
        ("2S 3S 4S 5S", MeldKind.SEQUENCE),  # C1: 2s are natural
        ("AH 2H 3H 4H", MeldKind.SEQUENCE),  # ace low
        ("JH QH KH AH", MeldKind.SEQUENCE),  # ace high
        ("8C 8D JK", MeldKind.GROUP),
        ("4S JK 6S 7S", MeldKind.SEQUENCE),
    ],
)
def test_c3_opening_shapes(text: str, kind: MeldKind) -> None:
    check = check_opening_meld(CARIOCA, RULES, meld(text))
    assert check.shape_ok and check.reading is not None and check.reading.kind is kind


@pytest.mark.parametrize(
    ("text", "oversize"),
    [
        ("8C JK JK", False),  # C3: at most one joker
        ("4S JK JK 7S", False),
        ("QC KC AC 2C", False),  # no wrap
        ("4S 5S 6H 7S", False),  # one suit
        ("4S 5S 6S", False),  # a sequence has 4
        ("7H 7S 2C", False),  # C1: a 2 is no wild
        ("8C 8D 8H 8S", True),  # C4: an extra card, a valid table meld
        ("4S 5S 6S 7S 8S", True),
    ],
)
def test_c3_not_opening_melds(text: str, oversize: bool) -> None:
    check = check_opening_meld(CARIOCA, RULES, meld(text))
    assert not check.shape_ok
    assert (check.reading is not None and not check.reason) == oversize


@pytest.mark.parametrize(
    "text",
    [
        "8C 8D 8H 8S 8C JK JK",  # C5: trios grow past 3, no joker limit
        "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",  # A-low … A-high
        "JK JK 5S 6S JK",
        "7H JK JK JK=10H",  # a written value settles the reading
    ],
)
def test_c5_table_melds(text: str) -> None:
    assert classify_table_meld(CARIOCA, meld(text)).ok


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("KS AS 2S 3S", "neither a trio"),  # no wrap, even grown
        ("4S 5S 6S", "at least 4"),
        ("7H JK JK JK", "ambiguous"),  # trio of 7s or 7-8-9-10
        ("JK JK JK", "natural"),
        ("9H=9H 9S 9D", "only a wild"),
    ],
)
def test_c5_not_table_melds(text: str, why: str) -> None:
    verdict = classify_table_meld(CARIOCA, meld(text))
    assert not verdict.ok and why in verdict.reason


def test_c5_a_continuation_keeps_kind_rank_and_suit() -> None:
    sequence = classify_table_meld(CARIOCA, meld("4S JK 6S 7S")).reading
    grown = read_continuation(sequence, meld("4S 5S 6S 7S JK JK"))
    assert grown is not None and grown.positions == (4, 5, 6, 7, 8, 9)
    assert read_continuation(sequence, meld("4H 5H 6H 7H")) is None
    trio = classify_table_meld(CARIOCA, meld("7H 7S JK")).reading
    # One natural and three jokers: a trio of 7s here, since it continues one.
    assert read_continuation(trio, meld("7H JK JK JK")) is not None
    assert read_continuation(trio, meld("7H 8H 9H 10H")) is None


def test_c5_the_position_table_follows_the_grown_rules() -> None:
    sequence = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS", "AS"]
    table = [["KS", "KH", "KC", "KD", "KH"], sequence]
    position = parse_position("carioca", 2, table, ["2C"], Turn(deal_number=1, has_opened=True))
    assert [r.reading.kind for r in position.readings] == [MeldKind.GROUP, MeldKind.SEQUENCE]


def test_c5_other_rulesets_keep_their_rules() -> None:
    # The grown-table reading is carioca's alone: carrossel's groups still stop at 4 (R3).
    with pytest.raises(InvalidRequest, match="at most 4"):
        parse_position("carrossel", 3, [["KS", "KH", "KC", "KD", "KH"]], ["2C"], Turn(1))


def test_c1_two_decks_two_copies() -> None:
    with pytest.raises(InvalidRequest, match="3 copies of 8S"):
        parse_position("carioca", 2, [["8S", "8D", "8S"]], ["8S"], Turn(deal_number=1))
    with pytest.raises(InvalidRequest, match="5 copies of JK"):
        parse_position("carioca", 4, [], ["JK"] * 5, Turn(deal_number=1))


def test_carrossel_is_untouched() -> None:
    # The position hook reads carioca's table only: a carrossel group of 3 stays a group.
    position = parse_position("carrossel", 2, [["7H", "7S", "7D"]], ["2C"], Turn(1))
    assert position.readings[0].reading.kind is MeldKind.GROUP and CARROSSEL.meld_rules
