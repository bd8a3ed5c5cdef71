"""The pool's any-suit runs as a flow (``model.run_flow``): the same tables as the run
templates, so the same answers.

R2 (SPEC §3): a sequence holds 3 to 13 cards (A-2-…-K-A is no sequence), so the flow's
starts and ends must pair into runs of those lengths; every move found is re-checked by the
referee (``search._checked``), which would reject a longer or shorter run loudly.
"""

from __future__ import annotations

import dataclasses

import pytest

from bench.positions import bench_positions
from solver.rearrangement import search
from solver.rearrangement.budget import Budget
from solver.rearrangement.model import TurnModel, run_flow, turn_options
from solver.rearrangement.search import Objective, solve_move
from solver.rummy.position import Position, Turn, parse_position
from tests.model_variants import variants_agree


def _flow_model(position: Position) -> TurnModel:
    options = turn_options(position, position.ruleset.rearrangement.max_new_melds, None)
    return TurnModel(position, dataclasses.replace(options, run_flow=True))


def _carrossel(table: list[str], hand: str) -> Position:
    return parse_position("carrossel", 3, [meld.split() for meld in table], hand.split(), Turn(1))


def test_any_suit_runs_are_a_flow_in_the_searches_model_only() -> None:
    position = _carrossel(["4D 5C 6H", "9S 9H 9C"], "7S 2C")
    tm, _ = search.legal_turn_model(position, Budget(1000))  # the suggestion's: templates
    assert tm.variables.pool.run_flow is None and tm.variables.pool.runs
    flow = _flow_model(position).variables.pool
    assert flow.run_flow is not None and not flow.runs
    assert len(flow.run_flow.variables()) == 3 * len(range(1, 15))  # A low … A high


def test_same_suit_runs_stay_templates() -> None:
    """A same-suit run's kept meld is linked to its template (``constraints.link_melds``)."""
    position = parse_position("mexe-mexe", 3, [["4H", "5H", "6H"]], ["7H", "2C"], Turn(1))
    assert _flow_model(position).variables.pool.run_flow is None


def test_r2_a_run_of_thirteen_is_the_longest_the_flow_lays() -> None:
    """A♥ fits the A-K run only by splitting it (A-K-A is no sequence, R2): every move
    listed plays it in two runs, each of 3 to 13 cards."""
    position = _carrossel(["AC 2D 3H 4S 5C 6D 7H 8S 9C 10D JH QS KC"], "AH")
    result = solve_move(position, Objective.MOST_CARDS, max_moves=search.MAX_MOVES)
    assert result.optimal and result.moves
    for solved in result.moves:
        assert solved.cards_played == 1 and len(solved.move.table) == 2
        assert all(3 <= len(meld) <= 13 for meld in solved.move.table)


def test_the_flow_and_the_templates_agree_on_carrossel_positions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both models hold the same tables (``variants_agree``): templates, then the flow."""
    specs = bench_positions("carrossel", "mid", 12, 3) + bench_positions("carrossel", "fit", 6, 3)
    compared = variants_agree(specs, monkeypatch, "RUN_FLOW", (False, True))
    assert compared >= len(specs) - 2


def test_window_caps_bound_starts_and_ends_by_the_scarcest_place_of_the_shortest_run() -> None:
    """R2: a run holds at least 3 places, so a start at j is bounded by places j..j+2 and
    an end at j by j-2..j; none starts in the last two places or ends in the first two."""
    caps = [2, 1, 3, 0, 2, 2, 2, 1]
    starts, ends = run_flow.window_caps(caps, 3)
    assert starts == [1, 0, 0, 0, 2, 1, 0, 0]
    assert ends == [0, 0, 1, 0, 0, 0, 2, 1]


def test_window_caps_keep_every_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The caps are implied by the flow's constraints (the same tables): with and without
    them, the same primary value and, where both are proved, the same melds changed."""
    specs = bench_positions("carrossel", "mid", 12, 5) + bench_positions("carrossel", "fit", 6, 5)
    compared = variants_agree(specs, monkeypatch, "WINDOW_CAPS", (False, True), run_flow)
    assert compared >= len(specs) - 2
