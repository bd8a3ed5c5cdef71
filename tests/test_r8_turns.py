"""R8 turn rules: the draw matrix per draw rule, and the search oracle of shangai and
manipulation (verdicts with the real CP-SAT search are in the vectors)."""

from __future__ import annotations

import pytest

from solver.core.violations import ViolationCode
from solver.rearrangement.search import validate_move
from solver.rummy.position import Position, Turn, parse_move, parse_position

# (ruleset, cards_drawn, stock_empty) -> the draw-rule codes of a play (R8).
DRAWS = [
    ("carrossel", 0, False, {"DRAW_RULE"}),
    ("carrossel", 0, True, set()),
    ("carrossel", 1, False, set()),
    ("carrossel", 2, False, set()),
    ("carrossel", 3, False, {"DRAW_RULE", "TURN_OVER"}),
    ("mexe-mexe", 0, False, {"DRAW_RULE"}),
    ("mexe-mexe", 0, True, set()),
    ("mexe-mexe", 1, False, set()),
    ("mexe-mexe", 2, False, {"DRAW_RULE"}),
    ("vatikan", 0, False, set()),
    ("vatikan", 1, False, {"DRAW_RULE", "TURN_OVER"}),
    ("rummikub", 0, False, set()),
    ("rummikub", 1, True, {"DRAW_RULE", "TURN_OVER"}),
    ("shangai", 0, False, set()),
    ("shangai", 4, False, set()),
    ("manipulation", 2, False, set()),
]


def _position(ruleset: str, drawn: int = 0, stock_empty: bool = False) -> Position:
    table = [["4H", "5H", "6H"]]
    turn = Turn(
        cards_drawn=drawn, stock_empty=stock_empty, has_melded_sequence=True, has_opened=True
    )
    return parse_position(ruleset, 2, table, ["7H", "KC"], turn)


@pytest.mark.parametrize(("ruleset", "drawn", "stock_empty", "codes"), DRAWS)
def test_r8_draws_before_a_play(
    ruleset: str, drawn: int, stock_empty: bool, codes: set[str]
) -> None:
    pos = _position(ruleset, drawn, stock_empty)
    verdict = validate_move(
        pos, parse_move(pos, [["4H", "5H", "6H", "7H"]]), max_placed=lambda p, max_new_melds: 1
    )
    assert {v.code.name for v in verdict.violations} == codes


@pytest.mark.parametrize(
    ("ruleset", "drawn", "legal"),
    [
        ("carrossel", 0, True),
        ("carrossel", 3, True),
        ("carrossel", 4, False),
        ("mexe-mexe", 0, True),
        ("mexe-mexe", 1, True),
        ("mexe-mexe", 2, False),
        ("vatikan", 1, True),
        ("vatikan", 2, False),
        ("rummikub", 1, True),
        ("shangai", 7, True),
    ],
)
def test_r8_a_pass_breaks_only_an_impossible_draw_count(
    ruleset: str, drawn: int, legal: bool
) -> None:
    pos = _position(ruleset, drawn)
    verdict = validate_move(
        pos, parse_move(pos, [["4H", "5H", "6H"]]), max_placed=lambda p, max_new_melds: 0
    )
    assert verdict.legal is legal
    assert all(v.code is ViolationCode.DRAW_RULE for v in verdict.violations)


class Oracle:
    """A stand-in for solver.rearrangement.search.max_cards_placed that records its questions."""

    def __init__(self, add: int, any_play: int) -> None:
        self.answers = {0: add, 1: any_play}
        self.asked: list[int | None] = []

    def __call__(self, position: Position, *, max_new_melds: int | None) -> int:
        self.asked.append(max_new_melds)
        return self.answers[max_new_melds or 0]


def test_r8_add_asks_for_the_largest_add() -> None:
    oracle = Oracle(add=2, any_play=2)
    pos = parse_position("shangai", 2, [["8C", "9D", "10H"]], ["7S", "JC"])
    verdict = validate_move(pos, parse_move(pos, [["7S", "8C", "9D", "10H"]]), max_placed=oracle)
    assert verdict.codes == (ViolationCode.ADD_NOT_MAXIMAL,)
    assert oracle.asked == [0]
    # SPEC §4: the message names the cards; the add's own are those it placed.
    [violation] = verdict.violations
    assert violation.cards == ("7S",) and "(7♠)" in violation.message


def test_r8_an_add_of_the_whole_hand_asks_nothing() -> None:
    """No add places more cards than the hand holds, so "both must go" needs no search."""
    oracle = Oracle(add=2, any_play=2)
    pos = parse_position("shangai", 2, [["8C", "9D", "10H"]], ["7S", "JC"])
    verdict = validate_move(
        pos, parse_move(pos, [["7S", "8C", "9D", "10H", "JC"]]), max_placed=oracle
    )
    assert verdict.legal and oracle.asked == []


def test_r8_pass_asks_whether_any_play_exists() -> None:
    oracle = Oracle(add=0, any_play=3)
    pos = parse_position("manipulation", 2, [["8C", "9D", "10H"]], ["5S", "5C", "5D"])
    verdict = validate_move(pos, parse_move(pos, [["8C", "9D", "10H"]]), max_placed=oracle)
    assert verdict.codes == (ViolationCode.MUST_PLAY,)
    assert oracle.asked == [1]


def test_r8_new_meld_is_not_an_add() -> None:
    oracle = Oracle(add=5, any_play=5)
    pos = parse_position("manipulation", 2, [["8C", "9D", "10H"]], ["5S", "5C", "5D", "7S"])
    verdict = validate_move(
        pos, parse_move(pos, [["8C", "9D", "10H"], ["5S", "5C", "5D"]]), max_placed=oracle
    )
    assert verdict.legal and oracle.asked == []


def test_r8_search_rules_can_be_switched_off() -> None:
    def never(position: Position, *, max_new_melds: int | None) -> int:
        raise AssertionError("the search must not be asked")

    pos = parse_position("shangai", 2, [["8C", "9D", "10H"]], ["7S", "JC"])
    mv = parse_move(pos, [["7S", "8C", "9D", "10H"]])
    assert validate_move(pos, mv, max_placed=never, search_rules=False).legal


def test_r8_rules_without_search_never_ask() -> None:
    def never(position: Position, *, max_new_melds: int | None) -> int:
        raise AssertionError("the search must not be asked")

    pos = _position("carrossel", 1)
    assert validate_move(pos, parse_move(pos, [["4H", "5H", "6H"]]), max_placed=never).legal
