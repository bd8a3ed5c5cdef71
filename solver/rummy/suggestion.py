"""What a suggestion is in every rummy family (issue #53): the legal move nearest a proposal
and which of the proposal's melds it keeps, or none and why."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

S = TypeVar("S")  # the family's solved move: the move with its effects
K = TypeVar("K", bound=Hashable)  # the family's key of a meld kept exactly


@dataclass(frozen=True)
class SuggestedMove(Generic[S]):
    """A legal move nearest the proposal, and which of the proposal's melds it keeps."""

    solved: S
    kept: tuple[int, ...]  # indices into the proposal's table of the melds kept exactly
    kept_here: tuple[bool, ...]  # per meld of the suggested table: one of those
    same_cards: bool  # it plays exactly the proposal's hand cards (key 1 met in full)


@dataclass(frozen=True)
class Suggestion(Generic[S]):
    """The answer: a move, or none with a sentence saying why; ``optimal`` when proved."""

    move: SuggestedMove[S] | None
    note: str
    optimal: bool


def kept_by_key(
    proposed: Sequence[K], table: Sequence[K]
) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """Key 2 read off a table, from the melds' keys: the indices of the proposal's melds that
    ``table`` holds exactly, and per meld of ``table`` whether it is one of them (each table
    meld matched once, the first free one with that key)."""
    left: dict[K, list[int]] = {}
    for index, key in enumerate(table):
        left.setdefault(key, []).append(index)
    kept: list[int] = []
    marks = [False] * len(table)
    for index, key in enumerate(proposed):
        places = left.get(key)
        if places:
            marks[places.pop(0)] = True
            kept.append(index)
    return tuple(kept), tuple(marks)
