"""Wording of the score lines: players are seat letters (player 0 = A), as in seed 000."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from solver.core.cards import Card
from solver.core.rulesets import Ruleset

# The minus and multiplication signs of the worked examples ("B: 10 - A: 4 = 6" is printed
# with U+2212), spelled as escapes because in source they look like ASCII "-" and "x".
MINUS = "\u2212"
TIMES = "\u00d7"


def seat(player: int) -> str:
    """Seat letter of a player: 0 → A, 1 → B, …"""
    return chr(ord("A") + player) if 0 <= player < 26 else f"P{player}"


def seats(players: Iterable[int]) -> str:
    """``A``, ``A and C``, ``A, B and D``."""
    names = [seat(p) for p in players]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def per_card_uniform(ruleset: Ruleset, cards: Sequence[Card]) -> bool:
    """Every card counts the same (shangai: 1 per card), so the count says it all."""
    return len(set(ruleset.scoring.card_points)) == 1 and all(c.is_ordinary for c in cards)


def hand_sum(ruleset: Ruleset, cards: Sequence[Card]) -> str:
    """``KH AS 3C = 10 + 15 + 3 = 28``; ``3 cards in hand = 3``; ``no cards = 0``."""
    total = ruleset.hand_points(cards)
    if not cards:
        return "no cards = 0"
    if per_card_uniform(ruleset, cards):
        noun = "card" if len(cards) == 1 else "cards"
        each = ruleset.scoring.card_points[0]
        count = f"{len(cards)} {noun} in hand"
        return f"{count} = {total}" if each == 1 else f"{count} {TIMES} {each} = {total}"
    codes = " ".join(c.code for c in cards)  # in the order the client listed them
    if len(cards) == 1:
        return f"{codes} = {total}"
    terms = " + ".join(str(ruleset.points(c)) for c in cards)
    return f"{codes} = {terms} = {total}"
