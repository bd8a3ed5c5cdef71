"""How close a legal play is to an illegal proposal (issue #53): the keys, compared in order.

1. ``same_card``: it plays the proposal's hand card;
2. ``kept_groups``: the most of the proposal's capture groups taken exactly as one group
   (the same table items together), or the proposal's build declared as it was (the same
   items, the same value);
3. ``proposed_items``: the most of the proposal's table items still taken the way the
   proposal meant (captured by a capture or the broom, built on by a build);
4. ``extra_items``: the fewest other table items taken or built on;
5. ``same_action``: the proposal's action (capture, build, trail or broom);
6. ``same_value``: a build of the value the proposal declared;
7. ``play_value``: then the best play by SolvePlay's order (deal points, cards, prize suit).

``key`` is higher-is-better in that order. docs/rules.md ("Suggestions") says why.
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.fishing.items import is_court
from solver.fishing.model import play_weight
from solver.fishing.plays import Action, Outcome, Play
from solver.fishing.position import Position


@dataclass(frozen=True)
class Proposal:
    """What an illegal play meant, in the terms the keys compare.

    ``groups`` holds each proposed capture group's items, or None for a group that names an
    item twice or repeats an earlier group (it can never be kept, or is kept once)."""

    play: Play
    captures: bool  # capture or broom: the proposal meant to capture ``items``
    builds: bool  # build: the proposal meant to build on ``items``
    items: frozenset[int]
    groups: tuple[frozenset[int] | None, ...]
    build: tuple[frozenset[int], int] | None  # the declared build: items and value


def read_proposal(play: Play, table_size: int) -> Proposal:
    """The proposal's intent: a broom played by another card still meant to sweep."""
    captures = play.action in (Action.CAPTURE, Action.BROOM)
    builds = play.action is Action.BUILD
    if play.action is Action.BROOM:
        items = frozenset(range(table_size))
    elif builds:
        items = frozenset(play.items)
    else:
        items = play.taken
    groups: list[frozenset[int] | None] = []
    for group in play.groups if play.action is Action.CAPTURE else ():
        as_set = frozenset(group)
        groups.append(as_set if len(as_set) == len(group) and as_set not in groups else None)
    build = None
    if builds and len(set(play.items)) == len(play.items):
        build = (frozenset(play.items), play.value)
    return Proposal(play, captures, builds, items, tuple(groups), build)


@dataclass(frozen=True, order=True)
class Closeness:
    """The keys of one legal play against the proposal; compare with ``key``."""

    same_card: bool
    kept_groups: int
    proposed_items: int
    extra_items: int
    same_action: bool
    same_value: bool
    play_value: int

    @property
    def key(self) -> tuple[int, ...]:
        return (
            int(self.same_card),
            self.kept_groups,
            self.proposed_items,
            -self.extra_items,
            int(self.same_action),
            int(self.same_value),
            self.play_value,
        )


def touched(play: Play, table_size: int) -> frozenset[int]:
    """The table items a play captures or builds on."""
    if play.action is Action.BROOM:
        return frozenset(range(table_size))
    if play.action is Action.BUILD:
        return frozenset(play.items)
    return play.taken


def same_way(proposal: Proposal, play: Play) -> bool:
    """Whether the play takes items the way the proposal meant: capturing or building."""
    if play.action in (Action.CAPTURE, Action.BROOM):
        return proposal.captures
    return play.action is Action.BUILD and proposal.builds


def kept_groups(proposal: Proposal, play: Play) -> tuple[int, ...]:
    """The indices of the proposal's groups the play keeps (a build: index 0, its one
    declaration). A court card's capture takes its cards one by one (F4: never a sum)."""
    if play.action is Action.BUILD:
        declared = (frozenset(play.items), play.value)
        return (0,) if proposal.build == declared else ()
    if play.action is not Action.CAPTURE:
        return ()
    groups = {frozenset(group) for group in play.groups}
    if is_court(play.card):
        groups = {frozenset((index,)) for index in play.taken}
    return tuple(g for g, group in enumerate(proposal.groups) if group in groups)


def closeness(proposal: Proposal, play: Play, effect: Outcome, position: Position) -> Closeness:
    """The keys of a legal play ``play`` with effects ``effect``."""
    items = touched(play, len(position.table))
    proposed = len(items & proposal.items) if same_way(proposal, play) else 0
    value = play_weight(effect.captured, position.rules) if effect.captured else 0
    return Closeness(
        same_card=play.card == proposal.play.card,
        kept_groups=len(kept_groups(proposal, play)),
        proposed_items=proposed,
        extra_items=len(items) - proposed,
        same_action=play.action is proposal.play.action,
        same_value=play.action is Action.BUILD
        and proposal.builds
        and play.value == proposal.play.value,
        play_value=value,
    )
