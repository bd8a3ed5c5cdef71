"""Hypothesis strategies for ScoreRound properties: round ends dealt from a real deck (R1)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from solver.core.cards import Card
from solver.core.rulesets import Ruleset
from solver.rummy.scoring import RoundEnd, RoundToScore


def _knock_hand(ruleset: Ruleset, pile: list[Card], two: bool) -> list[Card]:
    """One or two cards from the pile worth 1 to the knock threshold together (R10)."""
    limit = ruleset.knock_threshold
    first = next(c for c in pile if 1 <= ruleset.points(c) <= limit)
    pile.remove(first)
    hand = [first]
    room = limit - ruleset.points(first)
    second = next((c for c in pile if 1 <= ruleset.points(c) <= room), None)
    if two and second is not None:
        pile.remove(second)
        hand.append(second)
    return hand


@st.composite
def dealt_rounds(draw: Any, ruleset: Ruleset, ends: tuple[RoundEnd, ...]) -> RoundToScore:
    """A round's end with hands dealt from the ruleset's real deck (R1) and random totals."""
    players = draw(st.integers(ruleset.min_players, ruleset.max_players))
    end = draw(st.sampled_from(ends))
    ender = draw(st.integers(0, players - 1))
    pile = sorted(ruleset.deck(players).elements())
    draw(st.randoms(use_true_random=False)).shuffle(pile)  # cheaper than st.permutations
    hands: list[tuple[Card, ...]] = []
    for seat in range(players):
        if seat == ender and end is RoundEnd.WENT_OUT:
            hand: list[Card] = []
        elif seat == ender and end is RoundEnd.KNOCK:
            hand = _knock_hand(ruleset, pile, draw(st.booleans()))
        else:
            size = draw(st.integers(1, 6))
            hand, pile = pile[:size], pile[size:]
        hands.append(tuple(hand))
    totals = draw(st.lists(st.integers(0, 149), min_size=players, max_size=players))
    return RoundToScore(ruleset, players, end, ender, tuple(hands), tuple(totals))
