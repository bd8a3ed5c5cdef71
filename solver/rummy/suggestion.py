"""What a suggestion is in every rummy family (issue #53): the legal move nearest a proposal
and which of the proposal's melds it keeps, or none and why."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

S = TypeVar("S")  # the family's solved move: the move with its effects


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
