"""R5 x R6: a mexe-mexe 2 laid while an identical released 2 goes back to the hand.

Seed 000 (mexe-mexe): "um jogador que tenha em sua mão uma carta 'do mesmo valor que o 2'
pode substituí-lo e colocar o 2 em sua mão" — a card of the 2's value frees it into the hand;
and (R6) "Ao rearrumar combinações, um jogador deverá adicionar a elas pelo menos uma carta
de sua mão" — a rearrangement must add at least one hand card.

Where the card of the 2's value is an identical 2 (a wild ``2S=2S`` freed by the hand's
``2S``), the table and the hand end as they were: the pair is a *swap* and lays nothing
(docs/rules.md, "What counts as laid"). Found by the brute-force differential (mexe-mexe
seed 7638), where the solver and the reference disagreed on the tie-break.
"""

from __future__ import annotations

from solver.core.cards import Card
from solver.rearrangement.search import Objective, solve_move, validate_move
from solver.rummy.position import Turn, parse_move, parse_position
from tests.reference.bruteforce import solve
from tests.reference.differential import compare


def melds(*texts: str) -> list[list[str]]:
    return [t.split() for t in texts]


def test_r6_a_swap_of_identical_2s_lays_nothing_and_is_a_pass() -> None:
    pos = parse_position("mexe-mexe", 3, melds("AS 2S=2S 3S 4S"), ["2S"], Turn(cards_drawn=1))
    verdict = validate_move(pos, parse_move(pos, melds("AS 2S 3S 4S"), ["2S"]))
    assert verdict.legal, verdict.violations
    assert verdict.played == ()
    assert verdict.hand_after == (Card(2, "S"),)
    assert not verdict.went_out


def test_r6_a_swap_does_not_make_a_rearrangement_legal() -> None:
    # Splitting the run needs a hand card; a 2 swapped for an identical one is none.
    pos = parse_position("mexe-mexe", 3, melds("AS 2S=2S 3S 4S 5S 6S"), ["2S"], Turn(cards_drawn=1))
    verdict = validate_move(pos, parse_move(pos, melds("AS 2S 3S", "4S 5S 6S"), ["2S"]))
    assert not verdict.legal
    assert {v.code.name for v in verdict.violations} == {"NO_HAND_CARD_PLAYED"}
    assert verdict.played == ()


def test_r5_a_laid_2_that_frees_another_wild_while_its_twin_goes_back_counts_once() -> None:
    # The 9S frees 2S=9S into the hand; the hand's 2S frees 2H=2S, which goes back too. The
    # hand goes from 9S 2S to 2S 2H: one card laid (the 9S), not two.
    pos = parse_position(
        "mexe-mexe", 3, melds("7S 8S 2S=9S", "AS 2H=2S 3S"), ["9S", "2S"], Turn(cards_drawn=1)
    )
    move = parse_move(pos, melds("7S 8S 9S", "AS 2S 3S"), ["2S", "2H"])
    verdict = validate_move(pos, move)
    assert verdict.legal, verdict.violations
    assert verdict.played == (Card(9, "S"),)
    assert sorted(verdict.hand_after) == sorted((Card(2, "S"), Card(2, "H")))
    # The brute-force reference counts it the same way.
    assert solve(pos).to_hand is not None


def test_solver_never_offers_a_swap_as_a_play() -> None:
    # The hand's 2S can replace the table's 2S=2S (a swap, no play) or split the 13-card run
    # and stand as a wild: only the second lays a card and goes out.
    run = "AS 2S=2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"
    pos = parse_position("mexe-mexe", 3, melds(run), ["2S"], Turn(cards_drawn=1))
    for objective in Objective:
        result = solve_move(pos, objective, 3)
        assert result.moves, objective
        for solved in result.moves:
            assert solved.cards_played == 1 and solved.verdict.went_out, objective
            assert not solved.move.to_hand


def test_differential_seed_7638_agrees() -> None:
    outcome = compare(("mexe-mexe", 7638))
    assert outcome.agrees, outcome.report()
