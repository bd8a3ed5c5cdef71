"""Answers that explain themselves (issue #50): which melds a hint changes and which of its
melds are new, why SolveMove found no move, and CheckKnock's knock witness beside the
going-out one (R8, R10)."""

from __future__ import annotations

from typing import Any

from carrossel.v1 import rummy_pb2


def _position(
    ruleset: str, table: list[list[str]], hand: list[str], drawn: int = 1, **turn: Any
) -> rummy_pb2.RummyPosition:
    return rummy_pb2.RummyPosition(
        ruleset=ruleset,
        players=2,
        table=[rummy_pb2.Meld(cards=m) for m in table],
        hand=hand,
        turn=rummy_pb2.Turn(cards_drawn=drawn, **turn),
    )


def test_a_hint_names_the_melds_it_changes_and_its_new_melds(rummy_stub: Any) -> None:
    # Seed 000: with 7-8-Jk(9) on the table, a 5 and a 9 make 5-Jk(6)-7-8-9 (R5); the
    # group of queens stays as it was.
    position = _position("carrossel", [["QS", "QD", "QC"], ["7H", "8S", "JK=9"]], ["5C", "9D"])
    answer = rummy_stub.SolveMove(rummy_pb2.SolveMoveRequest(position=position), timeout=30)
    best = answer.moves[0]
    assert sorted(best.played) == ["5C", "9D"]
    assert list(best.changed_melds) == [1]  # the run 7-8-JK, index 1 of the position
    assert best.melds_changed == 1
    new = [list(best.move.table[j].cards) for j in best.new_melds]
    assert new == [["5C", "JK=6", "7H", "8S", "9D"]]
    kept = [list(m.cards) for j, m in enumerate(best.move.table) if j not in best.new_melds]
    assert kept == [["QS", "QD", "QC"]]


def test_no_move_because_no_card_was_drawn_says_draw_rule(rummy_stub: Any) -> None:
    """Carrossel: a play needs 1 or 2 cards drawn (R8); SolveMove says so instead of only
    answering nothing."""
    position = _position("carrossel", [["7H", "8S", "9D"]], ["10C"], drawn=0)
    answer = rummy_stub.SolveMove(rummy_pb2.SolveMoveRequest(position=position), timeout=30)
    assert not answer.moves
    codes = [rummy_pb2.ViolationCode.Name(v.code) for v in answer.no_play_violations]
    assert codes == ["VIOLATION_CODE_DRAW_RULE"]
    assert answer.no_play_violations[0].rule == "R8"
    assert answer.no_play_reason.startswith("no play is allowed this turn")


def test_no_move_because_no_card_fits_says_so(rummy_stub: Any) -> None:
    position = _position("carrossel", [["7H", "8S", "9D"]], ["KC"])
    answer = rummy_stub.SolveMove(rummy_pb2.SolveMoveRequest(position=position), timeout=30)
    assert not answer.moves and answer.optimal
    assert not answer.no_play_violations
    assert answer.no_play_reason.startswith("no legal play exists")


def test_moves_found_leave_the_no_play_fields_empty(rummy_stub: Any) -> None:
    position = _position("carrossel", [["7H", "8S", "9D"]], ["10C", "KC"])
    answer = rummy_stub.SolveMove(rummy_pb2.SolveMoveRequest(position=position), timeout=30)
    assert answer.moves and not answer.no_play_violations and not answer.no_play_reason


def test_check_knock_gives_a_knock_witness_beside_the_going_out_one(rummy_stub: Any) -> None:
    """R10: a knock leaves 1-5 points after a play that placed a hand card. Here the hand can
    go out (10C and 2C both fit: 7-8-9-10 and 2-3-4-5), or lay 10C alone and keep the 2C:
    2 points, the fewest a knock can leave."""
    position = _position("carrossel", [["7H", "8S", "9D"], ["3C", "4H", "5S"]], ["10C", "2C"])
    answer = rummy_stub.CheckKnock(rummy_pb2.CheckKnockRequest(position=position), timeout=30)
    assert answer.can_go_out and answer.can_knock
    assert answer.best_hand_points == 0
    witness_cards = sorted(c for m in answer.witness.table for c in m.cards)
    assert "10C" in witness_cards and "2C" in witness_cards
    assert answer.knock_hand_points == 2
    knock_cards = [c for m in answer.knock_witness.table for c in m.cards]
    assert "10C" in knock_cards and "2C" not in knock_cards
    # The witness is a real knock: ValidateMove agrees it may knock.
    verdict = rummy_stub.ValidateMove(
        rummy_pb2.ValidateMoveRequest(
            position=position,
            move=rummy_pb2.RummyMove(table=answer.knock_witness.table, knock=True),
        ),
        timeout=30,
    )
    assert verdict.legal and verdict.knock_eligible and verdict.hand_points_after == 2


def _violations(
    stub: Any,
    ruleset: str,
    table: list[list[str]],
    hand: list[str],
    after: list[list[str]],
    drawn: int = 0,
) -> list[Any]:
    answer = stub.ValidateMove(
        rummy_pb2.ValidateMoveRequest(
            position=_position(ruleset, table, hand, drawn=drawn),
            move=rummy_pb2.RummyMove(table=[rummy_pb2.Meld(cards=m) for m in after]),
        ),
        timeout=30,
    )
    assert not answer.legal
    return list(answer.violations)


def test_an_invalid_meld_says_what_would_make_it_valid(rummy_stub: Any) -> None:
    """R2: sequences are written ascending; shangai's ace is low only, manipulation's high
    only. The prose counts melds from 1, the ``meld`` field from 0, and ``rule`` is the
    ruling the sentence cites."""
    found = _violations(
        rummy_stub,
        "carrossel",
        [["KS", "KD", "KH"]],
        ["7H", "8H", "9H"],
        [["KS", "KD", "KH"], ["9H", "8H", "7H"]],
        drawn=1,
    )
    invalid = next(v for v in found if v.code == rummy_pb2.VIOLATION_CODE_INVALID_MELD)
    assert invalid.meld == 1 and invalid.message.startswith("The 2nd meld is not valid")
    assert invalid.message.endswith("sequences are written ascending: 7H 8H 9H")
    assert invalid.rule == "R2" and "(R2, R3)" in invalid.message
    shangai = _violations(rummy_stub, "shangai", [], ["QH", "KS", "AS"], [["QH", "KS", "AS"]])
    assert "the ace is low only in Shangai" in shangai[0].message
    manipulation = _violations(
        rummy_stub, "manipulation", [], ["AH", "2S", "3S"], [["AH", "2S", "3S"]]
    )
    assert "the ace is high only in Manipulation" in manipulation[0].message


def test_must_play_and_add_not_maximal_name_the_play_that_exists(rummy_stub: Any) -> None:
    """Seed 000 (shangai): with 8-9-10 on the table and 7 and J in hand, both must go (R8)."""
    table = [["8H", "9S", "10D"]]
    hand = ["7C", "JH", "2S"]
    add = _violations(rummy_stub, "shangai", table, hand, [["7C", "8H", "9S", "10D"]])
    assert [v.code for v in add] == [rummy_pb2.VIOLATION_CODE_ADD_NOT_MAXIMAL]
    assert add[0].message.endswith("for example 7C JH laid as 7C 8H 9S 10D JH")
    passing = _violations(rummy_stub, "shangai", table, hand, table)
    assert [v.code for v in passing] == [rummy_pb2.VIOLATION_CODE_MUST_PLAY]
    assert "for example 7C JH laid as 7C 8H 9S 10D JH" in passing[0].message


def test_too_many_new_melds_names_only_the_new_ones(rummy_stub: Any) -> None:
    """R6: at most one new meld a turn. The extended 7-8-9 is the old meld, not a new one."""
    found = _violations(
        rummy_stub,
        "carrossel",
        [["7H", "8H", "9H"], ["KS", "KD", "KC"]],
        ["10H", "5C", "5D", "5S", "2C", "3C", "4C"],
        [["7H", "8H", "9H", "10H"], ["KS", "KD", "KC"], ["5C", "5D", "5S"], ["2C", "3C", "4C"]],
        drawn=1,
    )
    (too_many,) = [v for v in found if v.code == rummy_pb2.VIOLATION_CODE_TOO_MANY_NEW_MELDS]
    assert "new: 5♣ 5♦ 5♠; 2♣ 3♣ 4♣)" in too_many.message
    assert "10♥" not in too_many.message
    assert sorted(too_many.cards) == ["2C", "3C", "4C", "5C", "5D", "5S"]
