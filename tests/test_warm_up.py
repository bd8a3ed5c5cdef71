"""The start-up warm-up (``solver.rearrangement.warm``): after it, no call builds a deck
model, whatever its player count, rack jokers or suggestion; and ``carrossel serve`` runs it
before it listens. Operational (speed of a server's first calls), so no ruling id: the
answers themselves are checked by the deck models' own tests."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import grpc
import pytest

from bench.over_grpc import free_port, wait_serving
from bench.suggest_bench import judged_proposals
from solver.core.rulesets import RULESETS
from solver.rearrangement import warm
from solver.rearrangement.model import deck, deck_melds, pool_deck
from solver.rearrangement.search import Objective, solve_move
from solver.rearrangement.suggest import suggest_move
from solver.rummy.position import Turn, parse_position


def _no_build(*args: Any) -> Any:
    raise AssertionError("a deck model was built after the warm-up")


@pytest.fixture
def warmed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fresh caches, warmed, then any further build fails the test."""
    monkeypatch.setattr(deck, "_DECK_MODELS", {})
    monkeypatch.setattr(deck_melds, "_MODELS", {})
    monkeypatch.setattr(pool_deck, "_DECK_POOLS", {})
    assert warm.warm_up(RULESETS.values()) > 0
    monkeypatch.setattr(deck, "_build_deck_model", _no_build)
    monkeypatch.setattr(deck_melds, "_build", _no_build)
    monkeypatch.setattr(pool_deck, "_build_deck_pool", _no_build)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("jokers", [0, 1, 2])
def test_rummikub_solves_build_nothing_after_the_warm_up(
    warmed: None, players: int, jokers: int
) -> None:
    hand = ["6H", "5S", "9C", "KD", *["JK"] * jokers]
    table = [["3H", "4H", "5H"], ["7S", "7C", "7D"]]
    position = parse_position("rummikub", players, table, hand, Turn(has_opened=True))
    assert deck.from_deck(_data(position)) is not None  # the copy applies here
    assert deck_melds.applies(position)  # and so do the deck's melds
    for objective in Objective:
        assert solve_move(position, objective).moves  # the deck's melds
    assert solve_move(position, Objective.MOST_CARDS, 2).moves  # the turn model's copy


def test_mexe_mexe_suggestions_build_nothing_after_the_warm_up(
    warmed: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    copied: list[object] = []
    deck_pool = pool_deck._deck_pool

    def counted(data: Any) -> Any:
        copied.append(data)
        return deck_pool(data)

    monkeypatch.setattr(pool_deck, "_deck_pool", counted)
    for _, position, proposal in judged_proposals("mexe-mexe", "mid", 6, 31):
        suggest_move(position, proposal, 5000)
    assert copied  # the suggestions did copy the deck's pool


def test_a_fresh_warm_up_builds_each_deck_model_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deck, "_DECK_MODELS", {})
    monkeypatch.setattr(deck_melds, "_MODELS", {})
    monkeypatch.setattr(pool_deck, "_DECK_POOLS", {})
    warm.warm_up(RULESETS.values())
    models, pools = dict(deck._DECK_MODELS), dict(pool_deck._DECK_POOLS)
    assert {key[2] for key in models} == {0, 1, 2}  # Rummikub's rack jokers
    melds = dict(deck_melds._MODELS)
    # Per count of jokers on the rack and on the table (two in the deck), before the opening
    # (R8: 30 points) and after it, and objective.
    assert {key[2:] for key in melds} == {
        (rack, table, opening, measure)
        for rack in (0, 1, 2)
        for table in range(3 - rack)
        for opening in (0, 30)
        for measure in deck_melds.Measure
    }
    assert len(pools) == len(RULESETS["mexe-mexe"].decks)
    warm.warm_up(RULESETS.values())
    assert all(deck._DECK_MODELS[k] is v for k, v in models.items())
    assert all(deck_melds._MODELS[k] is v for k, v in melds.items())
    assert all(pool_deck._DECK_POOLS[k] is v for k, v in pools.items())


def test_carrossel_serve_warms_up_before_it_listens(tmp_path: Any) -> None:
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as err:
        server = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--workers", "1"],
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        try:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                wait_serving(channel, server)
        finally:
            server.terminate()
            server.wait(timeout=30)
    lines = log.read_text().splitlines()
    warmed = [i for i, line in enumerate(lines) if "deck models in" in line]
    serving = [i for i, line in enumerate(lines) if "carrossel serving on" in line]
    assert warmed and serving and warmed[0] < serving[0]


def _data(position: Any) -> Any:
    from solver.rearrangement.model import ModelOptions
    from solver.rearrangement.model.data import collect_data

    return collect_data(position, ModelOptions(max_new_melds=None))
