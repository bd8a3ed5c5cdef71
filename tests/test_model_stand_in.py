"""A lone free wild counted as a stand-in for one card code (``model.pool._build_stand_ins``).

R3 (SPEC §3): "A wild in a group stands for one of the missing suits"; in a same-suit run a
wild stands for its place's rank and the run's suit (R4). So where the only wild in play is
one free wild (a joker on the rack), every place it can fill is one card code's, and the
pool counts runs and groups per code as without wilds. These tests check the model's
shape and the plays that need the joker in a run, in a group and in rummikub's opening
(R8: "a joker counts as the value it stands for"); the brute-force comparison
(``tests/test_solver_vs_bruteforce.py``, ``test_stand_in_wilds_match_bruteforce``: about one
rummikub or mexe-mexe position in nine) checks that no play is lost.
"""

from __future__ import annotations

import pytest

from solver.core.cards import WildValue
from solver.rearrangement import search
from solver.rearrangement.model import TurnModel, turn_options
from solver.rearrangement.model import data as model_data
from solver.rearrangement.search import Objective, SolveResult, solve_move
from solver.rummy.position import Position, Turn, parse_position


@pytest.fixture(autouse=True)
def _turn_model_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in is the turn model's: the deck's melds (``model.deck_melds``) would
    answer rummikub's single moves first."""
    monkeypatch.setattr(search, "DECK_MELDS", False)


def _model(position: Position) -> TurnModel:
    limit = position.ruleset.rearrangement.max_new_melds
    # The model built for the position alone: rummikub's usual one copies the deck's.
    return TurnModel(position, turn_options(position, limit, None), copy_deck=False)


def _rummikub(table: list[list[str]], hand: list[str], opened: bool = True) -> Position:
    return parse_position("rummikub", 2, table, hand, Turn(has_opened=opened))


def _jokers(result: SolveResult) -> list[tuple[tuple[str, ...], WildValue | None]]:
    """Each joker of the best move with its meld's card codes and the value it has."""
    return [
        (tuple(tc.card.code for tc in meld), tc.value)
        for meld in result.moves[0].move.table
        for tc in meld
        if tc.card.code == "JK"
    ]


def test_a_lone_rack_joker_needs_no_wild_variable_per_place() -> None:
    tm = _model(_rummikub([["9C", "9D", "9S"]], ["4H", "5H", "JK"]))
    assert tm.data.stand_in
    pool = tm.variables.pool
    assert not pool.run_free_wilds and not pool.group_free_wilds and not pool.groups
    assert (6, "H") in tm.variables.pool.stand_ins  # 4♥ 5♥ JK=6♥: no natural 6♥ in play
    assert (3, "H") in tm.variables.pool.stand_ins  # JK=3♥ 4♥ 5♥
    assert (7, "H") not in tm.variables.pool.stand_ins  # 4♥-7♥ has two holes: no shape holds a 7♥
    # Groups are counted per set of suits, a suit without a natural being the joker's.
    assert (9, ("C", "D", "H", "S")) in tm.variables.pool.group_sets


def test_the_joker_lays_a_run_standing_in_for_its_hole() -> None:
    result = solve_move(_rummikub([["9C", "9D", "9S"]], ["4H", "5H", "JK"]), Objective.MOST_CARDS)
    assert result.optimal
    assert result.moves[0].cards_played == 3
    [(meld, value)] = _jokers(result)
    assert value in (WildValue(3, "H"), WildValue(6, "H"))
    assert sorted(meld) == ["4H", "5H", "JK"]


def test_the_joker_stands_in_for_a_suit_the_group_lacks() -> None:
    result = solve_move(_rummikub([["2C", "3C", "4C"]], ["7H", "7S", "JK"]), Objective.MOST_CARDS)
    assert result.optimal
    assert result.moves[0].cards_played == 3
    [(meld, value)] = _jokers(result)
    assert sorted(meld) == ["7H", "7S", "JK"]
    assert value == WildValue(7, None)  # a group wild's suit is not written (R4)


def test_the_joker_joins_a_group_on_the_table_as_its_fourth_suit() -> None:
    result = solve_move(_rummikub([["8C", "8D", "8S"]], ["JK"]), Objective.MOST_CARDS)
    assert result.optimal
    assert result.moves[0].cards_played == 1
    [(meld, value)] = _jokers(result)
    assert len(meld) == 4 and value is not None and value.rank == 8


@pytest.mark.parametrize(("rank", "played"), [("10", 3), ("9", 0)])
def test_the_opening_counts_the_joker_at_the_card_it_stands_for(rank: str, played: int) -> None:
    # R8: before opening, new melds from the rack worth 30 or more; 10 10 JK=10 is 30,
    # 9 9 JK=9 is 27.
    position = _rummikub([["2C", "3C", "4C"]], [f"{rank}H", f"{rank}S", "JK"], opened=False)
    assert _model(position).data.stand_in
    result = solve_move(position, Objective.MOST_CARDS)
    assert result.optimal
    assert (result.moves[0].cards_played if result.moves else 0) == played


def test_a_wild_two_on_its_own_place_is_the_natural_not_a_stand_in() -> None:
    # Mexe-mexe's 2♥ in a natural run is the only wild card in play. Standing in for its
    # own code it would be the same table as the natural, and the rebuild once found such a
    # solution's stand-in no free place (the bench's mexe-mexe-small-1-1).
    table = [["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH", "AH"]]
    hand = ["AS", "3S", "5D", "6C", "6D", "6H", "7S", "8H", "8S", "10H"]
    position = parse_position("mexe-mexe", 3, table, hand, Turn(cards_drawn=1))
    tm = _model(position)
    assert tm.data.stand_in
    assert (2, "H") not in tm.variables.pool.stand_ins
    assert (2, "S") in tm.variables.pool.stand_ins
    result = solve_move(position)
    assert result.optimal and result.moves


def test_the_stand_in_model_finds_what_the_per_place_model_finds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same best values as with a wild variable on every place (the model before
    stand-ins, ``STAND_IN_WILDS = 0``), on rummikub positions with one rack joker."""
    from bench.positions import bench_positions

    positions = [
        spec.position()
        for spec in bench_positions("rummikub", "mid", 12, 5)
        if spec.hand.count("JK") == 1
    ]
    assert len(positions) >= 3
    found = []
    for stand_ins in (model_data.STAND_IN_WILDS, 0):
        monkeypatch.setattr(model_data, "STAND_IN_WILDS", stand_ins)
        assert all(_model(p).data.stand_in == bool(stand_ins) for p in positions)
        results = [solve_move(p, Objective.MOST_CARDS) for p in positions]
        assert all(r.optimal for r in results)
        found.append([(r.moves[0].cards_played, r.moves[0].melds_changed) for r in results])
    assert found[0] == found[1]


def test_two_free_wilds_or_a_table_wild_keep_a_wild_variable_per_place() -> None:
    two = _model(_rummikub([["9C", "9D", "9S"]], ["4H", "5H", "JK", "JK"]))
    assert not two.data.stand_in and two.variables.pool.run_free_wilds
    on_table = _model(_rummikub([["9C", "9D", "JK=9"]], ["4H", "5H"]))
    assert not on_table.data.stand_in
