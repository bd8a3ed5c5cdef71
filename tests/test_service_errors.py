"""SPEC §5: malformed requests are INVALID_ARGUMENT with a BadRequest naming each bad field;
unimplemented RPCs say so; bounds give clear statuses; a bug is INTERNAL, never a crash."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from carrossel.v1 import fishing_pb2, rulesets_pb2, rummy_pb2
from service.limits import solve_time_limit_s
from service.rummy import validate_move
from solver.core.rulesets import RULESETS
from solver.rearrangement.search import DEFAULT_TIME_LIMIT_MS


def position(**overrides: Any) -> rummy_pb2.RummyPosition:
    fields: dict[str, Any] = {
        "ruleset": "carrossel",
        "players": 2,
        "table": [rummy_pb2.Meld(cards=["7H", "8S", "JK=9"])],
        "hand": ["6H", "9D"],
        "turn": rummy_pb2.Turn(cards_drawn=1),
    }
    fields.update(overrides)
    return rummy_pb2.RummyPosition(**fields)


def same_table_move() -> rummy_pb2.RummyMove:
    return rummy_pb2.RummyMove(table=[rummy_pb2.Meld(cards=["7H", "8S", "JK=9"])])


def call_error(call: Callable[..., Any], request: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call(request, timeout=10)
    error = info.value
    assert isinstance(error, grpc.RpcError)
    return error


def violation_list(error: grpc.RpcError) -> list[tuple[str, str]]:
    """The BadRequest detail of an INVALID_ARGUMENT error: every field violation in order,
    repeats kept."""
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT, error.details()
    status = rpc_status.from_call(error)
    assert status is not None, "no google.rpc.Status in the trailers"
    found: list[tuple[str, str]] = []
    for detail in status.details:
        bad = error_details_pb2.BadRequest()
        if detail.Unpack(bad):
            found += [(v.field, v.description) for v in bad.field_violations]
    assert found, "no BadRequest detail"
    return found


def field_violations(error: grpc.RpcError) -> dict[str, str]:
    """The same as {field: description}."""
    return dict(violation_list(error))


def validate(
    stub: Any, pos: rummy_pb2.RummyPosition, move: rummy_pb2.RummyMove | None = None
) -> dict[str, str]:
    request = rummy_pb2.ValidateMoveRequest(position=pos, move=move or same_table_move())
    return field_violations(call_error(stub.ValidateMove, request))


def test_bad_card_code_in_hand(rummy_stub: Any) -> None:
    found = validate(rummy_stub, position(hand=["6H", "9D", "6H", "ZZ"]))
    assert list(found) == ["position.hand[3]"]
    assert "'ZZ'" in found["position.hand[3]"]


def test_bad_card_code_on_the_table(rummy_stub: Any) -> None:
    pos = position(
        table=[rummy_pb2.Meld(cards=["7H", "8S", "JK=9"]), rummy_pb2.Meld(cards=["5C", "5X", "5S"])]
    )
    found = validate(rummy_stub, pos)
    assert "position.table[1].cards[1]" in found
    assert "'5X'" in found["position.table[1].cards[1]"]


def test_bad_card_code_in_the_move(rummy_stub: Any) -> None:
    move = rummy_pb2.RummyMove(table=[rummy_pb2.Meld(cards=["6H", "7H", "8S", "JK=9", "10Q"])])
    found = validate(rummy_stub, position(), move)
    assert "move.table[0].cards[4]" in found
    assert "'10Q'" in found["move.table[0].cards[4]"]


def test_every_bad_field_is_reported(rummy_stub: Any) -> None:
    found = validate(rummy_stub, position(hand=["XX", "6H", "YY"]))
    assert {"position.hand[0]", "position.hand[2]"} <= set(found)


def test_unknown_ruleset(rummy_stub: Any) -> None:
    found = validate(rummy_stub, position(ruleset="canasta"))
    assert "position.ruleset" in found
    assert "canasta" in found["position.ruleset"]


def test_unknown_ruleset_lists_the_known_ids(rummy_stub: Any) -> None:
    # The description and the status message both name every id a client may send, even
    # after a long unknown id (which is cut so the list stays within the capped text).
    for unknown in ("canasta", "x" * 60):  # longer ids are refused by the bounds first
        error = call_error(
            rummy_stub.ValidateMove,
            rummy_pb2.ValidateMoveRequest(
                position=position(ruleset=unknown), move=same_table_move()
            ),
        )
        description = field_violations(error)["position.ruleset"]
        for text in (description, error.details() or ""):
            assert f"(known rulesets: {', '.join(RULESETS)})" in text


def test_fishing_ruleset_on_the_rummy_service(rummy_stub: Any) -> None:
    found = validate(rummy_stub, position(ruleset="carosello"))
    assert "position.ruleset" in found


@pytest.mark.parametrize("players", [0, 1, 6, -3])
def test_players_out_of_range(rummy_stub: Any, players: int) -> None:
    found = validate(rummy_stub, position(players=players))
    assert "position.players" in found


def test_too_many_copies_of_a_card(rummy_stub: Any) -> None:
    # Two players play carrossel with one deck: a second 7H cannot exist.
    found = validate(rummy_stub, position(hand=["7H", "9D"]))
    assert any(field.startswith("position") for field in found)
    assert any("7H" in text for text in found.values())


def test_invalid_meld_in_the_positions_table(rummy_stub: Any) -> None:
    pos = position(
        table=[rummy_pb2.Meld(cards=["7H", "8S", "JK=9"]), rummy_pb2.Meld(cards=["2C", "9D", "KS"])]
    )
    found = validate(rummy_stub, pos)
    assert "position.table[1]" in found


def test_a_value_written_on_a_natural_card_is_named_at_the_card(rummy_stub: Any) -> None:
    # SPEC §2: "A wild card on the table may carry the value it stands for after `=`" (the
    # README's "Card notation"); SPEC §5: a malformed position is INVALID_ARGUMENT. The fix
    # is in that one card, so the violation names it, once, and not its whole meld.
    pos = position(
        ruleset="mexe-mexe",
        players=3,
        table=[
            rummy_pb2.Meld(cards=["2H=6H", "7H", "8H"]),
            rummy_pb2.Meld(cards=["9S", "9D=9D", "9C"]),
        ],
    )
    request = rummy_pb2.ValidateMoveRequest(position=pos, move=same_table_move())
    found = violation_list(call_error(rummy_stub.ValidateMove, request))
    assert [field for field, _ in found] == ["position.table[1].cards[1]"]
    assert "9D=9D" in found[0][1] and "only a wild card" in found[0][1]


@pytest.mark.parametrize(
    ("table", "hand", "path"),
    [
        ([["JK", "10H", "JH"]], ["6H"], "position.table[0].cards[0]"),
        ([["8H", "9H", "10H"]], ["6H", "JK"], "position.hand[1]"),
    ],
)
def test_a_card_foreign_to_the_deck_is_named_once(
    rummy_stub: Any, table: list[list[str]], hand: list[str], path: str
) -> None:
    # R1: the deck follows from the ruleset, and shangai's has no jokers; SPEC §5: a bad
    # card code is INVALID_ARGUMENT. One JK is one violation at its own path, not also an
    # invalid meld or "1 copies of JK" against a deck that holds none.
    pos = position(
        ruleset="shangai",
        players=3,
        hand=hand,
        table=[rummy_pb2.Meld(cards=meld) for meld in table],
        turn=rummy_pb2.Turn(cards_drawn=1),
    )
    request = rummy_pb2.SolveMoveRequest(position=pos)
    found = violation_list(call_error(rummy_stub.SolveMove, request))
    assert found == [(path, "JK is not a card of shangai")]


def test_missing_position(rummy_stub: Any) -> None:
    request = rummy_pb2.ValidateMoveRequest(move=same_table_move())
    found = field_violations(call_error(rummy_stub.ValidateMove, request))
    assert "position" in found


def test_missing_move(rummy_stub: Any) -> None:
    # SPEC §5: "a missing required message" is malformed, not an empty table after the play.
    request = rummy_pb2.ValidateMoveRequest(position=position())
    found = field_violations(call_error(rummy_stub.ValidateMove, request))
    assert list(found) == ["move"]


def test_an_empty_move_that_is_set_is_judged(rummy_stub: Any) -> None:
    # SPEC §5: an illegal move is a normal answer, never an RPC error.
    request = rummy_pb2.ValidateMoveRequest(position=position(), move=rummy_pb2.RummyMove())
    reply = rummy_stub.ValidateMove(request, timeout=10)
    assert not reply.legal
    assert rummy_pb2.VIOLATION_CODE_TABLE_CARD_REMOVED in [v.code for v in reply.violations]


def test_solve_move_checks_its_numbers(rummy_stub: Any) -> None:
    request = rummy_pb2.SolveMoveRequest(
        position=position(players=9), max_moves=-1, time_limit_ms=-5
    )
    found = field_violations(call_error(rummy_stub.SolveMove, request))
    assert {"max_moves", "time_limit_ms", "position.players"} <= set(found)


def test_check_knock_checks_the_optional_move(rummy_stub: Any) -> None:
    request = rummy_pb2.CheckKnockRequest(
        position=position(), move=rummy_pb2.RummyMove(table=[rummy_pb2.Meld(cards=["QQ"])])
    )
    found = field_violations(call_error(rummy_stub.CheckKnock, request))
    assert "move.table[0].cards[0]" in found


def test_score_round_checks_hands_and_players(rummy_stub: Any) -> None:
    request = rummy_pb2.ScoreRoundRequest(
        ruleset="carrossel",
        players=3,
        end=rummy_pb2.ROUND_END_KNOCK,
        ender=5,
        hands=[rummy_pb2.Hand(cards=["AS"]), rummy_pb2.Hand(cards=["1S"])],
        totals_before=[1, 2],
    )
    found = field_violations(call_error(rummy_stub.ScoreRound, request))
    assert {"hands", "hands[1].cards[0]"} <= set(found)


@pytest.mark.parametrize(
    ("method", "request_message", "field"),
    [
        ("ValidatePlay", fishing_pb2.ValidatePlayRequest(), "position.ruleset"),
        ("SolvePlay", fishing_pb2.SolvePlayRequest(), "position.ruleset"),
        ("ScoreDeal", fishing_pb2.ScoreDealRequest(), "ruleset"),
    ],
)
def test_empty_fishing_requests_are_invalid_argument(
    fishing_stub: Any, method: str, request_message: Any, field: str
) -> None:
    """The fishing RPCs have landed (issue #49): an empty request names its missing ruleset."""
    error = call_error(getattr(fishing_stub, method), request_message)
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert field in (error.details() or "")


def test_oversized_message_is_resource_exhausted(rummy_stub: Any) -> None:
    huge = position(hand=["7H" * (5 * 1024 * 1024 // 2)])
    request = rummy_pb2.ValidateMoveRequest(position=huge, move=same_table_move())
    error = call_error(rummy_stub.ValidateMove, request)
    assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED


def test_too_many_card_codes_is_invalid_argument(rummy_stub: Any) -> None:
    found = validate(rummy_stub, position(hand=["7H"] * 5000))
    assert "position" in found
    assert "at most" in found["position"]


def test_a_huge_bad_code_is_quoted_briefly(rummy_stub: Any) -> None:
    found = validate(rummy_stub, position(hand=["Z" * 100_000]))
    assert len(found["position.hand[0]"]) <= 200


def test_unexpected_exception_is_internal_and_the_server_survives(
    rummy_stub: Any, rulesets_stub: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(call: Any, request: Any, context: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(validate_move, "handle", broken)
    request = rummy_pb2.ValidateMoveRequest(position=position(), move=same_table_move())
    error = call_error(rummy_stub.ValidateMove, request)
    assert error.code() is grpc.StatusCode.INTERNAL
    assert "RuntimeError" in (error.details() or "")
    reply = rulesets_stub.ListRulesets(rulesets_pb2.ListRulesetsRequest(), timeout=5)
    assert len(reply.rulesets) == 10


def test_invalid_request_raised_by_a_handler_becomes_bad_request(
    rummy_stub: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from solver.core.errors import FieldProblem, InvalidRequest

    def picky(call: Any, request: Any, context: Any) -> Any:
        raise InvalidRequest([FieldProblem("move.discard", "no discard in carrossel")])

    monkeypatch.setattr(validate_move, "handle", picky)
    request = rummy_pb2.ValidateMoveRequest(position=position(), move=same_table_move())
    found = field_violations(call_error(rummy_stub.ValidateMove, request))
    assert found == {"move.discard": "no discard in carrossel"}


class _Deadline:
    """The one ServicerContext method ``solve_time_limit_s`` reads."""

    def __init__(self, remaining_s: float | None) -> None:
        self.remaining_s = remaining_s

    def time_remaining(self) -> float | None:
        return self.remaining_s


def test_solver_time_is_the_limit_asked_or_10_s_within_the_deadline() -> None:
    """SPEC §5: solver time is the smaller of time_limit_ms and the call's deadline; 0
    means the library's own default (docs/api.md), at most 30 s, and 100 ms of the deadline
    are kept back to send the answer."""
    assert solve_time_limit_s(0, _Deadline(None)) == 10.0  # type: ignore[arg-type]
    assert solve_time_limit_s(0, _Deadline(None)) * 1000 == DEFAULT_TIME_LIMIT_MS  # type: ignore[arg-type]
    assert solve_time_limit_s(500, _Deadline(None)) == 0.5  # type: ignore[arg-type]
    assert solve_time_limit_s(99_999, _Deadline(None)) == 30.0  # type: ignore[arg-type]
    assert solve_time_limit_s(0, _Deadline(1.0)) == 0.9  # type: ignore[arg-type]
    assert solve_time_limit_s(0, _Deadline(0.05)) == 0.01  # type: ignore[arg-type]
