"""Card values, deal points and table items of the fishing games (F1, F2, F5, F9)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from solver.core.cards import Card
from solver.core.rulesets import FishingDeck, FishingRules

BROOM = "BROOM"
COURT_RANKS = (11, 12, 13)
NO_OWNER = -1


def is_court(card: Card) -> bool:
    """J, Q or K: they capture only their own rank and have no value in sums (F2, F4)."""
    return card.is_ordinary and card.rank in COURT_RANKS


def is_broom(card: Card) -> bool:
    return card.special == BROOM


def card_value(card: Card, rules: FishingRules) -> int:
    """The value a card counts for in captures and builds (F2); 0 for J, Q, K and the broom."""
    if card.special:
        return rules.special_values.get(card.special, 0)
    return 0 if card.rank in COURT_RANKS else card.rank


def card_points(card: Card, rules: FishingRules) -> int:
    """The deal points a card is worth by itself (F9); the "most" prizes come at deal end."""
    if card.special:
        return rules.special_points.get(card.special, 0)
    if card.rank == 1:
        return rules.ace_points
    if card.rank == 10 and card.suit == "D":
        return rules.ten_of_diamonds_points
    if card.rank == 2 and card.suit == rules.prize_suit:
        return rules.deuce_points
    return 0


def is_prize_suit(card: Card, rules: FishingRules) -> bool:
    return card.is_ordinary and card.suit == rules.prize_suit


def pile_points(cards: Iterable[Card], rules: FishingRules) -> int:
    return sum(card_points(card, rules) for card in cards)


def prize_suit_count(cards: Iterable[Card], rules: FishingRules) -> int:
    return sum(1 for card in cards if is_prize_suit(card, rules))


@dataclass(frozen=True, order=True, slots=True)
class Item:
    """One table item: a single card, or a build (two or more cards, a value and an owner).

    A build's value is always the sum of its cards' values, since every card added to it
    raised it by its own value (F5)."""

    cards: tuple[Card, ...]
    value: int
    owner: int = NO_OWNER

    @property
    def is_build(self) -> bool:
        return len(self.cards) > 1

    @property
    def court_rank(self) -> int:
        """The rank of a single J, Q or K; 0 for anything else."""
        if len(self.cards) == 1 and is_court(self.cards[0]):
            return self.cards[0].rank
        return 0

    @property
    def text(self) -> str:
        """The item in the CLI notation: ``7H`` or ``[2H 3S AC =6 @1]``."""
        if not self.is_build:
            return self.cards[0].code
        codes = " ".join(card.code for card in self.cards)
        return f"[{codes} ={self.value} @{self.owner}]"


def single(card: Card, rules: FishingRules) -> Item:
    """A single card lying on the table."""
    return Item((card,), card_value(card, rules))


@dataclass(frozen=True, slots=True)
class Deck:
    """The cards of one fishing deck (F1): 52 ordinary cards plus its specials."""

    size: int
    specials: tuple[str, ...]
    table_cards: int
    target: int


def deck_for(rules: FishingRules, size: int, omit_broom: bool) -> Deck | None:
    """The deck of that size; with 55 cards ``omit_broom`` leaves out the broom, not JK20."""
    found: FishingDeck | None = next((d for d in rules.decks if d.size == size), None)
    if found is None:
        return None
    specials = found.specials
    if size == 55 and omit_broom:
        specials = ("JK20", "JK15", "JK11")
    return Deck(found.size, specials, found.table_cards, found.target)


def deck_cards(deck: Deck) -> frozenset[Card]:
    """Every card of the deck (a fishing deck holds one copy of each)."""
    ordinary = {Card(rank, suit) for suit in "CDHS" for rank in range(1, 14)}
    return frozenset(ordinary | {Card(0, "", special) for special in deck.specials})
