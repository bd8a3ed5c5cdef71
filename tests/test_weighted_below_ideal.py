"""Where no play reaches the best conceivable value (the hand cannot go out), the rulesets
with R6's one new meld settle both objectives with one weighted solve before the two stages
(``tries.WEIGHTED_BELOW_IDEAL``): the same best move, proved, in fewer solves (SPEC §4
SolveMove: fewest hand points left, then "fewest original melds changed"). Where a D4
trade can lower the table's count below the model's, the two stages still run
(``tests/test_solve_move.py``'s D4 case fails otherwise)."""

from __future__ import annotations

import pytest

from solver.rearrangement import search, tries
from solver.rearrangement.search import SolveResult, solve_move
from solver.rummy.position import Turn, parse_position

# carrossel-mid-1-3 of the bench (seed 1): the joker and AH AH cannot all go, so the first
# try, every hand card played, is proved infeasible.
TABLE = [
    "8C 9C 10D JD QS KH",
    "AS 2D 3S 4C 5D 6D 7C 8S 9H 10H JH QH KS",
    "8H 9S 10D",
    "4H 5S 6S",
    "2C 3S 4C 5S",
    "8H 9H 10S JS QD KS AD",
]
HAND = "AH AH 2C 2D 5H 6D 8D 9C KD JK"
PLAYERS = 3  # two decks


TURNS = {"carrossel": Turn(cards_drawn=1), "vatikan": Turn(has_melded_sequence=True)}


def _solved(weighted: bool, monkeypatch: pytest.MonkeyPatch, ruleset: str) -> SolveResult:
    monkeypatch.setattr(tries, "WEIGHTED_BELOW_IDEAL", weighted)
    table = [meld.split() for meld in TABLE]
    return solve_move(parse_position(ruleset, PLAYERS, table, HAND.split(), TURNS[ruleset]))


@pytest.mark.parametrize("ruleset", ["carrossel", "vatikan"])
def test_below_the_ideal_one_weighted_solve_gives_the_two_stages_best_move(
    monkeypatch: pytest.MonkeyPatch, ruleset: str
) -> None:
    weighted = _solved(True, monkeypatch, ruleset)
    staged = _solved(False, monkeypatch, ruleset)
    assert weighted.moves and staged.moves
    best, expected = weighted.moves[0], staged.moves[0]
    assert best.verdict.hand_points_after == expected.verdict.hand_points_after > 0
    assert best.melds_changed == expected.melds_changed
    assert weighted.optimal and staged.optimal
    assert weighted.stats.tie_break_proved and staged.stats.tie_break_proved
    # The ideal's try, then the weighted solve; the two stages take at least one more.
    assert weighted.stats.solves == 2 < staged.stats.solves


def test_rummikub_does_not_run_its_weighted_solve_again_below_the_ideal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """New melds unlimited: the weighted solve comes first; where it settles nothing and the
    ideal is out of reach (KC cannot go), the two stages follow, not the same solve again."""
    calls: list[bool] = []

    def unsettled(*args: object) -> tuple[bool, None]:
        calls.append(True)
        return False, None

    monkeypatch.setattr(tries, "_solve_weighted", unsettled)
    monkeypatch.setattr(search, "DECK_MELDS", False)  # the turn model's tries, not the deck's melds
    position = parse_position(
        "rummikub", 2, [["9C", "9D", "9S"]], ["4H", "5H", "6H", "KC"], Turn(has_opened=True)
    )
    result = solve_move(position)
    assert len(calls) == 1
    assert result.optimal and result.moves[0].cards_played == 3
