"""The pool's run shapes (``model.pool.build_pool``): only shapes a play could lay.

R4 (SPEC §3): a wild may stand for any card of a meld, so a run may hold a place no natural
in play fills. A run place that no natural card and no table wild can fill (a hole) needs a
free wild in every copy of the run, so a shape with more holes than free wilds is left out,
and one with holes has at most ``free wilds // holes`` copies. The brute-force differential
(``tests/reference``) checks that no play is lost; these tests check the shapes themselves.
"""

from __future__ import annotations

from solver.rearrangement.model import TurnModel, turn_options
from solver.rearrangement.search import Objective, solve_move
from solver.rummy.position import Position, Turn, parse_position


def _rummikub(hand: list[str]) -> Position:
    return parse_position("rummikub", 2, [["9C", "9D", "9S"]], hand, Turn(has_opened=True))


def _model(position: Position) -> TurnModel:
    limit = position.ruleset.rearrangement.max_new_melds
    # The model built for the position alone: rummikub's usual one copies the deck's.
    return TurnModel(position, turn_options(position, limit, None), copy_deck=False)


def _upper(tm: TurnModel, shape: tuple[int, int, str]) -> int:
    # A copy first: OR-Tools 9.15's repeated proto fields read [-1] as the first element.
    upper: int = list(tm.variables.pool.runs[shape].proto.domain)[-1]
    return upper


def test_a_run_needing_more_wilds_than_there_are_is_not_a_shape() -> None:
    # 4♥ 5♥ and one joker: 4♥-6♥ has one hole (6♥), 4♥-7♥ two (6♥, 7♥).
    tm = _model(_rummikub(["4H", "5H", "JK"]))
    assert (4, 6, "H") in tm.variables.pool.runs
    assert (3, 5, "H") in tm.variables.pool.runs
    assert (4, 7, "H") not in tm.variables.pool.runs
    assert (2, 5, "H") not in tm.variables.pool.runs
    assert _upper(tm, (4, 6, "H")) == 1


def test_two_wilds_fill_two_holes_of_one_run() -> None:
    tm = _model(_rummikub(["4H", "5H", "JK", "JK"]))
    assert _upper(tm, (4, 7, "H")) == 1  # both jokers in one copy
    assert (4, 8, "H") not in tm.variables.pool.runs


def test_the_play_needing_both_jokers_is_still_found() -> None:
    result = solve_move(_rummikub(["4H", "5H", "JK", "JK"]), Objective.MOST_CARDS)
    assert result.optimal
    assert result.moves[0].cards_played == 4
