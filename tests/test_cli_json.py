"""``--json`` on ``hint``, ``validate`` and ``knock``: the RPC's answer as grpcurl prints it.

Each test sends the request the options describe to a real server and checks that the
command printed the same JSON (the proto's snake_case names, as grpcurl prints them; defaults
left out)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.protobuf.json_format import MessageToJson
from google.protobuf.message import Message

from carrossel.v1 import fishing_pb2, fishing_pb2_grpc, rummy_pb2, rummy_pb2_grpc
from service.cli import main
from service.cli.commands.score_deal import expand_piles

TURN = rummy_pb2.Turn(cards_drawn=1, has_melded_sequence=True, has_opened=True)
POSITION = rummy_pb2.RummyPosition(
    ruleset="carrossel",
    players=2,
    table=[rummy_pb2.Meld(cards=["7H", "8S", "JK=9"])],
    hand=["5C", "9D", "3S"],
    turn=TURN,
)
OPTIONS = ["carrossel", "--table", "7H 8S JK=9", "--hand", "5C 9D 3S"]
AFTER = rummy_pb2.RummyMove(table=[rummy_pb2.Meld(cards=["5C", "JK", "7H", "8S", "9D"])])


def grpcurl_json(message: Message) -> Any:
    return json.loads(MessageToJson(message, preserving_proto_field_name=True))


def cli_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    code = main([*args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_validate_json_is_the_served_answer(
    capsys: pytest.CaptureFixture[str], rummy_stub: rummy_pb2_grpc.RummyServiceStub
) -> None:
    served = rummy_stub.ValidateMove(rummy_pb2.ValidateMoveRequest(position=POSITION, move=AFTER))
    code, printed = cli_json(capsys, "validate", *OPTIONS, "--after", "5C JK 7H 8S 9D")
    assert code == 0
    assert printed == grpcurl_json(served)
    assert printed["hand_points_after"] == 3 and printed["knock_eligible"] is True


def test_validate_json_of_an_illegal_move_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, printed = cli_json(
        capsys, "validate", *OPTIONS, "--drawn", "0", "--after", "5C JK 7H 8S 9D"
    )
    assert code == 1
    assert printed.get("legal") is None  # false is proto3's default: left out, as by grpcurl
    assert "VIOLATION_CODE_DRAW_RULE" in {v["code"] for v in printed["violations"]}


def test_hint_json_is_the_served_answer(
    capsys: pytest.CaptureFixture[str], rummy_stub: rummy_pb2_grpc.RummyServiceStub
) -> None:
    served = rummy_stub.SolveMove(rummy_pb2.SolveMoveRequest(position=POSITION, max_moves=2))
    code, printed = cli_json(capsys, "hint", *OPTIONS, "-n", "2")
    expected = grpcurl_json(served)
    # The solver's clock and search counters differ between two runs; the answer does not.
    for stats in (printed["stats"], expected["stats"]):
        for counter in ("wall_time_ms", "branches", "conflicts"):
            stats.pop(counter, None)
    assert code == 0
    assert printed == expected


def test_knock_json_is_the_served_answer(
    capsys: pytest.CaptureFixture[str], rummy_stub: rummy_pb2_grpc.RummyServiceStub
) -> None:
    served = rummy_stub.CheckKnock(rummy_pb2.CheckKnockRequest(position=POSITION))
    code, printed = cli_json(capsys, "knock", *OPTIONS)
    assert code == 0
    assert printed == grpcurl_json(served)
    assert printed["can_knock"] is True and printed["witness"]["table"]


def test_knock_json_after_a_move(
    capsys: pytest.CaptureFixture[str], rummy_stub: rummy_pb2_grpc.RummyServiceStub
) -> None:
    served = rummy_stub.CheckKnock(rummy_pb2.CheckKnockRequest(position=POSITION, move=AFTER))
    code, printed = cli_json(capsys, "knock", *OPTIONS, "--after", "5C JK 7H 8S 9D")
    assert code == 0
    assert printed == grpcurl_json(served) == {"eligible": True, "hand_points": 3, "optimal": True}


def test_json_names_are_grpcurls(capsys: pytest.CaptureFixture[str]) -> None:
    # grpcurl prints the proto's own field names (checked against grpcurl 1.8.6 and a server).
    code, printed = cli_json(capsys, "validate", *OPTIONS, "--after", "5C JK 7H 8S 9D")
    assert code == 0
    assert {"hand_after", "hand_points_after", "knock_eligible"} <= set(printed)


def test_json_malformed_input_is_reported_not_printed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "carrossel", "--hand", "5X", "--after", "", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "position.hand[0]" in captured.err


def test_score_json_is_the_served_answer(
    capsys: pytest.CaptureFixture[str], rummy_stub: rummy_pb2_grpc.RummyServiceStub
) -> None:
    # R12: the game ends past 100 with the bonuses; --end in a spelling the CLI accepts.
    served = rummy_stub.ScoreRound(
        rummy_pb2.ScoreRoundRequest(
            ruleset="carrossel",
            players=2,
            end=rummy_pb2.ROUND_END_KNOCK,
            ender=0,
            hands=[rummy_pb2.Hand(cards=["4H"]), rummy_pb2.Hand(cards=["KH", "QS", "5C"])],
            totals_before=[130, 120],
            rounds_won_before=[3, 2],
        )
    )
    code, printed = cli_json(
        capsys,
        "score",
        "carrossel",
        "--end",
        "KNOCK",
        "--hands",
        "4H | KH QS 5C",
        "--totals",
        "130,120",
        "--rounds-won",
        "3,2",
    )
    assert code == 0
    assert printed == grpcurl_json(served)
    assert printed["game_over"] is True and printed["game_winners"] == [0]


def test_score_deal_json_is_the_served_answer(
    capsys: pytest.CaptureFixture[str], fishing_stub: fishing_pb2_grpc.FishingServiceStub
) -> None:
    piles = expand_piles("carosello", 56, False, "JK20 10D AH | rest")
    served = fishing_stub.ScoreDeal(
        fishing_pb2.ScoreDealRequest(
            ruleset="carosello",
            deck_size=56,
            piles=[fishing_pb2.Pile(cards=p) for p in piles],
            totals_before=[110, 60],
        )
    )
    code, printed = cli_json(
        capsys, "score-deal", "carosello", "--piles", "JK20 10D AH | rest", "--totals", "110,60"
    )
    assert code == 0
    assert printed == grpcurl_json(served)
    assert printed["points"] == [13, 17]


def test_fish_json_is_the_served_answer(
    capsys: pytest.CaptureFixture[str], fishing_stub: fishing_pb2_grpc.FishingServiceStub
) -> None:
    position = fishing_pb2.FishingPosition(
        ruleset="carosello",
        deck_size=56,
        table=[
            fishing_pb2.TableItem(cards=["3C"]),
            fishing_pb2.TableItem(cards=["4D"]),
            fishing_pb2.TableItem(cards=["2H", "3S", "AC"], value=6, owner=1),
        ],
        hand=["7S", "6H"],
        players=2,
    )
    served = fishing_stub.SolvePlay(
        fishing_pb2.SolvePlayRequest(
            position=position,
            max_plays=5,
            time_limit_ms=10_000,
            horizon=fishing_pb2.HORIZON_PLAY,
        )
    )
    code, printed = cli_json(
        capsys, "fish", "carosello", "--table", "3C 4D [2H 3S AC=6 @1]", "--hand", "7S 6H"
    )
    assert code == 0
    assert printed == grpcurl_json(served)
    assert printed["plays"][0]["play"]["card"]
