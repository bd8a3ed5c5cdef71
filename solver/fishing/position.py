"""What the player to move sees, parsed and checked (F1, F5): every bad field is reported.

The service hands plain values (``RawPosition``); field paths are relative to the position,
such as ``table[2].cards[1]``, and the caller places them under its own prefix.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from solver.core.cards import Card, parse_card
from solver.core.errors import NotationError, ProblemCollector
from solver.core.rulesets import FishingRules, get_ruleset
from solver.fishing.items import (
    NO_OWNER,
    Deck,
    Item,
    card_value,
    deck_cards,
    deck_for,
    is_broom,
    is_court,
)

HAND_SIZE = 4
DEFAULT_DECK = 56
DEFAULT_PLAYERS = 2


@dataclass(frozen=True)
class RawItem:
    cards: Sequence[str]
    value: int = 0
    owner: int = 0


@dataclass(frozen=True)
class RawPosition:
    """A position as a client writes it; ``players`` and ``deck_size`` 0 mean the defaults."""

    ruleset: str
    table: Sequence[RawItem]
    hand: Sequence[str]
    deck_size: int = 0
    player: int = 0
    players: int = 0
    piles: Sequence[Sequence[str]] = ()
    last_capturer: int | None = None
    other_hands: Sequence[tuple[int, Sequence[str]]] = ()
    omit_broom: bool = False


@dataclass(frozen=True)
class Position:
    """A checked fishing position. ``piles`` is empty when the client gave none."""

    ruleset_id: str
    rules: FishingRules
    deck: Deck
    players: int
    player: int
    table: tuple[Item, ...]
    hand: tuple[Card, ...]
    piles: tuple[tuple[Card, ...], ...] = ()
    last_capturer: int = NO_OWNER
    other_hands: Mapping[int, tuple[Card, ...]] = field(
        default_factory=lambda: MappingProxyType({})
    )

    @property
    def sides(self) -> int:
        """Partners (2 v 2, sitting opposite) share one pile (F8): four players are two sides."""
        return sides_of(self.players)

    def side_of(self, player: int) -> int:
        return player % self.sides


def sides_of(players: int) -> int:
    return 2 if players == 4 else players


class SeenCards:
    """Every card met so far with where it was met: a fishing deck has one copy of each."""

    def __init__(self, deck: frozenset[Card], problems: ProblemCollector, deck_size: int) -> None:
        self.deck = deck
        self.where: dict[Card, str] = {}
        self.problems = problems
        self.deck_size = deck_size

    def card(self, text: str, path: str) -> Card | None:
        try:
            card = parse_card(text)
        except NotationError as error:
            self.problems.add(path, str(error))
            return None
        if card not in self.deck:
            self.problems.add(path, f"{card.code} is not in the {self.deck_size}-card deck (F1)")
            return None
        if card in self.where:
            self.problems.add(
                path, f"{card.code} is also at {self.where[card]}; the deck has one of each (F1)"
            )
            return None
        self.where[card] = path
        return card


def parse_position(raw: RawPosition) -> Position:
    """The checked position, or ``InvalidRequest`` listing every bad field."""
    problems = ProblemCollector()
    ruleset = get_ruleset(raw.ruleset)
    rules = ruleset.fishing if ruleset is not None else None
    if rules is None:
        problems.add(
            "ruleset", f"{raw.ruleset!r} is not a fishing ruleset (carosello, carrusel, karusele)"
        )
    players = raw.players or DEFAULT_PLAYERS
    if not 2 <= players <= 4:
        problems.add("players", f"{raw.players} players: the fishing games take 2 to 4")
    elif not 0 <= raw.player < players:
        problems.add("player", f"player {raw.player} is not one of players 0-{players - 1}")
    deck = deck_for(rules, raw.deck_size or DEFAULT_DECK, raw.omit_broom) if rules else None
    if rules is not None and deck is None:
        problems.add("deck_size", f"a fishing deck has 56, 55 or 54 cards, not {raw.deck_size}")
    if rules is None or deck is None:
        problems.raise_if_any()
    assert rules is not None and deck is not None and ruleset is not None
    seen = SeenCards(deck_cards(deck), problems, deck.size)
    hand = _parse_hand(raw.hand, "hand", seen, problems)
    if not hand and not problems.problems:
        problems.add("hand", "the player to move holds no card")
    table = tuple(
        item
        for index, raw_item in enumerate(raw.table)
        if (item := _parse_item(raw_item, f"table[{index}]", rules, players, seen)) is not None
    )
    piles = _parse_piles(raw.piles, players, seen, problems)
    other_hands = _parse_other_hands(raw, players, seen, problems)
    last = NO_OWNER if raw.last_capturer is None else raw.last_capturer
    if raw.last_capturer is not None and not 0 <= last < players:
        problems.add("last_capturer", f"player {last} is not one of players 0-{players - 1}")
    problems.raise_if_any()
    position = Position(
        ruleset.id,
        rules,
        deck,
        players,
        raw.player,
        table,
        hand,
        piles,
        last,
        MappingProxyType(other_hands),
    )
    _check_own_builds(position, problems)
    problems.raise_if_any()
    return position


def _parse_hand(
    codes: Sequence[str], path: str, seen: SeenCards, problems: ProblemCollector
) -> tuple[Card, ...]:
    if len(codes) > HAND_SIZE:
        problems.add(path, f"{len(codes)} cards: a fishing hand holds at most {HAND_SIZE}")
    cards = [seen.card(code, f"{path}[{i}]") for i, code in enumerate(codes)]
    return tuple(card for card in cards if card is not None)


def _parse_item(
    raw: RawItem, path: str, rules: FishingRules, players: int, seen: SeenCards
) -> Item | None:
    problems = seen.problems
    if not raw.cards:
        problems.add(f"{path}.cards", "a table item holds at least one card")
        return None
    parsed = [seen.card(code, f"{path}.cards[{i}]") for i, code in enumerate(raw.cards)]
    cards = tuple(card for card in parsed if card is not None)
    if len(cards) != len(parsed):
        return None
    if any(is_broom(card) for card in cards):
        problems.add(f"{path}.cards", "the broom never lies on the table: it always sweeps (F6)")
        return None
    total = sum(card_value(card, rules) for card in cards)
    if len(cards) == 1:
        if raw.value not in (0, total):
            problems.add(f"{path}.value", f"{cards[0].code} is worth {total}, not {raw.value}")
            return None
        return Item(cards, total)
    if any(is_court(card) for card in cards):
        problems.add(f"{path}.cards", "J, Q and K never take part in a build (F5)")
        return None
    if raw.value not in (0, total):
        problems.add(
            f"{path}.value",
            f"the build's cards sum to {total}, not {raw.value}: a build is worth its sum (F5)",
        )
        return None
    if not 0 <= raw.owner < players:
        problems.add(f"{path}.owner", f"player {raw.owner} is not one of players 0-{players - 1}")
        return None
    return Item(cards, total, raw.owner)


def _parse_piles(
    raw_piles: Sequence[Sequence[str]], players: int, seen: SeenCards, problems: ProblemCollector
) -> tuple[tuple[Card, ...], ...]:
    if raw_piles and len(raw_piles) != sides_of(players):
        problems.add(
            "piles",
            f"{len(raw_piles)} piles for {sides_of(players)} sides: one pile per side "
            "(partners share one, F8)",
        )
    return tuple(
        tuple(c for i, code in enumerate(pile) if (c := seen.card(code, f"piles[{s}].cards[{i}]")))
        for s, pile in enumerate(raw_piles)
    )


def _parse_other_hands(
    raw: RawPosition, players: int, seen: SeenCards, problems: ProblemCollector
) -> dict[int, tuple[Card, ...]]:
    hands: dict[int, tuple[Card, ...]] = {}
    for index, (player, codes) in enumerate(raw.other_hands):
        path = f"other_hands[{index}]"
        if not 0 <= player < players or player == raw.player or player in hands:
            problems.add(
                f"{path}.player",
                f"player {player} is not another player (0-{players - 1}, once each, "
                f"not the player to move {raw.player})",
            )
            continue
        hands[player] = _parse_hand(codes, f"{path}.cards", seen, problems)
    return hands


def _check_own_builds(position: Position, problems: ProblemCollector) -> None:
    """A build's owner kept a card of its value to capture it next turn (F5)."""
    values = {card_value(card, position.rules) for card in position.hand}
    for index, item in enumerate(position.table):
        if item.is_build and item.owner == position.player and item.value not in values:
            problems.add(
                f"table[{index}]",
                f"player {position.player} owns this build of {item.value} but holds no card "
                f"of value {item.value} to capture it (F5)",
            )
