"""Carioca's nearest legal turn (ValidateMove ``suggest``, issue #53; docs/rules.md "Carioca",
"Suggestions"): the vectors of tests/vectors/suggest/carioca.toml (the seed's sentences
quoted) in-process and through gRPC, every suggestion re-judged by ValidateMove; the keys'
definitions on small cases; and bad inputs with ``suggest`` as INVALID_ARGUMENT."""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import grpc
import pytest

from carrossel.v1 import rummy_pb2, rummy_pb2_grpc
from solver.contract.suggest import (
    kept_melds,
    meld_key,
    proposal_hand_cards,
    read_as_proposed,
    suggest_contract_move,
)
from solver.core import cancel
from solver.core.cards import parse_card
from solver.rummy.position import Move, Position, Turn, parse_move, parse_position
from tests.test_service_errors import call_error, field_violations

VECTORS = Path(__file__).parent / "vectors" / "suggest" / "carioca.toml"
Case = dict[str, Any]


def _cases() -> list[Case]:
    with VECTORS.open("rb") as handle:
        cases: list[Case] = tomllib.load(handle)["case"]
    return cases


def _position(case: Case) -> Position:
    turn = Turn(**case["turn"])
    return parse_position(
        "carioca", 2, [m.split() for m in case.get("table", [])], case["hand"].split(), turn
    )


def _move(case: Case, position: Position) -> Move:
    return parse_move(
        position,
        [m.split() for m in case["after"]],
        case.get("to_hand", []),
        case.get("knock", False),
        case.get("discard", ""),
    )


def _request(case: Case) -> rummy_pb2.ValidateMoveRequest:
    return rummy_pb2.ValidateMoveRequest(
        position=rummy_pb2.RummyPosition(
            ruleset="carioca",
            players=2,
            table=[rummy_pb2.Meld(cards=m.split()) for m in case.get("table", [])],
            hand=case["hand"].split(),
            turn=rummy_pb2.Turn(**case["turn"]),
        ),
        move=rummy_pb2.RummyMove(
            table=[rummy_pb2.Meld(cards=m.split()) for m in case["after"]],
            to_hand=case.get("to_hand", []),
            knock=case.get("knock", False),
            discard=case.get("discard", ""),
        ),
        suggest=True,
    )


def _melds(table: list[list[str]]) -> list[list[str]]:
    return [sorted(code.split("=")[0] for code in meld) for meld in table]


@pytest.mark.parametrize("case", _cases(), ids=lambda case: case["id"])
def test_vector_in_process(case: Case) -> None:
    position = _position(case)
    proposal = _move(case, position)
    expect = case["expect"]
    found = suggest_contract_move(position, proposal, 10_000)
    assert found.optimal, case["id"]
    if expect.get("none"):
        assert found.move is None, case["id"]
        assert expect["note"] in found.note, found.note
        return
    assert found.move is not None, found.note
    solved = found.move.solved
    assert solved.verdict.legal, solved.verdict.violations
    assert len(solved.verdict.played) == expect["laid"], case["id"]
    assert found.move.same_cards == expect["same_cards"], case["id"]
    assert list(found.move.kept) == expect["kept"], case["id"]
    assert solved.melds_changed == expect["changed"], case["id"]
    assert solved.move.discard == parse_card(expect["discard"]), case["id"]
    assert not solved.move.knock and not solved.move.to_hand
    if "table" in expect:
        got = _melds([[tc.code for tc in meld] for meld in solved.move.table])
        assert sorted(got) == sorted(_melds([m.split() for m in expect["table"]])), case["id"]


@pytest.mark.parametrize("case", _cases(), ids=lambda case: case["id"])
def test_vector_through_grpc(case: Case, rummy_stub: rummy_pb2_grpc.RummyServiceStub) -> None:
    answer = rummy_stub.ValidateMove(_request(case), timeout=30)
    expect = case["expect"]
    assert not answer.legal, case["id"]
    assert answer.suggestion_note, case["id"]
    if expect.get("none"):
        assert not answer.HasField("nearest_legal")
        assert expect["note"] in answer.suggestion_note
        return
    assert answer.suggestion_optimal
    nearest = answer.nearest_legal
    assert list(answer.nearest_kept_melds) == expect["kept"]
    assert answer.nearest_same_cards == expect["same_cards"]
    assert nearest.melds_changed == expect["changed"]
    assert nearest.move.discard == expect["discard"]
    # The suggestion is a legal turn of the position, with the effects ValidateMove gives it.
    again = rummy_stub.ValidateMove(
        rummy_pb2.ValidateMoveRequest(position=_request(case).position, move=nearest.move),
        timeout=30,
    )
    assert again.legal, [v.message for v in again.violations]
    assert list(again.played) == list(nearest.played)
    assert list(again.hand_after) == list(nearest.hand_after)
    assert again.hand_points_after == nearest.hand_points_after
    assert again.went_out == nearest.went_out
    # Every kept meld of the proposal is on the suggested table.
    shown = _melds([list(meld.cards) for meld in nearest.move.table])
    for index in answer.nearest_kept_melds:
        assert _melds([case["after"][index].split()])[0] in shown


def test_a_legal_move_carries_no_suggestion(rummy_stub: rummy_pb2_grpc.RummyServiceStub) -> None:
    case = next(c for c in _cases() if c["id"] == "discard-forgotten")
    request = _request(case)
    request.move.discard = "9S"
    answer = rummy_stub.ValidateMove(request, timeout=30)
    assert answer.legal and answer.went_out
    assert not answer.HasField("nearest_legal") and not answer.suggestion_note


def test_without_suggest_the_answer_is_as_before(
    rummy_stub: rummy_pb2_grpc.RummyServiceStub,
) -> None:
    request = _request(_cases()[0])
    request.suggest = False
    answer = rummy_stub.ValidateMove(request, timeout=30)
    assert not answer.legal
    assert not answer.HasField("nearest_legal") and not answer.suggestion_note


# --- the keys' definitions --------------------------------------------------------------------


def _opened(table: list[str], hand: str) -> Position:
    turn = Turn(cards_drawn=1, has_opened=True, deal_number=2)
    return parse_position("carioca", 2, [m.split() for m in table], hand.split(), turn)


def test_hand_cards_are_the_copies_beyond_the_table_clipped_to_the_hand() -> None:
    position = _opened(["7H 8H 9H 10H"], "7H JH KC")
    # 7H: a second copy on the table is the hand's; QH is in no hand (CARD_NOT_IN_HAND).
    proposal = parse_move(position, [["7H", "8H", "9H", "10H", "JH", "QH"], ["7H"]], discard="KC")
    assert proposal_hand_cards(position, proposal) == Counter([parse_card("7H"), parse_card("JH")])
    # A table card moved or taken back is no hand card laid.
    back = parse_move(position, [["8H", "9H", "10H"], ["7H"]], discard="KC")
    assert not proposal_hand_cards(position, back)


def test_a_proposed_meld_is_read_as_the_referee_reads_it() -> None:
    # A bare joker takes the value its place gives it; a trio in any order is the same trio;
    # a sequence written out of order is read in order (C3, C5).
    position = _opened([], "2C")
    move = parse_move(
        position, [["4S", "JK", "6S", "7S"], ["8D", "8C", "JK"], ["6H", "4H", "5H", "7H"]]
    )
    read = [[tc.code for tc in read_as_proposed(meld)] for meld in move.table]
    assert read == [["4S", "JK=5S", "6S", "7S"], ["8D", "8C", "JK=8"], ["4H", "5H", "6H", "7H"]]
    table = parse_move(position, [["4H", "5H", "6H", "7H"], ["JK=8", "8C", "8D"]]).table
    kept, marks = kept_melds(move, table)
    assert kept == (1, 2) and marks == (True, True)
    # The same cards with a joker standing elsewhere are another meld (issue #53: same wild values).
    other = parse_move(position, [["JK=3S", "4S", "6S", "7S"]]).table[0]
    assert meld_key(other) != meld_key(read_as_proposed(move.table[0]))


def test_the_pass_is_never_a_suggestion() -> None:
    # No hand card of the proposal can be laid: the pass is legal but lays none of them.
    position = _opened(["5D 6D 7D 8D"], "KC 2S")
    proposal = parse_move(position, [["5D", "6D", "7D", "8D", "KC"]], discard="2S")
    found = suggest_contract_move(position, proposal)
    assert found.move is None and found.optimal
    assert "KC" in found.note


def test_an_exhausted_deadline_gives_an_unproved_answer_or_none() -> None:
    case = _cases()[0]
    position = _position(case)
    proposal = _move(case, position)
    found = suggest_contract_move(position, proposal, time_limit_ms=0)
    full = suggest_contract_move(position, proposal, time_limit_ms=10_000)
    assert full.move is not None and full.optimal
    # The clock may stop CP-SAT first (the solver's floor is 1 ms): then the answer is a
    # legal turn not proved nearest, or none and not proved; proved means the same keys.
    if found.optimal:
        assert found.move is not None
        assert found.move.kept == full.move.kept
        assert found.move.solved.verdict.played == full.move.solved.verdict.played
    elif found.move is not None:
        assert found.move.solved.verdict.legal


# --- bad inputs -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "path"),
    [
        ("discard", "ZZ", "move.discard"),
        ("to_hand", ["1X"], "move.to_hand[0]"),
    ],
)
def test_a_malformed_move_with_suggest_is_invalid_argument(
    rummy_stub: rummy_pb2_grpc.RummyServiceStub, field: str, value: Any, path: str
) -> None:
    request = _request(_cases()[0])
    if isinstance(value, list):
        getattr(request.move, field).extend(value)
    else:
        setattr(request.move, field, value)
    error = call_error(rummy_stub.ValidateMove, request)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert path in field_violations(error), field_violations(error)


def test_a_malformed_meld_with_suggest_is_invalid_argument(
    rummy_stub: rummy_pb2_grpc.RummyServiceStub,
) -> None:
    request = _request(_cases()[0])
    request.move.table[1].cards.append("QQ")
    error = call_error(rummy_stub.ValidateMove, request)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert any(f.startswith("move.table[1]") for f in field_violations(error))


def test_a_cancelled_call_stops_the_search() -> None:
    # The service cancels the token when the call is cancelled or its deadline passes
    # (solver/core/cancel.py): the suggestion's CP-SAT solve is registered like SolveMove's.
    case = _cases()[0]
    position = _position(case)
    token = cancel.CancelToken()
    token.cancel()
    with cancel.scope(token), pytest.raises(cancel.Cancelled):
        suggest_contract_move(position, _move(case, position))
