"""ListRulesets serves the ten rulesets of SPEC §1 with their parameters."""

from __future__ import annotations

from enum import Enum
from importlib import metadata

import pytest

from carrossel.v1 import fishing_pb2, rulesets_pb2, rulesets_pb2_grpc, rummy_pb2
from service.convert import enum_to_proto
from solver.core import registry
from solver.core import rulesets as domain
from solver.core.violations import ViolationCode
from tests.spec_rulesets import SPEC_IDS


@pytest.fixture(scope="module")
def rulesets(
    rulesets_stub: rulesets_pb2_grpc.RulesetServiceStub,
) -> dict[str, rulesets_pb2.Ruleset]:
    reply = rulesets_stub.ListRulesets(rulesets_pb2.ListRulesetsRequest(), timeout=5)
    return {r.id: r for r in reply.rulesets}


def test_the_ten_ids_of_spec_section_1(rulesets: dict[str, rulesets_pb2.Ruleset]) -> None:
    assert list(rulesets) == SPEC_IDS


def test_every_ruleset_says_which_rpcs_are_served(
    rulesets: dict[str, rulesets_pb2.Ruleset],
) -> None:
    # Straight from the registry, in proto order; the rearrangement games have all four
    # rummy RPCs, so a client can tell a built RPC from an UNIMPLEMENTED one before calling.
    for r in rulesets.values():
        expected = [rpc.value for rpc in registry.served_rpcs(domain.RULESETS[r.id])]
        assert list(r.served_rpcs) == expected
    assert list(rulesets["carrossel"].served_rpcs) == [
        "ValidateMove",
        "SolveMove",
        "CheckKnock",
        "ScoreRound",
    ]
    assert "ScoreRound" in rulesets["carioca"].served_rpcs


def test_every_served_rpc_is_a_method_of_the_family_s_service(
    rulesets: dict[str, rulesets_pb2.Ruleset],
) -> None:
    services = {
        s.name: s
        for s in (
            rummy_pb2.DESCRIPTOR.services_by_name["RummyService"],
            fishing_pb2.DESCRIPTOR.services_by_name["FishingService"],
        )
    }
    for r in rulesets.values():
        service = services[registry.service_of(domain.RULESETS[r.id])]
        assert set(r.served_rpcs) <= {m.name for m in service.methods}


def test_the_server_reports_the_installed_version(
    rulesets_stub: rulesets_pb2_grpc.RulesetServiceStub,
) -> None:
    reply = rulesets_stub.ListRulesets(rulesets_pb2.ListRulesetsRequest(), timeout=5)
    assert reply.version == metadata.version("carrossel")
    assert reply.version[0].isdigit()


def test_every_ruleset_has_its_basic_parameters(
    rulesets: dict[str, rulesets_pb2.Ruleset],
) -> None:
    for r in rulesets.values():
        assert r.name and r.description and "\n" not in r.description
        assert r.family != rulesets_pb2.FAMILY_UNSPECIFIED
        assert r.wild_kind != rulesets_pb2.WILD_KIND_UNSPECIFIED
        assert r.sequence_suit_rule != rulesets_pb2.SEQUENCE_SUIT_RULE_UNSPECIFIED
        assert r.ace_rule != rulesets_pb2.ACE_RULE_UNSPECIFIED
        assert r.draw_rule != rulesets_pb2.DRAW_RULE_UNSPECIFIED
        assert r.settlement != rulesets_pb2.SETTLEMENT_UNSPECIFIED
        assert r.draw_rule_text and r.game_end_rule
        assert 2 <= r.min_players <= r.max_players <= 5
        assert [p.rank for p in r.card_points] == [
            "A",
            "2",
            "3",
            "4",
            "5",
            "6",
            "7",
            "8",
            "9",
            "10",
            "J",
            "Q",
            "K",
        ]
        if r.family == rulesets_pb2.FAMILY_FISHING:
            assert [d.size for d in r.fishing.decks] == [56, 55, 54]
            assert not r.decks
        else:
            assert r.decks and not r.HasField("fishing")


def test_carrossel_parameters(rulesets: dict[str, rulesets_pb2.Ruleset]) -> None:
    r = rulesets["carrossel"]
    assert (r.min_players, r.max_players, r.hand_size) == (2, 5, 10)
    assert [(d.min_players, d.max_players, d.decks, d.jokers, d.total_cards) for d in r.decks] == [
        (2, 2, 1, 1, 53),
        (3, 5, 2, 2, 106),
    ]
    assert r.wild_kind == rulesets_pb2.WILD_KIND_JOKERS
    assert r.sequence_suit_rule == rulesets_pb2.SEQUENCE_SUIT_RULE_ANY_SUIT
    assert r.ace_rule == rulesets_pb2.ACE_RULE_LOW_OR_HIGH
    assert r.draw_rule == rulesets_pb2.DRAW_RULE_ONE_TO_THREE
    assert r.max_new_melds_per_turn == 1 and not r.unlimited_new_melds
    assert (r.knock_threshold, r.going_out_bonus, r.knock_bonus, r.joker_points) == (5, 25, 10, 25)
    assert (r.game_target, r.game_target_bonus, r.round_won_bonus) == (150, 100, 25)
    assert r.highest_total_wins
    points = {p.rank: p.points for p in r.card_points}
    assert points["A"] == 1 and points["7"] == 7 and points["10"] == 10 and points["K"] == 10


def test_rummikub_parameters(rulesets: dict[str, rulesets_pb2.Ruleset]) -> None:
    r = rulesets["rummikub"]
    assert r.unlimited_new_melds and r.max_new_melds_per_turn == 0
    assert r.opening_min_points == 30
    assert r.sequence_suit_rule == rulesets_pb2.SEQUENCE_SUIT_RULE_SAME_SUIT
    assert {c.name: c.suit for c in r.colours} == {
        "black": "S",
        "blue": "C",
        "orange": "D",
        "red": "H",
    }


def test_the_game_end_text_says_what_a_tie_means(
    rulesets: dict[str, rulesets_pb2.Ruleset],
) -> None:
    # R13: "manipulation: ... the game ends at ≥ 200, lowest total wins; a tie for lowest
    # means another hand (report it, no winner yet)". Shangai's text names no tie-break: the
    # equal lowest share the win (docs/scoring.md), as carrossel's equal highest do (R12).
    manipulation = rulesets["manipulation"].game_end_rule
    assert "200" in manipulation and "another hand" in manipulation
    assert "share" not in manipulation
    for ruleset_id in ("shangai", "carrossel", "carioca"):
        text = rulesets[ruleset_id].game_end_rule
        assert "ties share the win" in text and "another hand" not in text


def test_carioca_contracts(rulesets: dict[str, rulesets_pb2.Ruleset]) -> None:
    r = rulesets["carioca"]
    assert [(c.deal, c.trios, c.sequences, c.cards_dealt) for c in r.contracts] == [
        (1, 2, 0, 11),
        (2, 1, 1, 11),
        (3, 0, 2, 11),
        (4, 3, 0, 11),
        (5, 2, 1, 11),
        (6, 1, 2, 11),
        (7, 0, 3, 12),
    ]
    assert r.last_deal_hand_size == 12 and r.joker_points == 50
    assert r.decks[0].total_cards == 108


@pytest.mark.parametrize(
    ("ruleset", "suit"), [("carosello", "H"), ("carrusel", "C"), ("karusele", "S")]
)
def test_fishing_prize_suit_and_deal_points(
    rulesets: dict[str, rulesets_pb2.Ruleset], ruleset: str, suit: str
) -> None:
    fishing = rulesets[ruleset].fishing
    assert fishing.prize_suit == suit
    assert [(d.size, d.table_cards, d.game_target) for d in fishing.decks] == [
        (56, 8, 120),
        (55, 7, 90),
        (54, 6, 60),
    ]
    prizes = {p.code: p.points for p in fishing.deal_prizes}
    assert prizes[f"2{suit}"] == 2 and prizes["10D"] == 2 and prizes["JK20"] == 10
    # F9: with 56 cards the prizes add up to 30 (four aces at 1 each).
    assert sum(prizes.values()) - prizes["ACE"] + 4 * prizes["ACE"] == 30
    assert {v.card: v.value for v in fishing.special_values} == {"JK20": 20, "JK15": 15, "JK11": 11}


@pytest.mark.parametrize(
    ("domain_enum", "proto_enum", "prefix"),
    [
        (domain.Family, rulesets_pb2.Family, "FAMILY"),
        (domain.WildKind, rulesets_pb2.WildKind, "WILD_KIND"),
        (domain.SuitRule, rulesets_pb2.SequenceSuitRule, "SEQUENCE_SUIT_RULE"),
        (domain.AceRule, rulesets_pb2.AceRule, "ACE_RULE"),
        (domain.DrawRule, rulesets_pb2.DrawRule, "DRAW_RULE"),
        (domain.Settlement, rulesets_pb2.Settlement, "SETTLEMENT"),
        (ViolationCode, rummy_pb2.ViolationCode, "VIOLATION_CODE"),
    ],
)
def test_every_domain_enum_member_has_a_proto_value(
    domain_enum: type[Enum], proto_enum: object, prefix: str
) -> None:
    for member in domain_enum:
        assert enum_to_proto(proto_enum, prefix, member) > 0  # type: ignore[arg-type]


def test_violation_codes_keep_the_domain_numbers() -> None:
    for member in ViolationCode:
        assert rummy_pb2.ViolationCode.Value(f"VIOLATION_CODE_{member.name}") == member.value
