"""ValidateMove end to end: every vector through a real in-process gRPC server, and the
malformed requests that must be INVALID_ARGUMENT with BadRequest field paths (SPEC §5)."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from carrossel.v1 import rummy_pb2
from service.server import create_server
from tests.validate_vectors import Case, all_params, check, move_fields, position_fields


def request_of(case: Case) -> rummy_pb2.ValidateMoveRequest:
    p = position_fields(case)
    m = move_fields(case)
    return rummy_pb2.ValidateMoveRequest(
        position=rummy_pb2.RummyPosition(
            ruleset=p["ruleset"],
            players=p["players"],
            table=[rummy_pb2.Meld(cards=meld) for meld in p["table"]],
            hand=p["hand"],
            turn=rummy_pb2.Turn(**p["turn"]),
        ),
        move=rummy_pb2.RummyMove(
            table=[rummy_pb2.Meld(cards=meld) for meld in m["table"]],
            to_hand=m["to_hand"],
            knock=m["knock"],
            discard=m["discard"],
        ),
    )


def code_name(code: int) -> str:
    return rummy_pb2.ViolationCode.Name(code).removeprefix("VIOLATION_CODE_")  # type: ignore[arg-type]


@pytest.mark.parametrize("case", all_params())
def test_vector_over_grpc(rummy_stub: Any, case: Case) -> None:
    response = rummy_stub.ValidateMove(request_of(case), timeout=30)
    effects = {
        "played": list(response.played),
        "hand_after": list(response.hand_after),
        "hand_points_after": response.hand_points_after,
        "went_out": response.went_out,
        "knock_eligible": response.knock_eligible,
        "table": [list(meld.cards) for meld in response.table],
    }
    check(case, response.legal, [code_name(v.code) for v in response.violations], effects)
    for violation in response.violations:
        assert violation.rule and violation.message
        assert -1 <= violation.meld < len(case["after"])


def test_violation_fields_over_grpc(rummy_stub: Any) -> None:
    """The R5 seed example: code, ruling, meld index, cards and a sentence naming them."""
    request = rummy_pb2.ValidateMoveRequest(
        position=rummy_pb2.RummyPosition(
            ruleset="carrossel",
            players=2,
            table=[rummy_pb2.Meld(cards=["7H", "8S", "JK=9"])],
            hand=["5C"],
            turn=rummy_pb2.Turn(cards_drawn=1),
        ),
        move=rummy_pb2.RummyMove(table=[rummy_pb2.Meld(cards=["5C", "JK", "7H", "8S"])]),
    )
    response = rummy_stub.ValidateMove(request, timeout=10)
    assert not response.legal
    [violation] = response.violations
    assert violation.code == rummy_pb2.VIOLATION_CODE_WILD_VALUE_CHANGED
    assert violation.rule == "R5"
    assert violation.meld == 0
    assert list(violation.cards) == ["JK"]
    assert "stood for 9" in violation.message and "now stands for 6" in violation.message
    assert [list(m.cards) for m in response.table] == [["5C", "JK=6", "7H", "8S"]]


def test_card_notation_variants_answer_in_canonical_codes(rummy_stub: Any) -> None:
    """SPEC §2: "Case-insensitive", "`T` accepted for 10", "the symbols ♣ ♦ ♥ ♠ accepted",
    "Canonical output: upper case letters, `10` for ten". A phone keyboard adds a variation
    selector to a suit symbol (♠️, U+FE0F); it is the same symbol."""
    request = rummy_pb2.ValidateMoveRequest(
        position=rummy_pb2.RummyPosition(
            ruleset="carrossel",
            players=2,
            table=[rummy_pb2.Meld(cards=["8h", "9\u2665", "th"])],
            hand=["j\u2665\ufe0f", "a\u2660\ufe0f"],
            turn=rummy_pb2.Turn(cards_drawn=1),
        ),
        move=rummy_pb2.RummyMove(
            table=[rummy_pb2.Meld(cards=["8H", "9H", "T\u2665", "J\u2665\ufe0f"])]
        ),
    )
    response = rummy_stub.ValidateMove(request, timeout=10)
    assert response.legal
    assert [list(m.cards) for m in response.table] == [["8H", "9H", "10H", "JH"]]
    assert list(response.hand_after) == ["AS"]


def test_missing_table_card_message_names_it(rummy_stub: Any) -> None:
    request = rummy_pb2.ValidateMoveRequest(
        position=rummy_pb2.RummyPosition(
            ruleset="carrossel",
            players=2,
            table=[rummy_pb2.Meld(cards=["6H", "7H", "8H", "9H"])],
            hand=["5C"],
            turn=rummy_pb2.Turn(cards_drawn=1),
        ),
        move=rummy_pb2.RummyMove(table=[rummy_pb2.Meld(cards=["5C", "6H", "7H", "8H"])]),
    )
    response = rummy_stub.ValidateMove(request, timeout=10)
    [violation] = response.violations
    assert violation.code == rummy_pb2.VIOLATION_CODE_TABLE_CARD_REMOVED
    assert violation.message.startswith("9♥ was on the table before and is missing after the play")
    assert list(violation.cards) == ["9H"]


# --- malformed requests ----------------------------------------------------------------------


def bad_fields(stub: Any, request: rummy_pb2.ValidateMoveRequest) -> dict[str, str]:
    with pytest.raises(grpc.RpcError) as info:
        stub.ValidateMove(request, timeout=10)
    error = info.value
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    status = rpc_status.from_call(error)
    assert status is not None
    found: dict[str, str] = {}
    for detail in status.details:
        bad = error_details_pb2.BadRequest()
        if detail.Unpack(bad):
            found.update({v.field: v.description for v in bad.field_violations})
    return found


def simple_request(**position: Any) -> rummy_pb2.ValidateMoveRequest:
    fields: dict[str, Any] = {
        "ruleset": "carrossel",
        "players": 2,
        "table": [rummy_pb2.Meld(cards=["7H", "8S", "JK=9"])],
        "hand": ["6H"],
        "turn": rummy_pb2.Turn(cards_drawn=1),
    }
    fields.update(position)
    return rummy_pb2.ValidateMoveRequest(
        position=rummy_pb2.RummyPosition(**fields),
        move=rummy_pb2.RummyMove(table=[rummy_pb2.Meld(cards=["6H", "7H", "8S", "JK=9"])]),
    )


def test_bad_code_is_invalid_argument(rummy_stub: Any) -> None:
    found = bad_fields(rummy_stub, simple_request(hand=["6X"]))
    assert list(found) == ["position.hand[0]"]
    assert "'6X'" in found["position.hand[0]"]


def test_bad_code_in_the_move(rummy_stub: Any) -> None:
    request = simple_request()
    request.move.table[0].cards[0] = "6HH"
    found = bad_fields(rummy_stub, request)
    assert list(found) == ["move.table[0].cards[0]"]


def test_too_many_copies_is_invalid_argument(rummy_stub: Any) -> None:
    # Two players: one deck, one 7♥ (R1).
    found = bad_fields(rummy_stub, simple_request(hand=["6H", "7H"]))
    assert "position.hand" in found
    assert "7H" in found["position.hand"]


def test_too_many_copies_on_the_table_names_the_table(rummy_stub: Any) -> None:
    # R1, SPEC §5 (field violations name the field): both 7♥ lie on the table, none in the
    # hand, so the table is the field to fix (it used to be named position.hand).
    table = [rummy_pb2.Meld(cards=["7H", "8H", "9H"]), rummy_pb2.Meld(cards=["7H", "7S", "7D"])]
    found = bad_fields(rummy_stub, simple_request(table=table, hand=["KS"]))
    assert list(found) == ["position.table"]
    assert "7H" in found["position.table"]


@pytest.mark.parametrize("deal", [0, -1, 8])
def test_a_carioca_deal_out_of_range_is_invalid_argument(rummy_stub: Any, deal: int) -> None:
    # C2: carioca has deals 1-7; SPEC §5: out-of-range numbers are malformed.
    request = simple_request(
        ruleset="carioca",
        table=[],
        hand=["AH", "2H"],
        turn=rummy_pb2.Turn(cards_drawn=1, deal_number=deal),
    )
    found = bad_fields(rummy_stub, request)
    assert list(found) == ["position.turn.deal_number"]


def test_too_many_copies_in_the_move(rummy_stub: Any) -> None:
    request = simple_request()
    request.move.table.append(rummy_pb2.Meld(cards=["JK", "JK", "9C"]))
    found = bad_fields(rummy_stub, request)
    assert "move.table" in found
    assert "JK" in found["move.table"]


def test_invalid_meld_in_the_position_is_invalid_argument(rummy_stub: Any) -> None:
    found = bad_fields(rummy_stub, simple_request(table=[rummy_pb2.Meld(cards=["7H", "9S", "JK"])]))
    assert "position.table[0]" in found


def test_ambiguous_meld_in_the_position_is_invalid_argument(rummy_stub: Any) -> None:
    found = bad_fields(
        rummy_stub,
        simple_request(players=3, table=[rummy_pb2.Meld(cards=["JK", "7H", "JK"])]),
    )
    assert "position.table[0]" in found
    assert "ambiguous" in found["position.table[0]"]


def test_unknown_ruleset_is_invalid_argument(rummy_stub: Any) -> None:
    found = bad_fields(rummy_stub, simple_request(ruleset="canasta"))
    assert "position.ruleset" in found


def test_invalid_meld_in_the_move_is_a_violation_not_an_error(rummy_stub: Any) -> None:
    request = simple_request()
    request.move.table[0].cards[:] = ["6H", "8S", "JK=9", "7H"]
    response = rummy_stub.ValidateMove(request, timeout=10)
    assert not response.legal
    assert [v.code for v in response.violations] == [rummy_pb2.VIOLATION_CODE_INVALID_MELD]


def test_create_server_serves_validate_move() -> None:
    """The documented entry point: ``create_server(address) -> (server, port)``."""
    server, port = create_server("127.0.0.1:0")
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            from carrossel.v1 import rummy_pb2_grpc

            stub = rummy_pb2_grpc.RummyServiceStub(channel)
            response = stub.ValidateMove(simple_request(), timeout=10)
            assert response.legal
            assert list(response.played) == ["6H"] and response.went_out
    finally:
        server.stop(grace=None)
