"""Fishing test vectors (tests/vectors/fishing/*.toml): loading, and each case as the
solver's raw input or as a gRPC request, shared by the F-ruling tests and the service test."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from carrossel.v1 import fishing_pb2
from solver.core.rulesets import get_ruleset
from solver.fishing.items import deck_cards, deck_for
from solver.fishing.notation import parse_table_text
from solver.fishing.position import RawPosition
from solver.fishing.referee import RawPlay

VECTORS = Path(__file__).resolve().parent / "vectors" / "fishing"

Case = dict[str, Any]


def load(name: str, rule: str | None = None) -> list[Case]:
    with (VECTORS / f"{name}.toml").open("rb") as handle:
        cases: list[Case] = tomllib.load(handle)["case"]
    for case in cases:
        assert case["rule"] and "expect" in case, case["id"]
    return [case for case in cases if rule is None or case["rule"] == rule]


def params(name: str, rule: str | None = None) -> list[Any]:
    return [pytest.param(case, id=case["id"]) for case in load(name, rule)]


def raw_position(case: Case) -> RawPosition:
    return RawPosition(
        ruleset=case["ruleset"],
        table=parse_table_text(case["table"]),
        hand=case["hand"].split(),
        deck_size=case.get("deck_size", 56),
        player=case.get("player", 0),
        players=case.get("players", 2),
    )


def raw_play(case: Case) -> RawPlay:
    play = case["play"]
    if "capture" in play:
        return RawPlay(play["card"], "capture", groups=play["capture"])
    if "build" in play:
        return RawPlay(play["card"], "build", items=play["build"], value=play["value"])
    return RawPlay(play["card"], "trail" if "trail" in play else "broom")


def position_proto(case: Case) -> fishing_pb2.FishingPosition:
    raw = raw_position(case)
    return fishing_pb2.FishingPosition(
        ruleset=raw.ruleset,
        deck_size=raw.deck_size,
        table=[
            fishing_pb2.TableItem(cards=list(i.cards), value=i.value, owner=i.owner)
            for i in raw.table
        ],
        hand=list(raw.hand),
        player=raw.player,
        players=raw.players,
    )


def play_proto(case: Case) -> fishing_pb2.FishingPlay:
    raw = raw_play(case)
    message = fishing_pb2.FishingPlay(card=raw.card)
    if raw.action == "capture":
        message.capture.SetInParent()
        message.capture.groups.extend(fishing_pb2.CaptureGroup(items=g) for g in raw.groups)
    elif raw.action == "build":
        message.build.items.extend(raw.items)
        message.build.value = raw.value
    elif raw.action == "trail":
        message.trail.SetInParent()
    else:
        message.broom.SetInParent()
    return message


def table_texts(case: Case) -> list[str]:
    """The expected table after, one text per item (as the CLI writes items)."""
    return list(case["expect"]["table_after"])


def piles(case: Case) -> list[list[str]]:
    """The case's piles with "rest" expanded to every card no other pile holds."""
    ruleset = get_ruleset(case["ruleset"])
    assert ruleset is not None and ruleset.fishing is not None
    deck = deck_for(ruleset.fishing, case["deck_size"], case.get("omit_broom", False))
    assert deck is not None
    named = {code for text in case["piles"] if text != "rest" for code in text.split()}
    rest = sorted(c.code for c in deck_cards(deck) if c.code not in named)
    return [rest if text == "rest" else text.split() for text in case["piles"]]
