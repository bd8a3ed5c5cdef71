"""R4/R5 wild accounting internals (the vectors in r5_wild_value.toml cover the verdicts)."""

from __future__ import annotations

from solver.core.cards import WildValue
from solver.core.violations import ViolationCode
from solver.rearrangement.search import validate_move
from solver.rearrangement.wilds import before_wilds
from solver.rummy.position import Move, Position, Turn, parse_move, parse_position


def position(
    ruleset: str, table: list[str], hand: str, players: int = 3, cards_drawn: int = 0
) -> Position:
    return parse_position(
        ruleset, players, [m.split() for m in table], hand.split(), Turn(cards_drawn=cards_drawn)
    )


def move(pos: Position, after: list[str], to_hand: str = "") -> Move:
    return parse_move(pos, [m.split() for m in after], to_hand.split())


def test_r5_value_carries_a_suit_only_in_same_suit_sequences() -> None:
    mexe = position("mexe-mexe", ["4H 5H 6H 2C", "9C 9D 2S"], "", cards_drawn=1)
    assert [w.value for w in before_wilds(mexe)] == [WildValue(7, "H"), WildValue(9, None)]
    carrossel = position("carrossel", ["4H 5S 6D JK", "9C 9D JK=9H"], "", cards_drawn=1)
    assert [w.value for w in before_wilds(carrossel)] == [WildValue(7), WildValue(9)]


def test_r5_explanation_blames_only_the_changed_joker() -> None:
    # Jokers worth 9 and 4; after the play one is still a 9 and the other became a 5.
    pos = position("carrossel", ["7H 8S JK=9", "JK=4 5C 6C"], "8C", cards_drawn=1)
    verdict = validate_move(pos, move(pos, ["7H 8S JK", "5C 6C JK 8C"]))
    assert not verdict.legal
    changed = [v for v in verdict.violations if v.code is ViolationCode.WILD_VALUE_CHANGED]
    assert len(changed) == 1
    assert "stood for 4" in changed[0].message and "now stands for 7" in changed[0].message
    assert changed[0].meld == 1


def test_r5_message_names_the_cards_with_suits() -> None:
    pos = position("mexe-mexe", ["4H 5H 6H 2C"], "7S 7H", players=2, cards_drawn=1)
    verdict = validate_move(pos, move(pos, ["4H 5H 6H", "2C 7S 7H"]))
    [violation] = verdict.violations
    assert violation.code is ViolationCode.WILD_VALUE_CHANGED
    assert "2♣ stood for 7♥" in violation.message
    assert violation.cards == ("2C",)


def test_r5_released_wild_may_keep_its_value_too() -> None:
    # The 9 releases the joker, which nonetheless stays a 9 in a group: legal.
    pos = position("carrossel", ["7H 8S JK=9"], "9D 9C 9S", cards_drawn=1)
    verdict = validate_move(pos, move(pos, ["7H 8S 9D", "JK 9C 9S"]))
    assert verdict.legal, verdict.violations


def test_r5_mexe_mexe_to_hand_effects() -> None:
    pos = position("mexe-mexe", ["4H 5H 6H 2C 8H"], "7H", players=2, cards_drawn=1)
    verdict = validate_move(pos, move(pos, ["4H 5H 6H 7H 8H"], to_hand="2C"))
    assert verdict.legal
    assert [c.code for c in verdict.played] == ["7H"]
    assert [c.code for c in verdict.hand_after] == ["2C"]
    assert not verdict.went_out


def test_r5_validation_is_pure() -> None:
    pos = position("carrossel", ["7H 8S JK=9"], "5C 9D", cards_drawn=1)
    mv = move(pos, ["5C JK 7H 8S 9D"])
    first = validate_move(pos, mv)
    assert validate_move(pos, mv) == first
    assert pos == position("carrossel", ["7H 8S JK=9"], "5C 9D", cards_drawn=1)


def test_r5_written_values_do_not_depend_on_meld_order() -> None:
    # Two identical jokers: one a 4 in a group, one the 4 of clubs in a club run. Both melds
    # stay as they were, so each joker is read where it stood: the group's joker claims no
    # suit, whatever order the move lists its melds in (found by the meld-order property).
    pos = position("rummikub", ["JK=4 4S 4D", "JK=4C 5C 6C"], "3C 4C 5C", players=2)
    after = ["JK=4C 5C 6C", "3C 4C 5C", "JK=4 4S 4D"]
    tables = [validate_move(pos, move(pos, order)).table for order in (after, after[::-1])]
    for table in tables:
        group = next(meld for meld in table if meld[1].card.code == "4S")
        run = next(meld for meld in table if meld[1].card.code == "5C")
        assert group[0].value == WildValue(4, None)
        assert run[0].value == WildValue(4, "C")
