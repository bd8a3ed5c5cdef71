"""The names the product owner's checks rely on (issue 2) stay exactly as they are."""

from __future__ import annotations

import pytest
from google.protobuf.descriptor import Descriptor, FileDescriptor

from carrossel.v1 import fishing_pb2, rulesets_pb2, rummy_pb2

FILES: list[FileDescriptor] = [
    rulesets_pb2.DESCRIPTOR,
    rummy_pb2.DESCRIPTOR,
    fishing_pb2.DESCRIPTOR,
]


def message(name: str) -> Descriptor:
    for file in FILES:
        if name in file.message_types_by_name:
            found: Descriptor = file.message_types_by_name[name]
            return found
    raise KeyError(name)


@pytest.mark.parametrize(
    ("service", "methods"),
    [
        ("RulesetService", ["ListRulesets"]),
        ("RummyService", ["ValidateMove", "SolveMove", "CheckKnock", "ScoreRound"]),
        ("FishingService", ["ValidatePlay", "SolvePlay", "ScoreDeal"]),
    ],
)
def test_services_and_methods(service: str, methods: list[str]) -> None:
    found = [f.services_by_name[service] for f in FILES if service in f.services_by_name]
    assert len(found) == 1
    assert found[0].full_name == f"carrossel.v1.{service}"
    assert [m.name for m in found[0].methods] == methods
    for m in found[0].methods:
        assert m.input_type.name == f"{m.name}Request"
        assert m.output_type.name == f"{m.name}Response"


FIELDS = {
    "ListRulesetsResponse": ["rulesets", "version"],
    "ValidateMoveRequest": ["position", "move", "suggest"],
    "RummyPosition": ["ruleset", "players", "table", "hand", "turn", "discard_top"],
    "Meld": ["cards"],
    "Turn": ["cards_drawn", "stock_empty", "has_melded_sequence", "has_opened", "deal_number"],
    "RummyMove": ["table", "to_hand", "knock", "discard"],
    "ValidateMoveResponse": [
        "legal",
        "violations",
        "played",
        "hand_after",
        "hand_points_after",
        "went_out",
        "knock_eligible",
        "table",
        "nearest_legal",
        "nearest_kept_melds",
        "nearest_same_cards",
        "suggestion_optimal",
        "suggestion_note",
    ],
    "Violation": ["code", "message", "meld", "cards", "rule"],
    "SolveMoveRequest": ["position", "objective", "max_moves", "time_limit_ms"],
    "SolveMoveResponse": [
        "moves",
        "optimal",
        "stats",
        "take_discard_top",
        "draw_advice",
        "no_play_violations",
        "no_play_reason",
    ],
    "DrawAdvice": [
        "discard_top",
        "take_discard_top",
        "hand_points_after_taking",
        "hand_points_drawing_from_stock",
        "optimal",
        "reason",
    ],
    "SolveStats": [
        "wall_time_ms",
        "status",
        "objective_value",
        "branches",
        "conflicts",
        "num_solutions",
        "tie_break_proved",
    ],
    "SolvedMove": [
        "move",
        "played",
        "hand_after",
        "hand_points_after",
        "went_out",
        "knock_eligible",
        "melds_changed",
        "changed_melds",
        "new_melds",
    ],
    "CheckKnockRequest": ["position", "move"],
    "CheckKnockResponse": [
        "eligible",
        "reason",
        "hand_points",
        "best_hand_points",
        "can_knock",
        "can_go_out",
        "witness",
        "optimal",
        "time_limited",
        "knock_witness",
        "knock_hand_points",
    ],
    "ScoreRoundRequest": [
        "ruleset",
        "players",
        "end",
        "ender",
        "hands",
        "totals_before",
        "rounds_won_before",
        "deal_number",
    ],
    "Hand": ["cards"],
    "ScoreRoundResponse": [
        "round_points",
        "winners",
        "totals_after",
        "game_over",
        "final_scores",
        "game_winners",
        "lines",
    ],
    "FishingPosition": ["ruleset", "deck_size", "table", "hand", "player"],
    "TableItem": ["cards", "value", "owner"],
}


@pytest.mark.parametrize(("name", "fields"), sorted(FIELDS.items()))
def test_message_fields(name: str, fields: list[str]) -> None:
    have = [f.name for f in message(name).fields]
    assert have[: len(fields)] == fields  # in this order, with their numbers 1..n
    assert [f.number for f in message(name).fields][: len(fields)] == list(
        range(1, len(fields) + 1)
    )


def test_ruleset_has_an_id() -> None:
    assert message("Ruleset").fields_by_name["id"].number == 1


def test_ruleset_says_which_rpcs_are_served() -> None:
    field = message("Ruleset").fields_by_name["served_rpcs"]
    assert field.number == 44
    assert field.is_repeated and field.type == field.TYPE_STRING


def test_enums() -> None:
    assert list(rummy_pb2.Objective.keys()) == [
        "OBJECTIVE_UNSPECIFIED",
        "OBJECTIVE_MOST_CARDS",
        "OBJECTIVE_FEWEST_POINTS",
        "OBJECTIVE_GO_OUT",
    ]
    assert list(rummy_pb2.RoundEnd.keys()) == [
        "ROUND_END_UNSPECIFIED",
        "ROUND_END_WENT_OUT",
        "ROUND_END_KNOCK",
        "ROUND_END_STOCK_EXHAUSTED",
    ]
    names = [
        "INVALID_MELD",
        "CARD_NOT_IN_HAND",
        "TABLE_CARD_REMOVED",
        "NO_HAND_CARD_PLAYED",
        "TOO_MANY_NEW_MELDS",
        "WILD_VALUE_CHANGED",
        "WILD_TO_HAND",
        "WILD_MOVED",
        "FIRST_MELD_NOT_SEQUENCE",
        "ADD_NOT_MAXIMAL",
        "MUST_PLAY",
        "DRAW_RULE",
        "KNOCK_NOT_ALLOWED",
        "INITIAL_MELD_TOO_LOW",
        "CONTRACT_NOT_MET",
        "NOT_OPENED",
        "DISCARD_RULE",
        "AMBIGUOUS_MELD",
        "TURN_OVER",
    ]
    assert list(rummy_pb2.ViolationCode.items()) == [
        ("VIOLATION_CODE_UNSPECIFIED", 0),
        *((f"VIOLATION_CODE_{n}", i) for i, n in enumerate(names, start=1)),
    ]


def test_nearest_legal_is_a_solved_move_with_presence() -> None:
    # Issue #53: the suggestion reuses SolveMove's message, and an answer without one says so
    # by leaving it unset (not an empty move, which would read as "pass").
    field = message("ValidateMoveResponse").fields_by_name["nearest_legal"]
    assert field.message_type.name == "SolvedMove"
    response = rummy_pb2.ValidateMoveResponse(legal=False)
    assert not response.HasField("nearest_legal")


def test_check_knock_move_has_presence() -> None:
    request = rummy_pb2.CheckKnockRequest()
    assert not request.HasField("move")
    request.move.knock = False
    assert request.HasField("move")


def test_fishing_play_actions_are_a_oneof() -> None:
    play = fishing_pb2.FishingPlay(card="7H", trail=fishing_pb2.Trail())
    assert play.WhichOneof("action") == "trail"
    play.capture.groups.add(items=[0, 2])
    assert play.WhichOneof("action") == "capture"
