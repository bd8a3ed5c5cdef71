"""Rummikub's turn model copied from the whole deck's model (``model.deck``).

The copy must allow exactly the tables the model built for the position alone allows: the
same best values on seeded positions with 0-2 rack jokers (R4, R5: a rack joker is a free
wild), a kept run longer than the pool's runs still kept (R6: melds before stay unless
changed), and the deck's model itself never written by a position.
"""

from __future__ import annotations

import pytest

from bench.positions import bench_positions
from solver.core.cards import JOKER_CARD
from solver.rearrangement import search
from solver.rearrangement.model import TurnModel, deck, structural_vars, turn_options
from solver.rearrangement.search import Objective, solve_move
from solver.rummy.position import Position, Turn, parse_position


@pytest.fixture(autouse=True)
def _turn_model_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are of the turn model's copy: the deck's melds (``model.deck_melds``,
    tests/test_deck_melds.py) would answer their single moves first."""
    monkeypatch.setattr(search, "DECK_MELDS", False)


def _model(position: Position, copy_deck: bool = True) -> TurnModel:
    limit = position.ruleset.rearrangement.max_new_melds
    return TurnModel(position, turn_options(position, limit, None), copy_deck=copy_deck)


def _positions() -> list[Position]:
    return [
        spec.position()
        for size in ("small", "mid", "large")
        for seed in (21, 22)
        for spec in bench_positions("rummikub", size, 5, seed)
    ]


def test_rummikub_positions_copy_the_deck_model() -> None:
    positions = _positions()
    jokers = {p.hand.count(JOKER_CARD) for p in positions}
    assert jokers == {0, 1, 2}  # every kind of deck model is exercised
    assert all(deck.from_deck(_model(p).data) is not None for p in positions)


@pytest.mark.parametrize("objective", [Objective.MOST_CARDS, Objective.FEWEST_POINTS])
def test_the_copy_finds_the_values_the_built_model_finds(
    objective: Objective, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The best move's cards played, melds changed and points left, proved optimal, with the
    deck's copy and with the model built for the position alone (R6, R8)."""
    positions = _positions()
    found = []
    for rulesets in (deck.DECK_RULESETS, frozenset()):
        monkeypatch.setattr(deck, "DECK_RULESETS", rulesets)
        results = [solve_move(p, objective, 2) for p in positions]
        assert all(r.optimal for r in results)
        values: list[list[tuple[int, ...]]] = [
            [(m.cards_played, m.melds_changed, m.verdict.hand_points_after) for m in r.moves]
            for r in results
        ]
        if objective is Objective.MOST_CARDS:  # points left are no part of the question
            values = [[v[:2] for v in moves] for moves in values]
        found.append(values)
    assert found[0] == found[1]


def test_positions_the_deck_does_not_model_are_built() -> None:
    """A joker on the table keeps its value (R5) and before the opening the table stays as it
    was (R8): both need the model built for the position; so does every other ruleset."""
    table_joker = parse_position(
        "rummikub", 2, [["9C", "9D", "JK=9"]], ["4H", "5H", "6H"], Turn(has_opened=True)
    )
    not_opened = parse_position("rummikub", 2, [["9C", "9D", "9S"]], ["4H", "5H", "6H"], Turn())
    carrossel = bench_positions("carrossel", "mid", 1, 21)[0].position()
    for position in (table_joker, not_opened, carrossel):
        assert deck.from_deck(_model(position).data) is None
        assert solve_move(position).optimal


def test_a_kept_run_longer_than_the_pool_runs_stays_as_it_was() -> None:
    """The pool lays runs of 3-5 cards; a kept run of seven is held by its keep flag, its
    cards counted in their conservation rows (R6)."""
    long_run = ["3H", "4H", "5H", "6H", "7H", "8H", "9H"]
    position = parse_position(
        "rummikub", 2, [long_run, ["5C", "6C", "7C"]], ["8C", "KD"], Turn(has_opened=True)
    )
    assert deck.from_deck(_model(position).data) is not None
    result = solve_move(position, Objective.MOST_CARDS)
    best = result.moves[0]
    assert result.optimal and best.cards_played == 1 and best.melds_changed == 1
    assert tuple(long_run) in [tuple(tc.code for tc in meld) for meld in best.move.table]


def test_a_position_leaves_the_deck_model_as_it_was() -> None:
    position = _positions()[7]
    data = _model(position).data
    base = deck.deck_model(position, position.hand.count(JOKER_CARD), data.stand_in)
    assert base is not None
    before = str(base.model.proto)
    solve_move(position, Objective.MOST_CARDS, 3)  # a copy, its numbers, three moves' cuts
    assert str(base.model.proto) == before


def test_a_copy_holds_its_own_numbers_whatever_came_before_it() -> None:
    """Each thread writes a position's numbers on its own scratch copy of the deck's model
    and keeps what it wrote: the copy a position solves is the same (proto for proto) after
    any other position as after none, so no card bound or table count of an earlier
    position leaks into it (R1: the cards in play are the position's own)."""
    positions = [p for p in _positions() if p.hand.count(JOKER_CARD) == 1]
    assert len(positions) >= 4
    alone = []
    for position in positions:
        deck._SCRATCH.__dict__.clear()  # no scratch: written from the deck's model itself
        alone.append(str(_model(position).model.proto))
    deck._SCRATCH.__dict__.clear()
    in_turn = [str(_model(p).model.proto) for p in (*positions, *reversed(positions))]
    assert in_turn == alone + alone[::-1]


def test_excluding_a_found_table_reads_the_copys_own_bounds() -> None:
    """``identity.forbid`` (further moves, R6's "a different table") gives a literal of its
    own only to a variable strictly inside its bounds: the copy's bounds, not the deck
    model's, so a hand card played in full costs no extra variable."""
    from ortools.sat.python import cp_model

    from solver.rearrangement import identity

    checked = 0
    for position in _positions()[:12]:
        tm = _model(position)
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        if solver.solve(tm.model) != cp_model.OPTIMAL:
            continue  # no legal play: nothing to exclude
        checked += 1
        own = tm.model.proto.variables
        bounds = [list(own[var.index].domain) for var in structural_vars(tm.variables)]
        values = [solver.value(var) for var in structural_vars(tm.variables)]
        inside = sum(b[0] < v < b[-1] for b, v in zip(bounds, values, strict=True))
        before = len(own)
        identity.forbid(tm, solver)
        assert len(tm.model.proto.variables) - before <= inside + 2
    assert checked >= 6
