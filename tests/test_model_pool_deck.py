"""Mexe-mexe's pool copied from the whole deck's pool (``model.pool_deck``), as the
suggestion's try without R6 uses it (issue #53).

The copy must allow exactly the tables the pool built for the position allows: the same
counts with the same bounds (every other count of the deck's pool fixed at 0), table wilds
keeping their value in the same run places and groups (R5), the same best values on
seeded positions, the same suggestions (SPEC §4 ValidateMove ``suggest``), and the deck's
pool itself never written by a position.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

import pytest
from ortools.sat.python import cp_model

from bench.positions import bench_positions
from bench.suggest_bench import judged_proposals
from solver.rearrangement import suggest
from solver.rearrangement.budget import Budget
from solver.rearrangement.model import ModelOptions, TurnModel, pool_deck, turn_options
from solver.rearrangement.model.pool import PoolVariables
from solver.rummy.position import Position, parse_position

LONGEST = 5  # the pool's runs without R6: up to twice the shortest, less one


def _options(position: Position, from_deck: bool) -> ModelOptions:
    options = turn_options(position, None, None)
    return dataclasses.replace(options, defer_run_naturals=True, pool_from_deck=from_deck)


def _model(position: Position, from_deck: bool) -> TurnModel:
    return TurnModel(position, _options(position, from_deck))


# Two players play with one deck (the bench's positions have three, two decks).
ONE_DECK = [
    ("2H=5S 6S 7S | 9C 10C JC | 4D 4H 4C", "2D 2C 5H 8S QC 4S"),
    ("AD 2D 3D | JH QH 2S=KH | 7C 7D 7S", "2C 2H 4D KS 7H 10H"),
    ("5C 6C 2D=7C 8C | 10S JS QS KS", "2H 2C 9C AS 3H 4H 5H"),
]


def _positions() -> list[Position]:
    positions = [
        spec.position()
        for size in ("small", "mid", "large")
        for seed in (31, 32)
        for spec in bench_positions("mexe-mexe", size, 8, seed)
    ]
    positions += [
        parse_position("mexe-mexe", 2, [m.split() for m in table.split("|")], hand.split())
        for table, hand in ONE_DECK
    ]
    return [p for p in positions if _model(p, True).data.wild_runs_possible]


def _bounds(tm: TurnModel, var: cp_model.LinearExprT) -> tuple[int, int]:
    assert isinstance(var, cp_model.IntVar)
    domain = list(tm.model.proto.variables[var.index].domain)
    return domain[0], domain[-1]


def _pool_dicts(pool: PoolVariables) -> dict[str, dict[Any, cp_model.LinearExprT]]:
    """The pool's counts by kind (its other fields, such as R4's windows, are not counts)."""
    fields = [(f.name, getattr(pool, f.name)) for f in dataclasses.fields(pool)]
    return {name: counts for name, counts in fields if isinstance(counts, dict)}


def test_the_copy_holds_the_built_pools_counts_and_bounds() -> None:
    """Every count of the position's own pool, in its order and with its bounds; the
    table wilds' flags where a wild keeps its value (R5); the deck's other counts at 0."""
    positions = _positions()
    assert len(positions) >= 20
    wilds_in_runs = wilds_in_groups = long_runs = 0
    for position in positions:
        built, copied = _model(position, False), _model(position, True)
        assert pool_deck.pool_from_deck(copied.data) is not None
        ours, theirs = _pool_dicts(copied.variables.pool), _pool_dicts(built.variables.pool)
        # A kept run longer than the deck's runs holds its own cards (not linked).
        theirs["runs"] = {k: v for k, v in theirs["runs"].items() if k[1] - k[0] < LONGEST}
        for name, counts in theirs.items():
            assert list(ours[name]) == list(counts), name
            for key, var in counts.items():
                if isinstance(var, cp_model.IntVar):
                    assert _bounds(copied, ours[name][key]) == _bounds(built, var), (name, key)
        used = {
            var.index
            for counts in ours.values()
            for var in counts.values()
            if isinstance(var, cp_model.IntVar)
        }
        deck_size = len(pool_deck._deck_pool(copied.data).model.proto.variables)  # type: ignore[union-attr]
        for index in set(range(deck_size)) - used:
            assert list(copied.model.proto.variables[index].domain) == [0, 0]
        wilds_in_runs += bool(ours["run_table_wilds"])
        wilds_in_groups += bool(ours["group_table_wilds"])
        long_runs += any(b - a >= 5 for a, b, _ in copied.data.linkable_runs.values())
    # Table wilds in run places and groups, kept runs longer than the deck's runs, and the
    # decks of two and of three players.
    assert wilds_in_runs and wilds_in_groups and long_runs
    assert {p.players for p in positions} == {2, 3}


def test_the_copy_finds_the_values_the_built_pool_finds() -> None:
    """The most hand cards laid, then the fewest melds changed, proved on both models (R4's
    windows left out of both, as the suggestion's try leaves them)."""
    for position in _positions():
        values = []
        for from_deck in (False, True):
            tm = _model(position, from_deck)
            weight = len(tm.variables.kept.keep) + 1
            tm.model.maximize(weight * tm.variables.played - tm.variables.changed)
            solver = Budget(20_000).solver(lean=True)
            status = solver.solve(tm.model)
            assert status == cp_model.OPTIMAL
            values.append(round(solver.objective_value))
        assert values[0] == values[1], position


def test_the_deck_pool_is_never_written() -> None:
    positions = _positions()
    deck = pool_deck._deck_pool(_model(positions[0], True).data)
    assert deck is not None
    before = hashlib.sha256(str(deck.model.proto).encode()).hexdigest()
    for position in positions:
        _model(position, True)
    assert hashlib.sha256(str(deck.model.proto).encode()).hexdigest() == before


def test_suggestions_are_the_same_with_the_deck_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """The three keys and the proof of each suggestion (SPEC §4), with the deck's pool and
    with the pool built for the position, on bench.suggest_bench's mexe-mexe proposals."""
    proposals = [(p, m) for _, p, m in judged_proposals("mexe-mexe", "mid", 15, 3)]
    found = []
    for from_deck in (False, True):
        monkeypatch.setattr(suggest, "POOL_FROM_DECK", from_deck)
        answers = []
        for position, proposal in proposals:
            answer = suggest.suggest_move(position, proposal, time_limit_ms=20_000)
            move = answer.move
            keys = None
            if move is not None:
                keys = (len(move.solved.verdict.played), len(move.kept), move.solved.melds_changed)
            answers.append((keys, answer.optimal))
        found.append(answers)
    assert found[0] == found[1]
    assert sum(keys is not None for keys, _ in found[1]) >= 5
