"""The keys of a suggestion read off a proposal (SPEC §4 ValidateMove `suggest`, issue #53,
docs/validate.md "Suggestions"): which hand cards it laid, and which of its melds a table
keeps."""

from __future__ import annotations

from collections import Counter

from solver.core.cards import Card, parse_card
from solver.rearrangement.suggest import (
    kept_melds,
    key_weights,
    proposal_hand_cards,
    written_out,
)
from solver.rummy.position import Turn, parse_move, parse_position


def cards(text: str) -> Counter[Card]:
    return Counter(parse_card(code) for code in text.split())


def test_r6_hand_cards_are_the_copies_beyond_the_table() -> None:
    # Two decks: a 9D on the table and one in the hand; the proposal shows two, so one is
    # the hand's. The KS shown is in neither (CARD_NOT_IN_HAND): ignored.
    position = parse_position(
        "carrossel", 3, [["7D", "8D", "9D"]], ["9D", "10D", "5C"], Turn(cards_drawn=1)
    )
    proposal = parse_move(position, [["7D", "8D", "9D", "10D"], ["9D", "KS", "JK"]])
    assert proposal_hand_cards(position, proposal) == cards("9D 10D")


def test_r5_a_two_taken_back_leaves_its_copy_to_the_hand() -> None:
    # Mexe-mexe: the table's 2C goes to the hand (to_hand), so the 2C still shown on the
    # proposal's table is the hand's own 2C.
    position = parse_position(
        "mexe-mexe", 3, [["4H", "5H", "6H", "2C=7H"]], ["7H", "2C"], Turn(cards_drawn=1)
    )
    proposal = parse_move(position, [["4H", "5H", "6H", "7H", "2C=8H"]], ["2C"])
    assert proposal_hand_cards(position, proposal) == cards("7H 2C")


def test_kept_melds_match_once_in_any_order_with_the_same_wild_ranks() -> None:
    position = parse_position("carrossel", 3, [["7H", "8S", "JK=9"]], ["5C"], Turn(cards_drawn=1))
    proposal = written_out(
        position.ruleset,
        parse_move(position, [["8S", "7H", "JK=9"], ["5C", "5D", "5H"], ["5C", "5D", "5H"]]),
    )
    table = parse_move(position, [["5C", "5D", "5H"], ["7H", "8S", "JK=9"]]).table
    kept, marks = kept_melds(proposal, table)
    assert kept == (0, 1)  # the run written out of order; one of the two groups
    assert marks == (True, True)
    other = parse_move(position, [["7H", "8S", "JK=6"]]).table  # the joker stands for a 6
    assert kept_melds(proposal, other)[0] == ()


def test_key_weights_order_moves_as_the_keys_do() -> None:
    # One weighted solve stands for three lexicographic ones (docs/validate.md,
    # "Suggestions"): on every pair of key triples in the model's bounds, the weighted sums
    # compare exactly as (laid, kept, -changed) do.
    for most_kept in range(4):
        for melds_before in range(5):
            a, b, c = key_weights(most_kept, melds_before)
            triples = [
                (laid, kept, changed)
                for laid in range(4)
                for kept in range(most_kept + 1)
                for changed in range(melds_before + 1)
            ]
            for x in triples:
                for y in triples:
                    weighted = a * x[0] + b * x[1] + c * x[2] > a * y[0] + b * y[1] + c * y[2]
                    lexicographic = (x[0], x[1], -x[2]) > (y[0], y[1], -y[2])
                    assert weighted == lexicographic, (most_kept, melds_before, x, y)
