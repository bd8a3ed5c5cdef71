"""Cards as the commands print them: suit symbols in colour on a terminal, codes when piped.

Piped output (``sys.stdout.isatty()`` false) and ``NO_COLOR`` (https://no-color.org) keep the
plain codes (``5C JK=6 7H``), which scripts and the tests read; a terminal shows ``5♣ JK=6 7♥``
with the red suits (♥ ♦) in red.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable

from solver.core.cards import SUIT_GLYPHS

_RED = "\x1b[31m"
_RESET = "\x1b[0m"
_RED_SUITS = frozenset("HD")
# A card code's rank and suit: ``10H``, ``KS``; a wild's value may name a suit (``JK=6H``).
_RANK_AND_SUIT = re.compile(r"(10|[2-9AJQKT])([CDHS])")


def use_colour() -> bool:
    """Colour only a terminal, and only when the user has not asked for none."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _coloured(part: str) -> str:
    """One code (no ``=``) with its suit as a symbol, red for hearts and diamonds."""
    card = _RANK_AND_SUIT.fullmatch(part)
    if card is None:
        return part  # a joker or another special card has no suit
    rank, suit = card.groups()
    text = f"{rank}{SUIT_GLYPHS[suit]}"
    return f"{_RED}{text}{_RESET}" if suit in _RED_SUITS else text


def show_card(code: str, colour: bool | None = None) -> str:
    """``7H`` as a terminal shows it (``7♥`` in red), or unchanged when piped."""
    if not (use_colour() if colour is None else colour):
        return code
    return "=".join(_coloured(part) for part in code.split("="))


def show_cards(cards: Iterable[object], colour: bool | None = None) -> str:
    """Space-separated cards, as ``format_cards`` writes them when piped."""
    return " ".join(show_card(str(card), colour) for card in cards)


def count(n: int, noun: str) -> str:
    """A count with its noun in the right number: "1 point", "0 points", "3 melds"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
