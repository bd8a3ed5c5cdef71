"""Plays, what they do, and every legal play of a position, listed directly (F3-F7).

A play is a hand card and one action. Captures are listed as *taken sets*: two groupings of
the same items taken by the same card are one play (the groups are only the proof that the
taken items split into sums of the card's value), shown with one canonical grouping.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from solver.core import cancel
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
    card: Card,
    taken: Sequence[int] | range,
    table: Sequence[Item],
    kept: tuple[Item, ...],
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


CHECK_EVERY_STEPS = 4096
"""Enumeration steps between two looks at the caller's cancellation and the time box."""

MAX_CAPTURE_SETS = 20_000
"""The most sets one card's capture listing may hold (F3); past it the listing stops with
``ListingStopped``. Only the deal-end search lists every capture (SolvePlay and the
suggestion search ask CP-SAT for theirs): a node with more plays could not be searched in
any time limit, and the sets would hold memory without bound (30 low cards and a 20 to take
make millions). Tables of up to 14 items never reach it (2^14 subsets, most not sets)."""


class ListingStopped(Exception):
    """A listing of plays stopped before its end: its time box passed, or it grew past
    ``MAX_CAPTURE_SETS``. Whoever set the time box answers without it."""


_time_box: ContextVar[float] = ContextVar("fishing_listing_deadline", default=math.inf)


@contextmanager
def time_box(deadline: float) -> Iterator[None]:
    """Within the block, listings running past ``deadline`` (``time.monotonic``) raise
    ``ListingStopped``: a search's own time limit reaches into one long listing."""
    reset = _time_box.set(deadline)
    try:
        yield
    finally:
        _time_box.reset(reset)


def _keep_going() -> None:
    cancel.check()  # the caller gave up: its deadline passed or it cancelled
    if time.monotonic() > _time_box.get():
        raise ListingStopped("the listing ran out of its time box")


def sum_masks(values: tuple[int, ...], target: int) -> Iterator[int]:
    """Every set of items with no J, Q, K (value 0) whose values sum to ``target``, as a bit
    mask, in increasing order of the mask.

    Depth first from the highest index, an item left out before it is taken in, so the masks
    come in increasing order. Values are positive, so a branch ends as soon as its sum passes
    the target or the lower items left cannot reach it: the work grows with the partial sums
    up to the target, not with 2^n (a 40-item table is as easy as a 10-item one for a small
    target). A cancelled caller stops it (``solver.core.cancel``), and so does the time box."""
    if target <= 0:
        return
    order = [index for index in range(len(values) - 1, -1, -1) if values[index] > 0]
    reach = [0] * (len(order) + 1)  # reach[k]: the sum of order[k:], what is left to take
    for k in range(len(order) - 1, -1, -1):
        reach[k] = reach[k + 1] + values[order[k]]
    stack = [(0, 0, 0)]  # (next position in order, mask so far, its sum)
    steps = 0
    while stack:
        k, mask, total = stack.pop()
        steps += 1
        if not steps % CHECK_EVERY_STEPS:
            _keep_going()
        if total == target:
            yield mask
            continue
        if total + reach[k] < target:
            continue  # also ends k == len(order): reach is 0 there and total < target
        index = order[k]
        if total + values[index] <= target:
            stack.append((k + 1, mask | 1 << index, total + values[index]))
        stack.append((k + 1, mask, total))  # popped first: leaving the item out is smaller


def _members(mask: int) -> tuple[int, ...]:
    return tuple(index for index in range(mask.bit_length()) if mask >> index & 1)


@lru_cache(maxsize=65536)
def capture_sets(values: tuple[int, ...], target: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Every set of table items a card of value ``target`` can take (F3), as its groups.

    ``values`` are the items' values, 0 for a J, Q or K (never in a sum, F2). Each set comes
    once, with the grouping found first (groups in order of their lowest item).

    The groups are combined in increasing mask order, each onto every set found before it
    that it does not touch. The taken sets can themselves be exponential (30 low cards and a
    20 to take make millions), so the listing looks at the caller's cancellation and the
    time box after each group, and stops past ``MAX_CAPTURE_SETS``: one group's pass is then
    at most that many steps. (A depth-first search over groupings lists the same sets but
    meets each set once per grouping: slower on tables of low cards, the common case.)"""
    found: dict[int, tuple[int, ...]] = {0: ()}
    for group in sum_masks(values, target):
        _keep_going()
        for taken, parts in list(found.items()):
            if not taken & group:
                found.setdefault(taken | group, (*parts, group))
        if len(found) > MAX_CAPTURE_SETS + 1:  # the empty set is not a capture
            raise ListingStopped(f"more than {MAX_CAPTURE_SETS} sets to take")
    return tuple(
        tuple(sorted((_members(g) for g in parts), key=lambda g: g[0]))
        for taken, parts in sorted(found.items())
        if taken
    )


def first_capture_group(values: tuple[int, ...], target: int) -> tuple[int, ...] | None:
    """``capture_sets(values, target)[0]``'s one group, without listing the others: the set
    with the lowest mask is the lowest group alone (a union of two groups sums to more)."""
    mask = next(sum_masks(values, target), None)
    return None if mask is None else _members(mask)


@lru_cache(maxsize=65536)
def build_sets(values: tuple[int, ...], target: int) -> tuple[tuple[int, ...], ...]:
    """Every non-empty set of items (no J, Q, K) whose values sum to ``target`` (F5)."""
    return tuple(_members(mask) for mask in sum_masks(values, target))


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
    """A capture or build the hand can make, if any: what forbids a trail (F7).

    The first play ``legal_plays`` would list for the first card that has one, found without
    listing the rest (on a big table the captures alone can number millions)."""
    values = table_values(table)
    for card in hand:
        if is_broom(card):
            return Play(card, Action.BROOM)
        if is_court(card):
            options = court_captures(card, table)
            if options:
                return Play(card, Action.CAPTURE, options[0])
            continue  # J, Q and K never build (F5)
        value = card_value(card, rules)
        group = first_capture_group(values, value)
        if group is not None:
            return Play(card, Action.CAPTURE, (group,))
        for target in sorted(kept_values(hand, card, rules)):
            mask = next(sum_masks(values, target - value), None)
            if mask is not None:
                return Play(card, Action.BUILD, items=_members(mask), value=target)
    return None
