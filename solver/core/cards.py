"""Cards and their text notation (SPEC §2): parse and print, nothing else.

``7H``, ``10S`` (or ``TS``), ``AS``, ``JK`` (rummy joker), ``JK20``/``JK15``/``JK11`` and
``BROOM`` (fishing specials). On the table a wild may carry the value it stands for:
``JK=9H``, ``JK=9``, ``2C=7H``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from solver.core.errors import NotationError

SUITS = ("C", "D", "H", "S")
SUIT_SYMBOLS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
SUIT_GLYPHS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}

RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}
_RANK_BY_TEXT = {"A": 1, "J": 11, "Q": 12, "K": 13, "T": 10}
_RANK_BY_TEXT.update({str(n): n for n in range(2, 11)})

JOKER = "JK"
FISHING_SPECIALS = ("JK20", "JK15", "JK11", "BROOM")


def rank_name(rank: int) -> str:
    """Canonical text of a rank: ``A``, ``2``…``10``, ``J``, ``Q``, ``K``."""
    return RANK_NAMES.get(rank, str(rank))


class Card(NamedTuple):
    """One physical card. Two copies from two decks are equal: cards form multisets.

    ``rank`` is 1 (ace) … 13 (king) for ordinary cards and 0 for specials;
    ``suit`` is one of ``C D H S`` or ``""``; ``special`` is ``""``, ``JK``, ``JK20``,
    ``JK15``, ``JK11`` or ``BROOM``.

    A named tuple, not a dataclass: the solver hashes and compares cards hundreds of times
    per request, and a tuple does both in C (a tenth of a small solve's time).
    """

    rank: int
    suit: str
    special: str = ""

    @property
    def code(self) -> str:
        """Canonical text: ``AS``, ``10H``, ``JK``."""
        if self.special:
            return self.special
        # Looked up, not formatted: a request reads card codes thousands of times.
        code = _CODES.get((self.rank, self.suit))
        return code if code is not None else f"{rank_name(self.rank)}{self.suit}"

    @property
    def is_joker(self) -> bool:
        """The rummy joker ``JK``."""
        return self.special == JOKER

    @property
    def is_ordinary(self) -> bool:
        """A card with a rank and a suit (not a joker, numbered joker or broom)."""
        return not self.special

    def __str__(self) -> str:
        return self.code


_CODES = {(rank, suit): f"{rank_name(rank)}{suit}" for rank in range(1, 14) for suit in SUITS}

ORDINARY_CARDS = tuple(Card(rank, suit) for suit in SUITS for rank in range(1, 14))
"""The 52 ordinary cards, suit by suit, made once."""


def ordinary(rank: int, suit: str) -> Card:
    """The ordinary card of that rank and suit."""
    return Card(rank, suit)


JOKER_CARD = Card(0, "", JOKER)


@dataclass(frozen=True, order=True, slots=True)
class WildValue:
    """What a wild stands for: a rank, plus a suit where the meld fixes one."""

    rank: int
    suit: str | None = None

    @property
    def code(self) -> str:
        return rank_name(self.rank) + (self.suit or "")

    def stands_for(self, card: Card) -> bool:
        """Is ``card`` a natural of exactly the card this value stands for (its rank, and
        its suit where the value carries one)?"""
        return card.is_ordinary and card.rank == self.rank and self.suit in (None, card.suit)

    def matches(self, other: WildValue) -> bool:
        """Same rank, and same suit where both carry one."""
        if self.rank != other.rank:
            return False
        return self.suit is None or other.suit is None or self.suit == other.suit


@dataclass(frozen=True, order=True, slots=True)
class TableCard:
    """A card as written in a meld, with the value its writer declared for a wild."""

    card: Card
    value: WildValue | None = None

    @property
    def code(self) -> str:
        if self.value is None:
            return self.card.code
        return f"{self.card.code}={self.value.code}"

    def __str__(self) -> str:
        return self.code


def _upper(text: str) -> str:
    """Upper case of ASCII text only: Unicode case mapping would read ``ſ`` as ``S``."""
    return text.upper() if text.isascii() else text


def _parse_rank(text: str, whole: str) -> int:
    rank = _RANK_BY_TEXT.get(_upper(text))
    if rank is None:
        raise NotationError(whole, f"unknown rank {text!r} (use A 2-10 J Q K, or T for 10)")
    return rank


def _parse_suit(text: str, whole: str) -> str:
    suit = SUIT_SYMBOLS.get(text, _upper(text))
    if suit not in SUITS:
        raise NotationError(whole, f"unknown suit {text!r} (use C D H S or ♣ ♦ ♥ ♠)")
    return suit


# Variation selectors: a phone keyboard writes ♠ as ♠️ (the emoji presentation).
_PRESENTATION = str.maketrans("", "", "\ufe0e\ufe0f")


# Cards are immutable and a request repeats a few dozen codes: each is parsed once per
# process (a third of parsing a position); an error is raised again every time.
@lru_cache(maxsize=4096)
def parse_card(text: str) -> Card:
    """Parse one card code (case-insensitive); raise ``NotationError`` quoting the text."""
    raw = text.strip().translate(_PRESENTATION)
    upper = _upper(raw)
    if not raw:
        raise NotationError(text, "empty card code")
    if upper == JOKER or upper in FISHING_SPECIALS:
        return Card(0, "", upper)
    if "=" in raw:
        raise NotationError(text, "a value after '=' is only allowed for a wild card on the table")
    if len(raw) < 2:
        raise NotationError(text, "a card is a rank followed by a suit, e.g. 7H or 10S")
    return Card(_parse_rank(raw[:-1], text), _parse_suit(raw[-1], text))


def parse_value(text: str, whole: str) -> WildValue:
    """Parse the part after ``=``: a rank with an optional suit (``9``, ``9H``, ``10S``)."""
    raw = text.strip().translate(_PRESENTATION)
    if not raw:
        raise NotationError(whole, "empty value after '='")
    last = raw[-1]
    if SUIT_SYMBOLS.get(last, _upper(last)) in SUITS and len(raw) >= 2:
        return WildValue(_parse_rank(raw[:-1], whole), _parse_suit(last, whole))
    return WildValue(_parse_rank(raw, whole), None)


@lru_cache(maxsize=4096)
def parse_table_card(text: str) -> TableCard:
    """Parse a card as written in a meld: ``7H``, ``JK``, ``JK=9H``, ``2C=7H``."""
    if "=" not in text:
        return TableCard(parse_card(text))
    card_text, _, value_text = text.partition("=")
    card = parse_card(card_text)
    if card.special and not card.is_joker:
        raise NotationError(text, f"{card.code} cannot carry a value")
    return TableCard(card, parse_value(value_text, text))


def format_cards(cards: Iterable[object]) -> str:
    """Space-separated codes, for messages."""
    return " ".join(str(c) for c in cards)


def sort_key(card: Card) -> tuple[int, int, str, str]:
    """Order for listing hands: ordinary cards by rank then suit, specials last."""
    return (1 if card.special else 0, card.rank, card.suit, card.special)
