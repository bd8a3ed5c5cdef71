"""ValidateMove with ``suggest`` through a real gRPC server (issue #53): the nearest legal
move to an illegal proposal, its kept melds, and the answer when there is none. The seed
example is R5's: with 7-8-Jk(9) on the table, a 5 alone cannot make 5-Jk(6)-7-8."""

from __future__ import annotations

from typing import Any

import pytest

from carrossel.v1 import rummy_pb2
from service.rummy.validate_move import NOT_FOR_CONTRACT, add_suggestion
from solver.rummy.position import Turn, parse_move, parse_position

SEED_TABLE = ["7H 8S JK=9"]
HAND_OF_ELEVEN = "5C 5D 5H 7S 7H 7D 9C 9D 9S JC QC"


def request(
    table: list[str],
    hand: str,
    proposal: list[str],
    *,
    ruleset: str = "carrossel",
    suggest: bool = True,
    cards_drawn: int = 1,
) -> rummy_pb2.ValidateMoveRequest:
    return rummy_pb2.ValidateMoveRequest(
        position=rummy_pb2.RummyPosition(
            ruleset=ruleset,
            players=2,
            table=[rummy_pb2.Meld(cards=meld.split()) for meld in table],
            hand=hand.split(),
            turn=rummy_pb2.Turn(
                cards_drawn=cards_drawn,
                has_opened=True,
                deal_number=1 if ruleset == "carioca" else 0,
            ),
        ),
        move=rummy_pb2.RummyMove(table=[rummy_pb2.Meld(cards=m.split()) for m in proposal]),
        suggest=suggest,
    )


def tables(move: rummy_pb2.RummyMove) -> list[list[str]]:
    return [list(meld.cards) for meld in move.table]


def test_r5_seed_five_and_nine_laid_as_one_sequence(rummy_stub: Any) -> None:
    # 5-Jk(6)-7-8 with the 9 left as a meld of its own: illegal (R5: the joker's value
    # changed unreleased; R2: a lone 9). The 9 in the joker's place releases it, so the
    # nearest legal play lays both cards in one sequence; no proposal meld survives.
    answer = rummy_stub.ValidateMove(
        request(SEED_TABLE, "5C 9D KS", ["5C JK=6 7H 8S", "9D"]), timeout=30
    )
    assert not answer.legal
    nearest = answer.nearest_legal
    assert tables(nearest.move) == [["5C", "JK=6", "7H", "8S", "9D"]]
    assert sorted(nearest.played) == ["5C", "9D"]
    assert answer.nearest_same_cards
    assert list(answer.nearest_kept_melds) == []
    assert answer.suggestion_optimal
    assert nearest.melds_changed == 1


def test_r5_seed_keeps_the_proposed_group_and_lays_three_of_four(rummy_stub: Any) -> None:
    # 5-Jk(6)-7-8 and a group of 9s: no legal play lays all four (the 5 needs the joker as
    # 6, and the joker is released only by a 9 in its place). Three cards are the most, and
    # of the plays laying three, keeping the proposed group (meld 1) and the table as it was
    # is nearest.
    answer = rummy_stub.ValidateMove(
        request(SEED_TABLE, "5C 9D 9C 9H", ["5C JK=6 7H 8S", "9D 9C 9H"]), timeout=30
    )
    assert not answer.legal
    assert list(answer.nearest_kept_melds) == [1]
    assert not answer.nearest_same_cards
    assert sorted(answer.nearest_legal.played) == ["9C", "9D", "9H"]
    assert answer.nearest_legal.melds_changed == 0
    assert "3 of the proposal's 4 hand cards" in answer.suggestion_note


def test_r5_seed_five_alone_has_no_suggestion(rummy_stub: Any) -> None:
    answer = rummy_stub.ValidateMove(request(SEED_TABLE, "5C 9D", ["5C JK=6 7H 8S"]), timeout=30)
    assert not answer.legal
    assert not answer.HasField("nearest_legal")
    assert "No legal play lays any of the proposal's hand cards (5C)" in answer.suggestion_note
    assert answer.suggestion_optimal


def test_suggest_false_leaves_the_answer_unchanged(rummy_stub: Any) -> None:
    asked = request(SEED_TABLE, "5C 9D KS", ["5C JK=6 7H 8S", "9D"], suggest=False)
    plain = rummy_pb2.ValidateMoveRequest(position=asked.position, move=asked.move)
    with_flag = rummy_stub.ValidateMove(asked, timeout=30)
    assert with_flag == rummy_stub.ValidateMove(plain, timeout=30)
    assert not with_flag.HasField("nearest_legal")
    assert not with_flag.suggestion_note


def test_the_verdict_is_the_same_with_a_suggestion(rummy_stub: Any) -> None:
    asked = request(SEED_TABLE, "5C 9D KS", ["5C JK=6 7H 8S", "9D"])
    with_suggestion = rummy_stub.ValidateMove(asked, timeout=30)
    without = rummy_stub.ValidateMove(
        rummy_pb2.ValidateMoveRequest(position=asked.position, move=asked.move), timeout=30
    )
    with_suggestion.ClearField("nearest_legal")
    with_suggestion.ClearField("nearest_kept_melds")
    for name in ("nearest_same_cards", "suggestion_optimal", "suggestion_note"):
        with_suggestion.ClearField(name)
    assert with_suggestion == without


def test_a_legal_move_gets_no_suggestion(rummy_stub: Any) -> None:
    answer = rummy_stub.ValidateMove(
        request(SEED_TABLE, "5C 9D KS", ["5C JK=6 7H 8S 9D"]), timeout=30
    )
    assert answer.legal
    assert not answer.HasField("nearest_legal")
    assert not answer.suggestion_note


@pytest.mark.parametrize(
    ("ruleset", "table", "hand", "proposal", "drawn"),
    [
        ("carrossel", ["4H 5S 6D JK=7", "9C 9D 9S"], "8C 7C 9H", ["4H 5S 6D 8C", "9C 9D 9S JK"], 1),
        ("mexe-mexe", ["4H 5H 6H 2C=7H"], "7H 8H 3S", ["4H 5H 6H 7H 8H", "2C 3S"], 1),
        ("vatikan", ["3S 4S 5S JK=6S", "QH QD QC"], "6S QS 9H", ["3S 4S 5S 6S", "QH QD QS JK"], 0),
        ("shangai", ["8C 9C 10C"], "7D JH 2S", ["7D 8C 9C 10C", "JH"], 0),
        ("manipulation", ["5H 5D 5S", "JC QC KC"], "5C 10D AH", ["5H 5D 5C", "5S 10D JC KC AH"], 0),
        ("rummikub", ["4H 5H 6H", "9S 9C 9D"], "7H 9H 3C", ["4H 5H 6H 7H 9S", "9C 9D 9H"], 0),
    ],
)
def test_the_suggestion_passes_the_referee_again(
    rummy_stub: Any, ruleset: str, table: list[str], hand: str, proposal: list[str], drawn: int
) -> None:
    # The suggestion is re-checked inside the server; here a client sends it back as a move
    # of its own, and the referee (R1-R10) must call it legal with the same effects.
    asked = request(table, hand, proposal, ruleset=ruleset, cards_drawn=drawn)
    answer = rummy_stub.ValidateMove(asked, timeout=30)
    assert not answer.legal
    assert answer.HasField("nearest_legal"), answer.suggestion_note
    nearest = answer.nearest_legal
    again = rummy_stub.ValidateMove(
        rummy_pb2.ValidateMoveRequest(position=asked.position, move=nearest.move), timeout=30
    )
    assert again.legal, [v.message for v in again.violations]
    assert list(again.played) == list(nearest.played)
    assert list(again.hand_after) == list(nearest.hand_after)
    kept = [sorted(asked.move.table[i].cards) for i in answer.nearest_kept_melds]
    shown = [sorted(meld.cards) for meld in nearest.move.table]
    assert all(meld in shown for meld in kept)


def test_the_rearrangement_suggestion_leaves_carioca_alone() -> None:
    # Carioca's suggestion is service/rummy/contract.py's (tests/test_c2_c6_carioca_suggest.py);
    # the rearrangement one refuses a contract position before any search (so no call
    # context is needed) rather than run the wrong model.
    position = parse_position("carioca", 2, [], HAND_OF_ELEVEN.split(), Turn(deal_number=1))
    proposal = parse_move(position, [["5C", "5D"]])
    response = rummy_pb2.ValidateMoveResponse(legal=False)
    add_suggestion(response, position, proposal, context=None)  # type: ignore[arg-type]
    assert not response.HasField("nearest_legal")
    assert response.suggestion_note == NOT_FOR_CONTRACT
