"""R7 Vatikan: the joker's line and the first meld (verdicts in r7_vatikan.toml)."""

from __future__ import annotations

from solver.core.violations import ViolationCode
from solver.rearrangement.search import validate_move
from solver.rummy.position import Turn, parse_move, parse_position


def test_r7_wild_moved_names_both_melds() -> None:
    pos = parse_position(
        "vatikan", 2, [["7H", "8S", "JK=9"]], ["6C", "9D", "9S"], Turn(has_melded_sequence=True)
    )
    verdict = validate_move(pos, parse_move(pos, [["6C", "7H", "8S"], ["JK", "9D", "9S"]]))
    [violation] = verdict.violations
    assert violation.code is ViolationCode.WILD_MOVED
    assert violation.rule == "R7" and violation.meld == 1
    assert "7♥ 8♠ JK" in violation.message and "JK 9♦ 9♠" in violation.message


def test_r7_same_move_legal_where_wilds_may_travel() -> None:
    # The lineage rule is a ruleset parameter: carrossel lets the unreleased joker move.
    pos = parse_position(
        "carrossel", 3, [["7H", "8S", "JK=9"]], ["6C", "9D", "9S"], Turn(cards_drawn=1)
    )
    verdict = validate_move(pos, parse_move(pos, [["6C", "7H", "8S"], ["JK", "9D", "9S"]]))
    assert verdict.legal


def test_r7_first_meld_rule_off_after_a_sequence() -> None:
    table = [["7C", "7D", "7H", "7S"]]
    after = [["7C", "7D", "7H"], ["7S", "7C", "7D"]]
    before_seq = parse_position("vatikan", 2, table, ["7C", "7D"], Turn())
    after_seq = parse_position("vatikan", 2, table, ["7C", "7D"], Turn(has_melded_sequence=True))
    assert validate_move(before_seq, parse_move(before_seq, after)).codes == (
        ViolationCode.FIRST_MELD_NOT_SEQUENCE,
    )
    assert validate_move(after_seq, parse_move(after_seq, after)).legal
