"""Exhaustive reference for the fishing games (F2-F7): every play of every hand card.

It shares no code with ``solver.fishing``: positions are plain codes, values and points come
from SPEC F2 and F9 written out again here, and every capture is found by trying every
subset of the table and every way to split it into groups (not the solver's mask closure,
not CP-SAT). ``best_keys`` is the ranking the CP-SAT SolvePlay must reproduce.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

SPECIAL_VALUE = {"JK20": 20, "JK15": 15, "JK11": 11}
SPECIAL_POINTS = {"JK20": 10, "JK15": 5, "JK11": 3}
COURTS = ("J", "Q", "K")


@dataclass(frozen=True)
class BItem:
    """A table item: its card codes, and for a build its owner (-1 for a single card)."""

    cards: tuple[str, ...]
    owner: int = -1


@dataclass(frozen=True)
class BPlay:
    """``kind`` is capture, build, trail or broom; ``taken`` the captured table indices;
    ``items``/``value`` a build's items and value."""

    card: str
    kind: str
    taken: frozenset[int] = frozenset()
    items: frozenset[int] = frozenset()
    value: int = 0


def rank(code: str) -> str:
    return code[:-1]


def value(code: str) -> int:
    """F2: A = 1, 2-10 face value, numbered jokers 11/15/20; J Q K and the broom: none."""
    if code in SPECIAL_VALUE:
        return SPECIAL_VALUE[code]
    if code == "BROOM" or rank(code) in COURTS:
        return 0
    return 1 if rank(code) == "A" else int(rank(code))


def points(code: str, prize_suit: str) -> int:
    """F9's per-card points."""
    if code in SPECIAL_POINTS:
        return SPECIAL_POINTS[code]
    if code == "10D" or code == f"2{prize_suit}":
        return 2
    return 1 if code.startswith("A") else 0


def item_value(item: BItem) -> int:
    return sum(value(code) for code in item.cards)


def is_court_item(item: BItem) -> bool:
    return len(item.cards) == 1 and rank(item.cards[0]) in COURTS


def splits_into(indices: Sequence[int], table: Sequence[BItem], target: int) -> bool:
    """Can these items be split into groups each worth ``target``? (tries every group that
    holds the first item, then the rest recursively)."""
    if not indices:
        return True
    first, rest = indices[0], list(indices[1:])
    for size in range(len(rest) + 1):
        for others in combinations(rest, size):
            group = (first, *others)
            if sum(item_value(table[i]) for i in group) == target:
                remaining = [i for i in rest if i not in others]
                if splits_into(remaining, table, target):
                    return True
    return False


def grouping(
    indices: Sequence[int], table: Sequence[BItem], target: int
) -> list[tuple[int, ...]] | None:
    """One way to split these items into groups each worth ``target``, or None."""
    if not indices:
        return []
    first, rest = indices[0], list(indices[1:])
    for size in range(len(rest) + 1):
        for others in combinations(rest, size):
            group = (first, *others)
            if sum(item_value(table[i]) for i in group) == target:
                remaining = grouping([i for i in rest if i not in others], table, target)
                if remaining is not None:
                    return [group, *remaining]
    return None


def subsets(indices: Sequence[int]) -> Iterator[tuple[int, ...]]:
    for size in range(1, len(indices) + 1):
        yield from combinations(indices, size)


def candidate_plays(table: Sequence[BItem], hand: Sequence[str]) -> Iterator[BPlay]:
    """Every capture, build and broom of every hand card, before the own-build rule."""
    numbered = [i for i, item in enumerate(table) if not is_court_item(item)]
    for card in hand:
        if card == "BROOM":
            yield BPlay(card, "broom", frozenset(range(len(table))))
        elif rank(card) in COURTS:
            same = [
                i
                for i, item in enumerate(table)
                if item.cards == (item.cards[0],)
                and is_court_item(item)
                and rank(item.cards[0]) == rank(card)
            ]
            for index in same:
                yield BPlay(card, "capture", frozenset([index]))
            if len(same) == 3:
                yield BPlay(card, "capture", frozenset(same))
        else:
            for chosen in subsets(numbered):
                if splits_into(chosen, table, value(card)):
                    yield BPlay(card, "capture", frozenset(chosen))
            others = list(hand)
            others.remove(card)
            kept = {value(c) for c in others if value(c) > 0}
            for chosen in subsets(numbered):
                total = value(card) + sum(item_value(table[i]) for i in chosen)
                if total in kept:
                    yield BPlay(card, "build", items=frozenset(chosen), value=total)


def legal_plays(table: Sequence[BItem], hand: Sequence[str], player: int) -> list[BPlay]:
    """F5's obligation, then F7: a trail only when nothing else is possible."""
    own = frozenset(
        i for i, item in enumerate(table) if len(item.cards) > 1 and item.owner == player
    )
    plays = [
        play
        for play in candidate_plays(table, hand)
        if not own or play.kind == "broom" or (play.kind == "capture" and own <= play.taken)
    ]
    if plays or own:
        return plays
    return [BPlay(card, "trail") for card in hand if card != "BROOM"]


def key(play: BPlay, table: Sequence[BItem], prize_suit: str) -> tuple[int, int, int]:
    """SPEC §4: deal points secured, cards captured, prize-suit cards captured."""
    if play.kind not in ("capture", "broom"):
        return (0, 0, 0)
    cards = [play.card, *(c for i in play.taken for c in table[i].cards)]
    return (
        sum(points(c, prize_suit) for c in cards),
        len(cards),
        sum(1 for c in cards if c != "BROOM" and c[-1] == prize_suit and c not in SPECIAL_VALUE),
    )


def best_keys(
    table: Sequence[BItem], hand: Sequence[str], player: int, prize_suit: str
) -> list[tuple[int, int, int]]:
    """Every legal play's key, best first."""
    return sorted(
        (key(p, table, prize_suit) for p in legal_plays(table, hand, player)), reverse=True
    )
