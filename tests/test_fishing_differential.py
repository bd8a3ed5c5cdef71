"""Independent evidence for SolvePlay (F3-F7) and the deal-end search (F8, F9).

- The CP-SAT ranking equals the brute-force reference's on 1,000 random positions (builds,
  own builds, J/Q/K and the broom included): the same keys for the best three plays, and
  every play returned is legal for the reference too.
- The alpha-beta deal-end search equals a plain recursive minimax on 750 random last-round
  positions (250 each with 2, 3 and 4 players), 100 with a build on the table, and 40 full
  2-player last rounds (4 + 4 cards): the best value, and the value of every play returned.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from solver.fishing.endgame import check_complete, solve_deal_end
from solver.fishing.plays import Action, Play
from solver.fishing.position import parse_position
from solver.fishing.search import solve_plays
from tests.reference.fishing_bruteforce import BPlay, best_keys, legal_plays
from tests.reference.fishing_minimax import play_values, sample_play_values
from tests.reference.fishing_positions import (
    Sample,
    endgame_sample,
    endgame_with_build,
    full_last_round,
    play_sample,
)

CHUNK = 100
TOP = 3


def as_reference(play: Play, table_size: int) -> BPlay:
    """The solver's play in the reference's terms (a capture is the set of items it takes)."""
    if play.action is Action.CAPTURE:
        return BPlay(play.card.code, "capture", play.taken)
    if play.action is Action.BROOM:
        return BPlay(play.card.code, "broom", frozenset(range(table_size)))
    if play.action is Action.BUILD:
        return BPlay(play.card.code, "build", items=frozenset(play.items), value=play.value)
    return BPlay(play.card.code, "trail")


@pytest.mark.parametrize("chunk", range(10))
def test_f3_f7_cpsat_ranking_equals_bruteforce(chunk: int) -> None:
    """1,000 positions in ten chunks: SolvePlay's top plays carry the reference's keys."""
    for seed in range(chunk * CHUNK, (chunk + 1) * CHUNK):
        sample = play_sample(seed)
        position = parse_position(sample.raw)
        result = solve_plays(position, TOP, 10_000)
        expected = best_keys(sample.table, sample.hand, sample.player, sample.prize_suit)
        got = [
            solved.outcome.key
            if solved.play.action in (Action.CAPTURE, Action.BROOM)
            else (0, 0, 0)
            for solved in result.plays
        ]
        assert got == expected[:TOP], f"seed {seed}: {sample.raw}"
        assert result.optimal
        legal = set(legal_plays(sample.table, sample.hand, sample.player))
        for solved in result.plays:
            reference = as_reference(solved.play, len(sample.table))
            assert reference in legal, f"seed {seed}: {solved.play.text} is not legal"


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("chunk", range(5))
def test_f8_f9_deal_end_equals_minimax(players: int, chunk: int) -> None:
    """750 last-round positions (250 each with 2, 3 and 4 players): alpha-beta = minimax."""
    for seed in range(chunk * 50, (chunk + 1) * 50):
        sample = endgame_sample(seed, players)
        position = parse_position(sample.raw)
        check_complete(position)
        result = solve_deal_end(position, TOP, 30_000)
        assert result.optimal
        values = sample_play_values(sample)
        assert result.plays[0].value == max(values.values()), f"seed {seed}"
        for found in result.plays:
            reference = as_reference(found.solved.play, len(sample.table))
            assert values[reference] == found.value, f"seed {seed}: {found.solved.play.text}"


@pytest.mark.parametrize(
    ("make", "seeds"),
    [pytest.param(full_last_round, range(k * 10, k * 10 + 10), id=f"full-{k}") for k in range(4)]
    + [
        pytest.param(endgame_with_build, range(k * 50, k * 50 + 50), id=f"build-{k}")
        for k in range(2)
    ],
)
def test_f5_f8_last_rounds_equal_minimax(make: Callable[[int], Sample], seeds: range) -> None:
    """Full last rounds of 4 + 4 cards (the speed goal's position), and last rounds with a
    build owned by either player (F5): alpha-beta = minimax."""
    for seed in seeds:
        sample = make(seed)
        position = parse_position(sample.raw)
        check_complete(position)
        result = solve_deal_end(position, TOP, 60_000)
        assert result.optimal
        values = play_values(
            sample.table,
            sample.other_hands,
            sample.piles,
            0,
            sample.last_capturer,
            2,
            sample.prize_suit,
        )
        assert result.plays[0].value == max(values.values()), f"seed {seed}"
        for found in result.plays:
            reference = as_reference(found.solved.play, len(sample.table))
            assert values[reference] == found.value, f"seed {seed}: {found.solved.play.text}"
