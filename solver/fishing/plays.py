"""Plays, what they do, and every legal play of a position, listed directly (F3-F7).

A play is a hand card and one action. Captures are listed as *taken sets*: two groupings of
the same items taken by the same card are one play (the groups are only the proof that the
taken items split into sums of the card's value), shown with one canonical grouping.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from solver.core.cards import Card, sort_key
from solver.core.rulesets import FishingRules
from solver.fishing.items import (
    Item,
    card_points,
    card_value,
    is_broom,
    is_court,
    is_prize_suit,
    single,
)


class Action(Enum):
    CAPTURE = "capture"
    BUILD = "build"
    TRAIL = "trail"
    BROOM = "broom"


@dataclass(frozen=True, slots=True)
class Play:
    """A hand card and what it does. ``groups`` (capture) and ``items`` (build) index the
    table before the play; ``value`` is a build's declared value."""

    card: Card
    action: Action
    groups: tuple[tuple[int, ...], ...] = ()
    items: tuple[int, ...] = ()
    value: int = 0

    @property
    def taken(self) -> frozenset[int]:
        """The table indices a capture takes."""
        return frozenset(index for group in self.groups for index in group)

    @property
    def text(self) -> str:
        """A short human form: ``7S takes (0 1)``, ``AC builds 6 on (0 1)``."""
        if self.action is Action.CAPTURE:
            groups = " ".join("(" + " ".join(map(str, g)) + ")" for g in self.groups)
            return f"{self.card.code} takes {groups}"
        if self.action is Action.BUILD:
            items = " ".join(map(str, self.items))
            return f"{self.card.code} builds {self.value} on ({items})"
        if self.action is Action.BROOM:
            return f"{self.card.code} sweeps the table"
        return f"{self.card.code} is laid on the table"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a legal play does: the cards it captures (the played card included), the table
    after it, and what the captured cards secure."""

    captured: tuple[Card, ...]
    table_after: tuple[Item, ...]
    deal_points: int
    prize_suit_cards: int

    @property
    def key(self) -> tuple[int, int, int]:
        """SPEC §4's ranking: deal points secured, then cards, then prize-suit cards."""
        return (self.deal_points, len(self.captured), self.prize_suit_cards)


def outcome(play: Play, table: Sequence[Item], player: int, rules: FishingRules) -> Outcome:
    """The effects of a play already judged legal."""
    if play.action is Action.BROOM:
        return _captures(play.card, range(len(table)), table, (), rules)
    if play.action is Action.CAPTURE:
        taken = play.taken
        kept = tuple(item for index, item in enumerate(table) if index not in taken)
        return _captures(play.card, sorted(taken), table, kept, rules)
    if play.action is Action.BUILD:
        return Outcome((), build_table(play, table, player, rules), 0, 0)
    return Outcome((), (*table, single(play.card, rules)), 0, 0)


def _captures(
    card: Card, taken: Sequence[int] | range, table: Sequence[Item], kept: tuple[Item, ...],
    rules: FishingRules,
) -> Outcome:
    captured = (card, *(c for index in taken for c in table[index].cards))
    points = sum(card_points(c, rules) for c in captured)
    prize = sum(1 for c in captured if is_prize_suit(c, rules))
    return Outcome(captured, kept, points, prize)


def build_table(
    play: Play, table: Sequence[Item], player: int, rules: FishingRules
) -> tuple[Item, ...]:
    """The table after a build: the new build takes the place of its first item (F5)."""
    used = set(play.items)
    # In card order: the same build is the same item however its parts lay on the table.
    cards = tuple(sorted((*(c for i in used for c in table[i].cards), play.card), key=sort_key))
    value = sum(card_value(c, rules) for c in cards)
    build = Item(cards, value, player)
    first = min(used)
    return tuple(
        build if index == first else item
        for index, item in enumerate(table)
        if index == first or index not in used
    )


# --- listing plays --------------------------------------------------------------------------


def _mask_sums(values: tuple[int, ...]) -> list[int]:
    sums = [0] * (1 << len(values))
    for mask in range(1, len(sums)):
        low = mask & -mask
        sums[mask] = sums[mask ^ low] + values[low.bit_length() - 1]
    return sums


def _members(mask: int) -> tuple[int, ...]:
    return tuple(index for index in range(mask.bit_length()) if mask >> index & 1)


@lru_cache(maxsize=65536)
def capture_sets(values: tuple[int, ...], target: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Every set of table items a card of value ``target`` can take (F3), as its groups.

    ``values`` are the items' values, 0 for a J, Q or K (never in a sum, F2). Each set comes
    once, with the grouping found first (groups in order of their lowest item)."""
    sums = _mask_sums(values)
    zero = sum(1 << i for i, value in enumerate(values) if value == 0)
    groups = [m for m in range(1, len(sums)) if sums[m] == target and not m & zero]
    found: dict[int, tuple[int, ...]] = {0: ()}
    for group in groups:
        for taken, parts in list(found.items()):
            if not taken & group:
                found.setdefault(taken | group, (*parts, group))
    return tuple(
        tuple(sorted((_members(g) for g in parts), key=lambda g: g[0]))
        for taken, parts in sorted(found.items())
        if taken
    )


@lru_cache(maxsize=65536)
def build_sets(values: tuple[int, ...], target: int) -> tuple[tuple[int, ...], ...]:
    """Every non-empty set of items (no J, Q, K) whose values sum to ``target`` (F5)."""
    if target <= 0:
        return ()
    sums = _mask_sums(values)
    zero = sum(1 << i for i, value in enumerate(values) if value == 0)
    return tuple(_members(m) for m in range(1, len(sums)) if sums[m] == target and not m & zero)


def court_captures(card: Card, table: Sequence[Item]) -> list[tuple[tuple[int, ...], ...]]:
    """F4: one card of the rank, or all three when three lie on the table."""
    matching = [index for index, item in enumerate(table) if item.court_rank == card.rank]
    options: list[tuple[tuple[int, ...], ...]] = [((index,),) for index in matching]
    if len(matching) == 3:
        options.append(tuple((index,) for index in matching))
    return options


def table_values(table: Sequence[Item]) -> tuple[int, ...]:
    """Values for sums: 0 marks a J, Q or K, which no sum may hold (F2)."""
    return tuple(item.value for item in table)


def own_builds(table: Sequence[Item], player: int) -> frozenset[int]:
    return frozenset(i for i, item in enumerate(table) if item.is_build and item.owner == player)


def kept_values(hand: Sequence[Card], card: Card, rules: FishingRules) -> set[int]:
    """Values a build made with ``card`` may take: those of the other hand cards (F5)."""
    rest = list(hand)
    rest.remove(card)
    return {card_value(c, rules) for c in rest if not is_court(c) and card_value(c, rules) > 0}


def capture_plays(card: Card, table: Sequence[Item], rules: FishingRules) -> Iterator[Play]:
    """Every capture of one hand card, each taken set once (F3, F4, F6)."""
    if is_broom(card):
        yield Play(card, Action.BROOM)
    elif is_court(card):
        for groups in court_captures(card, table):
            yield Play(card, Action.CAPTURE, groups)
    else:
        for groups in capture_sets(table_values(table), card_value(card, rules)):
            yield Play(card, Action.CAPTURE, groups)


def build_plays(
    card: Card, hand: Sequence[Card], table: Sequence[Item], rules: FishingRules
) -> Iterator[Play]:
    """Every build of one hand card toward a value kept in hand (F5)."""
    if is_broom(card) or is_court(card):
        return
    value = card_value(card, rules)
    values = table_values(table)
    for target in sorted(kept_values(hand, card, rules)):
        for items in build_sets(values, target - value):
            yield Play(card, Action.BUILD, items=items, value=target)


def legal_plays(
    hand: Sequence[Card], table: Sequence[Item], player: int, rules: FishingRules
) -> list[Play]:
    """Every legal play: captures and builds, or trails when there is neither (F3-F7).

    While the player owns a build, only plays that capture it are legal (F5)."""
    owned = own_builds(table, player)
    plays: list[Play] = []
    for card in hand:
        for play in capture_plays(card, table, rules):
            if play.action is Action.BROOM or owned <= play.taken:
                plays.append(play)
        if not owned:
            plays.extend(build_plays(card, hand, table, rules))
    if plays or owned:
        return plays
    return [Play(card, Action.TRAIL) for card in hand if not is_broom(card)]


def first_non_trail(
    hand: Sequence[Card], table: Sequence[Item], player: int, rules: FishingRules
) -> Play | None:
    """A capture or build the hand can make, if any: what forbids a trail (F7)."""
    for card in hand:
        for play in capture_plays(card, table, rules):
            return play
        for play in build_plays(card, hand, table, rules):
            return play
    return None
