"""R4/R5 in mexe-mexe: a table wild 2 valued 2 may end natural on the place of its own rank
and suit, and then gives a run of 2s its natural.

Seed 000 (mexe-mexe): "O 2, além de estar entre o A e o 3, também é uma carta-curinga" —
the 2 stands between the A and the 3, and is also a wild. SPEC R4: "every 2 may be natural
(a 2 in its own rank position, or in a group of 2s) or wild"; R5: a wild on the table keeps
its value this turn. A wild 2 valued 2 (``2D=2`` in a group of 2s) that moves to place 2 of
a diamond run keeps its value, 2, and is the natural 2D there, so ``2C=AD 2D 2S=3D`` is a
meld. The referee always said so; the solver's model counted a table wild only as a wild,
so it proved answers that the referee's legal moves beat (found by ``bench.heldout``'s
``mexe-twos`` family: bench/HISTORY.md, "the held-out differential campaign").
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from carrossel.v1 import rummy_pb2
from solver.core.cards import TableCard
from solver.rearrangement.search import Objective, solve_move, validate_move
from solver.rummy.position import Position, Turn, parse_move, parse_position
from tests.ops_helpers import error_of, field_violations


def mexe(table: list[str], hand: str, players: int = 5) -> Position:
    return parse_position(
        "mexe-mexe", players, [m.split() for m in table], hand.split(), Turn(cards_drawn=1)
    )


def naturals(table: tuple[tuple[TableCard, ...], ...]) -> list[str]:
    """The codes of the cards written natural on ``table``."""
    return [tc.card.code for meld in table for tc in meld if tc.value is None]


def written_as_itself(table: tuple[tuple[TableCard, ...], ...]) -> list[str]:
    """Wilds written standing for their own card (``2D=2D``): R4 reads that as a wild."""
    return [
        tc.card.code
        for meld in table
        for tc in meld
        if tc.value is not None and tc.value.stands_for(tc.card)
    ]


def test_r4_the_referee_calls_a_run_of_2s_with_a_table_wild_2_natural_legal() -> None:
    position = mexe(["2H 2D=2 2S 2C"], "2D")
    move = parse_move(position, [["2C=AD", "2D", "2D=3D", "2H=4D", "2S=5D"]])
    verdict = validate_move(position, move)
    assert verdict.legal, verdict.violations
    assert verdict.went_out


@pytest.mark.parametrize("objective", list(Objective))
def test_r4_r5_the_solver_lays_a_run_of_2s_where_nothing_else_goes(objective: Objective) -> None:
    # Before the fix: no legal play, proved.
    position = mexe(["2H 2D=2 2S 2C"], "2D")
    result = solve_move(position, objective, max_moves=1, time_limit_ms=10_000)
    assert result.optimal and result.moves
    best = result.moves[0]
    assert best.verdict.went_out and best.verdict.hand_points_after == 0
    # The table wild valued 2 is written as the natural card it is on its own place.
    assert "2D" in naturals(best.move.table)
    assert written_as_itself(best.move.table) == []


@pytest.mark.parametrize(
    ("table", "hand"),
    [
        (["2D=2 2S 2C"], "2H 2C"),  # before: 2 points left, proved
        (["2H 2C=2 2D"], "2S 2S"),  # before: FEWEST_POINTS laid 1 of 2, proved
    ],
)
def test_r4_r5_fewest_points_and_going_out_use_the_run_of_2s(table: list[str], hand: str) -> None:
    position = mexe(table, hand)
    for objective in (Objective.FEWEST_POINTS, Objective.GO_OUT, Objective.MOST_CARDS):
        result = solve_move(position, objective, max_moves=1, time_limit_ms=10_000)
        assert result.optimal
        assert result.moves[0].cards_played == 2, objective
    fewest = solve_move(position, Objective.FEWEST_POINTS, max_moves=1, time_limit_ms=10_000)
    assert fewest.moves[0].verdict.hand_points_after == 0
    assert solve_move(position, Objective.GO_OUT, 1, 10_000).moves[0].verdict.went_out


def test_r4_a_later_move_moves_the_2s_from_their_group_to_a_run() -> None:
    # Seed 7001010 of the campaign, reduced: the second move laid one card, where moving the
    # 2s to a run of their own lets all three hand cards go, another table.
    position = mexe(["2D=2 2S 2C", "JD JH JS"], "10H JC QH", players=2)
    result = solve_move(position, Objective.MOST_CARDS, max_moves=3, time_limit_ms=10_000)
    assert [m.cards_played for m in result.moves] == [3, 3, 3]


def _group_of_2s_request(wild: str) -> rummy_pb2.SolveMoveRequest:
    """SolveMove on a group of 2s holding the wild 2 written ``wild``, the hand a 2D."""
    return rummy_pb2.SolveMoveRequest(
        position=rummy_pb2.RummyPosition(
            ruleset="mexe-mexe",
            players=5,
            table=[rummy_pb2.Meld(cards=["2H", wild, "2S", "2C"])],
            hand=["2D"],
            turn=rummy_pb2.Turn(cards_drawn=1),
        ),
        objective=rummy_pb2.OBJECTIVE_GO_OUT,
    )


def test_r4_solve_move_through_grpc_finds_the_run_of_2s(rummy_stub: Any) -> None:
    request = _group_of_2s_request("2D=2")
    answer = rummy_stub.SolveMove(request, timeout=30)
    assert answer.optimal and answer.moves
    assert answer.moves[0].went_out
    cards = [code for meld in answer.moves[0].move.table for code in meld.cards]
    assert "2D" in cards and "2D=2D" not in cards


def test_r4_a_wild_2_written_with_no_rank_is_invalid_argument(rummy_stub: Any) -> None:
    request = _group_of_2s_request("2D=")
    error = error_of(rummy_stub.SolveMove, request, timeout=30)
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "position.table[0].cards[1]" in field_violations(error)
