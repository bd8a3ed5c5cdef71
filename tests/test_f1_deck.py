"""F1: the played card must be in hand.

Vectors: tests/vectors/fishing/plays.toml, judged by the referee.
"""

from __future__ import annotations

import pytest

from solver.core.errors import InvalidRequest
from solver.core.rulesets import CAROSELLO
from solver.fishing.items import deck_cards, deck_for
from solver.fishing.notation import parse_table_text
from solver.fishing.position import RawPosition, parse_position
from tests.fishing_checks import check_play_case
from tests.fishing_vectors import Case, params


@pytest.mark.parametrize("case", params("plays", "F1"))
def test_f1_deck_vectors(case: Case) -> None:
    check_play_case(case)


@pytest.mark.parametrize(
    ("size", "omit_broom", "specials", "table_cards", "target"),
    [
        (56, False, {"JK20", "JK15", "JK11", "BROOM"}, 8, 120),
        (55, False, {"JK15", "JK11", "BROOM"}, 7, 90),
        (55, True, {"JK20", "JK15", "JK11"}, 7, 90),
        (54, False, {"JK15", "JK11"}, 6, 60),
    ],
)
def test_f1_deck_sizes(
    size: int, omit_broom: bool, specials: set[str], table_cards: int, target: int
) -> None:
    """F1: 56 = 52 + JK20 JK15 JK11 BROOM; 55 without JK20 (or, as an option, the broom);
    54 without both; 8/7/6 table cards; targets 120/90/60."""
    assert CAROSELLO.fishing is not None
    deck = deck_for(CAROSELLO.fishing, size, omit_broom)
    assert deck is not None
    cards = deck_cards(deck)
    assert len(cards) == size
    assert {c.special for c in cards if c.special} == specials
    assert (deck.table_cards, deck.target) == (table_cards, target)


def test_f1_a_card_outside_the_deck_is_malformed() -> None:
    """F1: JK20 is not in the 54-card deck, and a card cannot lie in two places."""
    raw = RawPosition("carosello", parse_table_text("7H"), ["JK20", "7H"], deck_size=54)
    with pytest.raises(InvalidRequest) as caught:
        parse_position(raw)
    assert [p.field for p in caught.value.problems] == ["hand[0]", "table[0].cards[0]"]
