"""ScoreRound test vectors (tests/vectors/score/*.toml): loading and checking, shared by the
ruling test files (solver) and tests/test_score_round_service.py (gRPC).

A case is a request (``ruleset``, ``end``, ``ender``, ``hands``, optional ``players`` — else
one per hand —, ``totals_before``, ``rounds_won_before``, ``deal_number``, ``game_limit``)
plus either ``expect`` (figures; ``lines`` that must appear, ``lines_absent`` that must not)
or ``error`` (the field paths of the INVALID_ARGUMENT).
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from solver.core.errors import InvalidRequest
from solver.rummy.scoring import RoundScore, parse_round, parse_round_end, score_round

VECTORS = Path(__file__).resolve().parent / "vectors" / "score"

Case = dict[str, Any]


def load(name: str) -> list[Case]:
    with (VECTORS / f"{name}.toml").open("rb") as handle:
        cases: list[Case] = tomllib.load(handle)["case"]
    for case in cases:
        assert case["rule"], case["id"]
        assert ("expect" in case) != ("error" in case), case["id"]
    return cases


def all_names() -> list[str]:
    return sorted(p.stem for p in VECTORS.glob("*.toml"))


def params(name: str) -> list[Any]:
    return [pytest.param(case, id=f"{case['rule']}-{case['id']}") for case in load(name)]


def request_fields(case: Case) -> dict[str, Any]:
    """The case's request, with the defaults a client would leave out."""
    return {
        "ruleset": case["ruleset"],
        "players": case.get("players", len(case["hands"])),
        "end": case["end"],
        "ender": case["ender"],
        "hands": case["hands"],
        "totals_before": case.get("totals_before", []),
        "rounds_won_before": case.get("rounds_won_before", []),
        "deal_number": case.get("deal_number", 0),
        "game_limit": case.get("game_limit"),
    }


def score_locally(case: Case) -> RoundScore:
    fields = request_fields(case)
    round_ = parse_round(
        fields["ruleset"],
        fields["players"],
        parse_round_end(fields["end"]),
        fields["ender"],
        fields["hands"],
        fields["totals_before"],
        fields["rounds_won_before"],
        fields["deal_number"],
        fields["game_limit"],
    )
    return score_round(round_)


FIGURES = (
    "round_points",
    "winners",
    "totals_after",
    "rounds_won_after",
    "game_over",
    "final_scores",
    "game_winners",
    "another_hand",
    "void_deal",
)


def check_expected(case: Case, got: dict[str, Any], texts: list[str]) -> None:
    """Compare every figure the case states, and its line texts."""
    expect = case["expect"]
    for key in FIGURES:
        if key in expect:
            assert got[key] == expect[key], f"{case['id']}: {key}"
    if not expect.get("game_over", False):
        assert got["final_scores"] == [] and got["game_winners"] == [], case["id"]
    for text in expect.get("lines", []):
        assert text in texts, f"{case['id']}: no line {text!r} in {texts}"
    for text in expect.get("lines_absent", []):
        assert text not in texts, f"{case['id']}: unexpected line {text!r}"


def figures_of(score: RoundScore) -> dict[str, Any]:
    return {
        key: list(value) if isinstance(value, tuple) else value
        for key, value in ((k, getattr(score, k)) for k in FIGURES)
    }


def run_case(case: Case) -> None:
    """One vector through the solver: the figures, or exactly the expected field paths."""
    if "error" in case:
        with pytest.raises(InvalidRequest) as info:
            score_locally(case)
        assert sorted({p.field for p in info.value.problems}) == sorted(case["error"])
        return
    score = score_locally(case)
    check_expected(case, figures_of(score), [line.text for line in score.lines])
    check_lines_add_up(score, case.get("totals_before") or [0] * len(score.round_points))


def check_lines_add_up(score: RoundScore, totals_before: Sequence[int]) -> None:
    """Each player's line points are the round points, plus the game-end bonuses if over."""
    for player, points in enumerate(score.round_points):
        listed = sum(line.points for line in score.lines if line.player == player)
        bonuses = score.final_scores[player] - score.totals_after[player] if score.game_over else 0
        assert listed == points + bonuses, (player, [ln.text for ln in score.lines])
        assert score.totals_after[player] == totals_before[player] + points
