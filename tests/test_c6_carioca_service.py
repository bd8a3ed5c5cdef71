"""Carioca through RummyService (C2-C7, SPEC §4-§5): SolveMove vectors in-process and over
gRPC (every returned move re-judged by ValidateMove), the draw decision (C6), CheckKnock
refused (carioca has no knock), the position's grown table (C5), and malformed requests as
INVALID_ARGUMENT with BadRequest field paths; plus seeded random carioca requests that must
be answered or refused properly, never fail."""

from __future__ import annotations

import random
import tomllib
from pathlib import Path
from typing import Any

import grpc
import pytest

from carrossel.v1 import rummy_pb2
from solver.contract.draw import decide_draw
from solver.contract.search import solve_contract_move
from solver.core.cards import parse_card
from solver.core.registry import Rpc, not_served, refusal, served_rpcs
from solver.core.rulesets import CARIOCA, CARROSSEL
from solver.rummy.position import Turn, parse_position
from tests.carioca_positions import layoff_position, opening_position
from tests.test_service_errors import call_error, field_violations

VECTORS = Path(__file__).parent / "vectors" / "solve" / "carioca.toml"
Case = dict[str, Any]


def _cases() -> list[Case]:
    with VECTORS.open("rb") as handle:
        cases: list[Case] = tomllib.load(handle)["case"]
    return cases


def _turn(case: Case) -> dict[str, Any]:
    turn = {"cards_drawn": 0 if "discard_top" in case else 1}
    turn.update(case.get("turn", {}))
    return turn


def _position_proto(case: Case) -> rummy_pb2.RummyPosition:
    return rummy_pb2.RummyPosition(
        ruleset="carioca",
        players=case.get("players", 2),
        table=[rummy_pb2.Meld(cards=m.split()) for m in case.get("table", [])],
        hand=case["hand"].split(),
        turn=rummy_pb2.Turn(**_turn(case)),
        discard_top=case.get("discard_top", ""),
    )


def _check_first(
    case: Case, points: int, went_out: bool, table_after: int, laid: list[str], discard: str
) -> None:
    expect = case["expect"]
    assert points == expect["points"], case["id"]
    assert went_out == expect.get("went_out", False), case["id"]
    if "opens" in expect:
        assert (table_after > len(case.get("table", []))) == expect["opens"], case["id"]
    if "laid" in expect:
        assert sorted(laid) == sorted(expect["laid"].split()), case["id"]
    if "discard" in expect:
        assert discard == expect["discard"], case["id"]
    if "jokers_laid" in expect:
        assert laid.count("JK") == expect["jokers_laid"], case["id"]


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c["id"])
def test_solve_vector_in_process(case: Case) -> None:
    position = parse_position(
        "carioca",
        case.get("players", 2),
        [m.split() for m in case.get("table", [])],
        case["hand"].split(),
        Turn(**_turn(case)),
    )
    most_cards = case.get("objective") == "most_cards"
    if "discard_top" in case:
        drawn = decide_draw(position, parse_card(case["discard_top"]), 3, 10_000, most_cards)
        assert drawn.decision.take == case["expect"]["take_discard_top"], case["id"]
        assert drawn.decision.points_without == case["expect"]["points_from_stock"], case["id"]
        result = drawn.solved
    else:
        result = solve_contract_move(position, 3, 10_000, most_cards)
    assert result.optimal
    best = result.moves[0]
    _check_first(
        case,
        best.verdict.hand_points_after,
        best.verdict.went_out,
        len(best.move.table),
        [c.code for c in best.verdict.played],
        best.move.discard.code if best.move.discard else "",
    )


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c["id"])
def test_solve_vector_over_grpc_and_every_move_validates(rummy_stub: Any, case: Case) -> None:
    objective = (
        rummy_pb2.OBJECTIVE_MOST_CARDS
        if case.get("objective") == "most_cards"
        else rummy_pb2.OBJECTIVE_UNSPECIFIED
    )
    request = rummy_pb2.SolveMoveRequest(
        position=_position_proto(case), max_moves=3, objective=objective, time_limit_ms=10_000
    )
    response = rummy_stub.SolveMove(request, timeout=30)
    assert response.optimal and response.stats.status == "OPTIMAL"
    best = response.moves[0]
    _check_first(
        case,
        best.hand_points_after,
        best.went_out,
        len(best.move.table),
        list(best.played),
        best.move.discard,
    )
    if "discard_top" in case:
        advice = response.draw_advice
        assert response.take_discard_top == advice.take_discard_top
        assert advice.take_discard_top == case["expect"]["take_discard_top"]
        assert advice.hand_points_drawing_from_stock == case["expect"]["points_from_stock"]
        assert advice.hand_points_after_taking == best.hand_points_after
        assert advice.discard_top == case["discard_top"] and advice.reason
    else:
        assert not response.HasField("draw_advice")
    # Every move leaves the server legal: ValidateMove agrees, with the same effects.
    judged_position = _position_proto(case)
    if "discard_top" in case:
        judged_position.hand.append(case["discard_top"])
        judged_position.turn.cards_drawn = 1
        judged_position.discard_top = ""
    points = []
    for solved in response.moves:
        verdict = rummy_stub.ValidateMove(
            rummy_pb2.ValidateMoveRequest(position=judged_position, move=solved.move), timeout=10
        )
        assert verdict.legal, (case["id"], verdict.violations)
        assert verdict.hand_points_after == solved.hand_points_after
        assert list(verdict.played) == list(solved.played)
        points.append(solved.hand_points_after)
    if objective == rummy_pb2.OBJECTIVE_UNSPECIFIED:
        assert points == sorted(points)


def test_check_knock_is_invalid_argument_for_carioca(rummy_stub: Any) -> None:
    # SPEC §4: "Carioca has no knock: INVALID_ARGUMENT"; the knock is carrossel's (R10).
    request = rummy_pb2.CheckKnockRequest(
        position=_position_proto({"hand": "8S 2C", "turn": {"deal_number": 1}})
    )
    found = field_violations(call_error(rummy_stub.CheckKnock, request))
    assert list(found) == ["position.ruleset"]
    assert "carioca has no knock" in found["position.ruleset"]


def test_the_position_table_follows_c5(rummy_stub: Any) -> None:
    # C5: "The position's table may hold trios grown past 3 and sequences up to 14 cards."
    case = {
        "hand": "KD 2C",
        "turn": {"deal_number": 1, "has_opened": True},
        "table": ["KS KH KC KD KH", "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"],
    }
    response = rummy_stub.SolveMove(
        rummy_pb2.SolveMoveRequest(position=_position_proto(case)), timeout=10
    )
    best = response.moves[0]
    assert best.went_out and list(best.move.table[0].cards)[-1] == "KD"


def _solve_error(stub: Any, **changes: Any) -> dict[str, str]:
    case: Case = {"hand": "8S 2C", "turn": {"deal_number": 1}}
    case.update(changes)
    position = _position_proto(case)
    return field_violations(
        call_error(stub.SolveMove, rummy_pb2.SolveMoveRequest(position=position))
    )


@pytest.mark.parametrize("deal", [0, 8])
def test_deal_out_of_range_is_invalid_argument(rummy_stub: Any, deal: int) -> None:
    found = _solve_error(rummy_stub, turn={"deal_number": deal})
    assert list(found) == ["position.turn.deal_number"]


@pytest.mark.parametrize("top", ["ZZ", "1S", "BROOM", "7H=7H"])
def test_malformed_discard_top_is_invalid_argument(rummy_stub: Any, top: str) -> None:
    found = _solve_error(rummy_stub, discard_top=top)
    assert list(found) == ["position.discard_top"]


def test_discard_top_after_the_draw_is_invalid_argument(rummy_stub: Any) -> None:
    found = _solve_error(rummy_stub, discard_top="8H", turn={"deal_number": 1, "cards_drawn": 1})
    assert list(found) == ["position.discard_top"]
    assert "cards_drawn" in found["position.discard_top"]


def test_a_third_copy_as_discard_top_is_invalid_argument(rummy_stub: Any) -> None:
    # C1: two decks, so two of every card.
    found = _solve_error(rummy_stub, hand="8S 8S 2C", discard_top="8S")
    assert list(found) == ["position.discard_top"]


def test_bad_discard_code_in_the_move_is_invalid_argument(rummy_stub: Any) -> None:
    request = rummy_pb2.ValidateMoveRequest(
        position=_position_proto({"hand": "8S 2C", "turn": {"deal_number": 1}}),
        move=rummy_pb2.RummyMove(discard="2X"),
    )
    found = field_violations(call_error(rummy_stub.ValidateMove, request))
    assert list(found) == ["move.discard"]


def test_an_invalid_meld_on_a_carioca_table_is_invalid_argument(rummy_stub: Any) -> None:
    # A 3-card sequence is no carioca meld, opened or grown (C3, C5).
    found = _solve_error(rummy_stub, table=["4S 5S 6S"])
    assert list(found) == ["position.table[0]"]


SEED = 4848
REQUESTS = 150
RANK_TEXTS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
CODES = [*(f"{r}{s}" for r in RANK_TEXTS for s in "CDHS"), "JK"]


def _random_request(rng: random.Random) -> rummy_pb2.SolveMoveRequest:
    """A random carioca position, sometimes spoiled."""
    deal = rng.randint(1, 7)
    rp = opening_position(rng, deal) if rng.random() < 0.5 else layoff_position(rng, deal)
    case: Case = {
        "hand": " ".join(rp.hand),
        "table": [" ".join(m) for m in rp.table],
        "turn": {"deal_number": deal, "has_opened": rp.opened},
    }
    spoil = rng.randrange(8)
    if spoil == 0:
        case["turn"]["deal_number"] = rng.choice((-1, 0, 8, 99))
    elif spoil == 1:
        case["discard_top"] = rng.choice((*CODES, "ZZ", "JK=3"))
    elif spoil == 2 and case["table"]:
        meld = case["table"][0].split()
        meld.insert(rng.randrange(len(meld) + 1), rng.choice(CODES))
        case["table"][0] = " ".join(meld)
    elif spoil == 3:
        case["hand"] += " " + rng.choice(CODES)
    return rummy_pb2.SolveMoveRequest(
        position=_position_proto(case), max_moves=rng.choice((0, 1, 3))
    )


def test_random_carioca_requests_are_answered_or_refused(rummy_stub: Any) -> None:
    rng = random.Random(SEED)
    answered = 0
    for _ in range(REQUESTS):
        request = _random_request(rng)
        try:
            response = rummy_stub.SolveMove(request, timeout=30)
        except grpc.RpcError as error:
            field_violations(error)  # INVALID_ARGUMENT with BadRequest, else it fails
            continue
        answered += 1
        position = rummy_pb2.RummyPosition()
        position.CopyFrom(request.position)
        if position.discard_top:
            position.hand.append(position.discard_top)
            position.turn.cards_drawn = 1
            position.discard_top = ""
        for solved in response.moves:
            verdict = rummy_stub.ValidateMove(
                rummy_pb2.ValidateMoveRequest(position=position, move=solved.move), timeout=10
            )
            assert verdict.legal, (request, verdict.violations)
    assert answered >= REQUESTS // 2


def test_a_tiny_time_limit_still_answers_a_legal_move(rummy_stub: Any) -> None:
    # SPEC §5: running out of time returns the best found, never nothing: a pass with a
    # discard is always a legal carioca turn (C6).
    case: Case = {"hand": "8C 8D 8H 4S 5S 6S 7S 8S KD 2C 3C JK", "turn": {"deal_number": 2}}
    position = _position_proto(case)
    response = rummy_stub.SolveMove(
        rummy_pb2.SolveMoveRequest(position=position, time_limit_ms=1), timeout=10
    )
    assert response.moves
    verdict = rummy_stub.ValidateMove(
        rummy_pb2.ValidateMoveRequest(position=position, move=response.moves[0].move), timeout=10
    )
    assert verdict.legal
    assert response.optimal == (response.stats.status == "OPTIMAL")


def test_the_registry_says_what_carioca_serves() -> None:
    # The one place that answers "is this RPC served?" (solver/core/registry.py).
    assert served_rpcs(CARIOCA) == (Rpc.VALIDATE_MOVE, Rpc.SOLVE_MOVE, Rpc.SCORE_ROUND)
    assert refusal(CARIOCA, Rpc.CHECK_KNOCK) is not None
    assert refusal(CARROSSEL, Rpc.CHECK_KNOCK) is None
    assert not_served(CARIOCA, Rpc.CHECK_KNOCK) is not None
