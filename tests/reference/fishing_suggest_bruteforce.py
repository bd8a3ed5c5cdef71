"""Exhaustive reference for ValidatePlay's suggestion (issue #53): every legal play of a small
position, each with every grouping of what it takes, ranked by the keys of docs/rules.md
("Suggestions"), compared in order:

same card, kept groups (or the build kept), proposed items still taken the way meant, fewest
other items, same action, same build value, then SolvePlay's key (deal points, cards,
prize-suit cards).

It imports nothing of ``solver``: the legal plays are ``fishing_bruteforce``'s (every subset
of the table, every split into groups), and the keys are written out again here.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from tests.reference.fishing_bruteforce import (
    COURTS,
    BItem,
    BPlay,
    item_value,
    key,
    legal_plays,
    rank,
    value,
)

Key = tuple[int, ...]


@dataclass(frozen=True)
class BProposal:
    """A proposed play as a client writes it: ``kind`` capture, build, trail or broom."""

    card: str
    kind: str
    groups: tuple[tuple[int, ...], ...] = ()
    items: tuple[int, ...] = ()
    value: int = 0


def proposal_groups(proposal: BProposal) -> set[frozenset[int]]:
    """The proposed groups that could be kept: those naming no item twice, once each."""
    if proposal.kind != "capture":
        return set()
    return {frozenset(g) for g in proposal.groups if len(set(g)) == len(g)}


def meant_items(proposal: BProposal, table_size: int) -> frozenset[int]:
    if proposal.kind == "broom":
        return frozenset(range(table_size))
    if proposal.kind == "build":
        return frozenset(proposal.items)
    return frozenset(i for g in proposal.groups for i in g)


def all_groupings(
    indices: Sequence[int], table: Sequence[BItem], target: int
) -> Iterator[list[tuple[int, ...]]]:
    """Every way to split these items into groups each worth ``target`` (F3)."""
    if not indices:
        yield []
        return
    first, rest = indices[0], list(indices[1:])
    for size in range(len(rest) + 1):
        for others in combinations(rest, size):
            group = (first, *others)
            if sum(item_value(table[i]) for i in group) == target:
                remaining = [i for i in rest if i not in others]
                for tail in all_groupings(remaining, table, target):
                    yield [group, *tail]


def groupings_of(play: BPlay, table: Sequence[BItem]) -> list[list[tuple[int, ...]]]:
    """The groupings a capture may be written with: a J, Q or K takes single cards (F4)."""
    if play.kind != "capture":
        return [[]]
    if rank(play.card) in COURTS:
        return [[(i,) for i in sorted(play.taken)]]
    return list(all_groupings(sorted(play.taken), table, value(play.card)))


def kept_count(proposal: BProposal, play: BPlay, groups: Sequence[tuple[int, ...]]) -> int:
    """How many of the proposal's groups (or its build) the play, so grouped, keeps."""
    if play.kind == "build":
        declared = (
            proposal.kind == "build"
            and len(set(proposal.items)) == len(proposal.items)
            and frozenset(proposal.items) == play.items
            and proposal.value == play.value
        )
        return int(declared)
    wanted = proposal_groups(proposal)
    return sum(1 for g in {frozenset(g) for g in groups} if g in wanted)


def play_key(
    proposal: BProposal,
    play: BPlay,
    groups: Sequence[tuple[int, ...]],
    table: Sequence[BItem],
    prize_suit: str,
) -> Key:
    """The keys of one legal play written with ``groups``, higher is nearer."""
    size = len(table)
    touched = {"broom": frozenset(range(size)), "build": play.items, "capture": play.taken}.get(
        play.kind, frozenset()
    )
    captures = play.kind in ("capture", "broom")
    same_way = (
        proposal.kind in ("capture", "broom")
        if captures
        else (play.kind == "build" and proposal.kind == "build")
    )
    proposed = len(touched & meant_items(proposal, size)) if same_way else 0
    return (
        int(play.card == proposal.card),
        kept_count(proposal, play, groups),
        proposed,
        -(len(touched) - proposed),
        int(play.kind == proposal.kind),
        int(play.kind == "build" and proposal.kind == "build" and play.value == proposal.value),
        *key(play, table, prize_suit),
    )


def best_of(proposal: BProposal, play: BPlay, table: Sequence[BItem], prize_suit: str) -> Key:
    """The play's keys with its grouping chosen to keep the most proposed groups."""
    return max(
        play_key(proposal, play, groups, table, prize_suit) for groups in groupings_of(play, table)
    )


def nearest_key(
    table: Sequence[BItem], hand: Sequence[str], player: int, prize_suit: str, proposal: BProposal
) -> Key | None:
    """The keys of the nearest legal play, or None when no play is legal."""
    keys = [best_of(proposal, play, table, prize_suit) for play in legal_plays(table, hand, player)]
    return max(keys) if keys else None
