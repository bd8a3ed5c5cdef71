"""FishingService through gRPC (SPEC §4, §5): the ruling vectors answered over the wire,
SolvePlay's plays re-validated by ValidatePlay, ScoreDeal, determinism, and malformed
requests as INVALID_ARGUMENT with a BadRequest naming each field path."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from carrossel.v1 import fishing_pb2
from tests.fishing_vectors import Case, params, piles, play_proto, position_proto
from tests.reference.fishing_positions import play_sample

TIMEOUT = 10


def item_text(item: fishing_pb2.TableItem) -> str:
    if len(item.cards) == 1:
        return item.cards[0]
    return f"[{' '.join(item.cards)} ={item.value} @{item.owner}]"


def code_name(code: fishing_pb2.FishingViolationCode.ValueType) -> str:
    return fishing_pb2.FishingViolationCode.Name(code).removeprefix("FISHING_VIOLATION_CODE_")


@pytest.mark.parametrize("case", params("plays"))
def test_validate_play_vectors_over_grpc(fishing_stub: Any, case: Case) -> None:
    """F1-F7 vectors: verdict, codes, rulings, captured cards, table after, deal points."""
    answer = fishing_stub.ValidatePlay(
        fishing_pb2.ValidatePlayRequest(position=position_proto(case), play=play_proto(case)),
        timeout=TIMEOUT,
    )
    expect = case["expect"]
    assert answer.legal is expect["legal"]
    assert [code_name(v.code) for v in answer.violations] == expect["violations"]
    assert all(v.rule.startswith("F") and v.message for v in answer.violations)
    if expect["legal"]:
        assert list(answer.captured) == expect["captured"].split()
        assert [item_text(i) for i in answer.table_after] == expect["table_after"]
        assert answer.deal_points == expect["deal_points"]


def solve(stub: Any, position: fishing_pb2.FishingPosition, max_plays: int = 20) -> Any:
    request = fishing_pb2.SolvePlayRequest(position=position, max_plays=max_plays)
    return stub.SolvePlay(request, timeout=TIMEOUT)


def revalidate(stub: Any, position: fishing_pb2.FishingPosition, solved: Any) -> None:
    """A solved play is legal for the referee, with the same effects."""
    verdict = stub.ValidatePlay(
        fishing_pb2.ValidatePlayRequest(position=position, play=solved.play), timeout=TIMEOUT
    )
    assert verdict.legal, verdict
    assert list(verdict.captured) == list(solved.captured)
    assert verdict.deal_points == solved.deal_points
    assert list(verdict.table_after) == list(solved.table_after)


@pytest.mark.parametrize("case", params("solve"))
def test_solve_play_vectors_over_grpc(fishing_stub: Any, case: Case) -> None:
    """The best play and its key (deal points, cards, prize-suit cards); every play legal."""
    position = position_proto(case)
    answer = solve(fishing_stub, position)
    expect = case["expect"]
    assert answer.optimal
    assert len(answer.plays) == expect["plays"]
    best = answer.plays[0]
    taken = sorted(i for g in best.play.capture.groups for i in g.items)
    if best.play.WhichOneof("action") == "broom":
        taken = list(range(len(position.table)))
    assert (best.play.card, taken) == (expect["card"], expect["taken"])
    assert (best.deal_points, len(best.captured), best.prize_suit_cards) == (
        expect["deal_points"],
        expect["cards"],
        expect["prize_suit_cards"],
    )
    for solved in answer.plays:
        revalidate(fishing_stub, position, solved)


def sample_proto(seed: int) -> fishing_pb2.FishingPosition:
    raw = play_sample(seed).raw
    return fishing_pb2.FishingPosition(
        ruleset=raw.ruleset,
        deck_size=raw.deck_size,
        players=raw.players,
        player=raw.player,
        hand=list(raw.hand),
        table=[fishing_pb2.TableItem(cards=list(i.cards), owner=i.owner) for i in raw.table],
    )


@pytest.mark.parametrize("seed", range(5000, 5030))
def test_every_solved_play_validates_and_answers_repeat(fishing_stub: Any, seed: int) -> None:
    """SPEC §4/§5: every play SolvePlay returns passes ValidatePlay; the same request gives
    the same answer."""
    position = sample_proto(seed)
    answer = solve(fishing_stub, position, max_plays=4)
    assert answer.plays
    for solved in answer.plays:
        revalidate(fishing_stub, position, solved)
    assert solve(fishing_stub, position, max_plays=4) == answer


@pytest.mark.parametrize("case", params("deals"))
def test_score_deal_vectors_over_grpc(fishing_stub: Any, case: Case) -> None:
    request = fishing_pb2.ScoreDealRequest(
        ruleset=case["ruleset"],
        deck_size=case["deck_size"],
        piles=[fishing_pb2.Pile(cards=p) for p in piles(case)],
        totals_before=case["totals_before"],
        omit_broom=case.get("omit_broom", False),
    )
    answer = fishing_stub.ScoreDeal(request, timeout=TIMEOUT)
    expect = case["expect"]
    assert list(answer.points) == expect["points"]
    assert list(answer.totals_after) == expect["totals_after"]
    assert (answer.game_over, answer.winner, answer.another_deal) == (
        expect["game_over"],
        expect["winner"],
        expect["another_deal"],
    )
    assert all(line.rule == "F9" for line in answer.lines)


# --- malformed requests -------------------------------------------------------------------


def pos(**fields: Any) -> fishing_pb2.FishingPosition:
    base: dict[str, Any] = {
        "ruleset": "carosello",
        "deck_size": 56,
        "table": [fishing_pb2.TableItem(cards=["3C"]), fishing_pb2.TableItem(cards=["4D"])],
        "hand": ["7S", "6H"],
    }
    base.update(fields)
    return fishing_pb2.FishingPosition(**base)


def validate(
    position: fishing_pb2.FishingPosition, play: fishing_pb2.FishingPlay | None = None
) -> fishing_pb2.ValidatePlayRequest:
    play = play or fishing_pb2.FishingPlay(card="7S", trail=fishing_pb2.Trail())
    return fishing_pb2.ValidatePlayRequest(position=position, play=play)


def capture(card: str, *groups: list[int]) -> fishing_pb2.FishingPlay:
    return fishing_pb2.FishingPlay(
        card=card,
        capture=fishing_pb2.Capture(groups=[fishing_pb2.CaptureGroup(items=g) for g in groups]),
    )


def item(*cards: str, value: int = 0, owner: int = 0) -> fishing_pb2.TableItem:
    return fishing_pb2.TableItem(cards=list(cards), value=value, owner=owner)


MALFORMED: list[tuple[str, str, Any, list[str]]] = [
    ("unknown-ruleset", "ValidatePlay", validate(pos(ruleset="scopa")), ["position.ruleset"]),
    (
        "bad-position-and-bad-play",
        "ValidatePlay",
        validate(pos(hand=["7S", "7X"]), capture("7S", [9])),
        ["position.hand[1]", "play.capture.groups[0].items[0]"],
    ),
    (
        "rummy-ruleset",
        "SolvePlay",
        fishing_pb2.SolvePlayRequest(position=pos(ruleset="carrossel")),
        ["position.ruleset"],
    ),
    ("bad-code", "ValidatePlay", validate(pos(hand=["7S", "7X"])), ["position.hand[1]"]),
    (
        "bad-table-code",
        "SolvePlay",
        fishing_pb2.SolvePlayRequest(position=pos(table=[item("3C"), item("ZZ")])),
        ["position.table[1].cards[0]"],
    ),
    ("bad-play-code", "ValidatePlay", validate(pos(), capture("7Q", [0, 1])), ["play.card"]),
    ("wrong-deck-size", "ValidatePlay", validate(pos(deck_size=52)), ["position.deck_size"]),
    (
        "jk20-in-a-54-deck",
        "ValidatePlay",
        validate(pos(deck_size=54, hand=["JK20", "7S"])),
        ["position.hand[0]"],
    ),
    (
        "broom-in-a-54-deck",
        "SolvePlay",
        fishing_pb2.SolvePlayRequest(position=pos(deck_size=54, hand=["BROOM"])),
        ["position.hand[0]"],
    ),
    (
        "card-twice",
        "ValidatePlay",
        validate(pos(hand=["3C", "7S"])),
        ["position.table[0].cards[0]"],
    ),
    (
        "five-cards-in-hand",
        "SolvePlay",
        fishing_pb2.SolvePlayRequest(position=pos(hand=["7S", "6H", "5C", "2D", "9S"])),
        ["position.hand"],
    ),
    (
        "empty-hand",
        "SolvePlay",
        fishing_pb2.SolvePlayRequest(position=pos(hand=[])),
        ["position.hand"],
    ),
    ("five-players", "ValidatePlay", validate(pos(players=5)), ["position.players"]),
    (
        "player-out-of-range",
        "ValidatePlay",
        validate(pos(players=3, player=3)),
        ["position.player"],
    ),
    (
        "item-index-out-of-range",
        "ValidatePlay",
        validate(pos(), capture("7S", [0, 5])),
        ["play.capture.groups[0].items[1]"],
    ),
    (
        "build-index-out-of-range",
        "ValidatePlay",
        validate(
            pos(), fishing_pb2.FishingPlay(card="6H", build=fishing_pb2.Build(items=[-1], value=7))
        ),
        ["play.build.items[0]"],
    ),
    (
        "no-action",
        "ValidatePlay",
        validate(pos(), fishing_pb2.FishingPlay(card="7S")),
        ["play.action"],
    ),
    (
        "build-with-wrong-value",
        "ValidatePlay",
        validate(pos(table=[item("2H", "3S", value=7, owner=1)])),
        ["position.table[0].value"],
    ),
    (
        "build-with-a-court-card",
        "SolvePlay",
        fishing_pb2.SolvePlayRequest(position=pos(table=[item("2H", "KS", value=2, owner=1)])),
        ["position.table[0].cards"],
    ),
    (
        "build-owner-out-of-range",
        "SolvePlay",
        fishing_pb2.SolvePlayRequest(position=pos(table=[item("2H", "3S", value=5, owner=2)])),
        ["position.table[0].owner"],
    ),
    (
        "own-build-without-its-card",
        "SolvePlay",
        fishing_pb2.SolvePlayRequest(position=pos(table=[item("2H", "3S", value=5, owner=0)])),
        ["position.table[0]"],
    ),
    (
        "broom-on-the-table",
        "SolvePlay",
        fishing_pb2.SolvePlayRequest(position=pos(table=[item("BROOM")])),
        ["position.table[0].cards"],
    ),
    (
        "single-card-with-wrong-value",
        "ValidatePlay",
        validate(pos(table=[item("3C", value=4), item("4D")])),
        ["position.table[0].value"],
    ),
    (
        "too-many-plays",
        "SolvePlay",
        fishing_pb2.SolvePlayRequest(position=pos(), max_plays=101),
        ["max_plays"],
    ),
    (
        "score-unknown-ruleset",
        "ScoreDeal",
        fishing_pb2.ScoreDealRequest(ruleset="tute"),
        ["ruleset"],
    ),
    (
        "score-bad-code",
        "ScoreDeal",
        fishing_pb2.ScoreDealRequest(
            ruleset="carosello", piles=[fishing_pb2.Pile(cards=["1Z"]), fishing_pb2.Pile()]
        ),
        ["piles[0].cards[0]"],
    ),
    (
        "score-card-in-two-piles",
        "ScoreDeal",
        fishing_pb2.ScoreDealRequest(
            ruleset="carosello",
            piles=[fishing_pb2.Pile(cards=["7H"]), fishing_pb2.Pile(cards=["7H"])],
        ),
        ["piles[1].cards[0]"],
    ),
    (
        "score-wrong-deck-size",
        "ScoreDeal",
        fishing_pb2.ScoreDealRequest(ruleset="carosello", deck_size=40),
        ["deck_size"],
    ),
    (
        "score-totals-for-the-wrong-sides",
        "ScoreDeal",
        fishing_pb2.ScoreDealRequest(
            ruleset="carosello",
            piles=[fishing_pb2.Pile(), fishing_pb2.Pile()],
            totals_before=[1, 2, 3],
        ),
        ["totals_before"],
    ),
]


@pytest.mark.parametrize(
    ("name", "method", "request_message", "fields"), [pytest.param(*m, id=m[0]) for m in MALFORMED]
)
def test_malformed_requests_are_invalid_argument(
    fishing_stub: Any, name: str, method: str, request_message: Any, fields: list[str]
) -> None:
    """SPEC §5: INVALID_ARGUMENT with a google.rpc.BadRequest naming each bad field."""
    call: Callable[..., Any] = getattr(fishing_stub, method)
    with pytest.raises(grpc.RpcError) as caught:
        call(request_message, timeout=TIMEOUT)
    error: Any = caught.value
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT, name
    status = rpc_status.from_call(error)
    assert status is not None
    detail = error_details_pb2.BadRequest()
    assert status.details[0].Unpack(detail)
    assert [v.field for v in detail.field_violations] == fields
    assert all(v.description for v in detail.field_violations)


def test_a_tiny_time_limit_still_answers(fishing_stub: Any) -> None:
    """SPEC §5: the time limit bounds the solver; the answer still comes, never a hang."""
    request = fishing_pb2.SolvePlayRequest(position=sample_proto(5001), time_limit_ms=1)
    answer = fishing_stub.SolvePlay(request, timeout=TIMEOUT)
    for solved in answer.plays:
        revalidate(fishing_stub, sample_proto(5001), solved)
