"""ValidateMove test vectors (tests/vectors/validate/*.toml): loading and checking, shared by
tests/test_validate_vectors.py (solver) and tests/test_validate_service.py (gRPC).

A case is a position (``ruleset``, ``players`` (default 2), ``turn``, ``table`` — melds as
strings of codes —, ``hand``), a move (``after``, ``to_hand``, ``knock``, and carioca's
``discard``) and ``expect``: ``legal``, ``violations`` (the exact multiset of codes) and
optional effects (``played``, ``hand_after``, ``hand_points_after``, ``went_out``,
``knock_eligible``, ``table``).
"""

from __future__ import annotations

import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from solver.rummy.position import Move, Position, Turn, parse_move, parse_position

VECTORS = Path(__file__).resolve().parent / "vectors" / "validate"

Case = dict[str, Any]


def load(name: str) -> list[Case]:
    with (VECTORS / f"{name}.toml").open("rb") as handle:
        cases: list[Case] = tomllib.load(handle)["case"]
    for case in cases:
        assert case["rule"], case["id"]
        assert "expect" in case, case["id"]
    return cases


def all_names() -> list[str]:
    return sorted(p.stem for p in VECTORS.glob("*.toml"))


def all_params() -> list[Any]:
    return [
        pytest.param(case, id=f"{name}-{case['id']}") for name in all_names() for case in load(name)
    ]


def melds(texts: list[str]) -> list[list[str]]:
    return [text.split() for text in texts]


def cards(text: str) -> list[str]:
    return text.split()


@dataclass(frozen=True)
class Parsed:
    position: Position
    move: Move


def position_fields(case: Case) -> dict[str, Any]:
    return {
        "ruleset": case["ruleset"],
        "players": case.get("players", 2),
        "table": melds(case.get("table", [])),
        "hand": cards(case.get("hand", "")),
        "turn": case.get("turn", {}),
    }


def move_fields(case: Case) -> dict[str, Any]:
    return {
        "table": melds(case["after"]),
        "to_hand": cards(case.get("to_hand", "")),
        "knock": case.get("knock", False),
        "discard": case.get("discard", ""),
    }


def parse(case: Case) -> Parsed:
    p = position_fields(case)
    position = parse_position(p["ruleset"], p["players"], p["table"], p["hand"], Turn(**p["turn"]))
    m = move_fields(case)
    return Parsed(
        position, parse_move(position, m["table"], m["to_hand"], m["knock"], m["discard"])
    )


def check(case: Case, legal: bool, codes: list[str], effects: dict[str, Any]) -> None:
    """Compare a verdict (as names and codes) with the case's expectations."""
    expect = case["expect"]
    assert legal == expect["legal"], (case["id"], codes)
    assert Counter(codes) == Counter(expect["violations"]), case["id"]
    for key in ("hand_points_after", "went_out", "knock_eligible"):
        if key in expect:
            assert effects[key] == expect[key], (case["id"], key)
    for key in ("played", "hand_after"):
        if key in expect:
            assert sorted(effects[key]) == sorted(cards(expect[key])), (case["id"], key)
    if "table" in expect:
        assert effects["table"] == melds(expect["table"]), case["id"]
