"""ValidatePlay's nearest legal play to an illegal proposal (issue #53).

The keys are ``closeness.Closeness``'s, compared in order. Captures by sums come from
SolvePlay's CP-SAT capture model (``model.capture_rules``) with a closeness objective: each
key is one linear term, weighted so that one unit of a key outweighs every count of the keys
after it (mixed radix over each term's exact range, so the order is exact, never blurred).
The plays the model leaves out (the broom, J/Q/K captures, builds, trails) are few and are
scored directly, as SolvePlay lists them. The best of both is re-checked by the referee
before it is returned; a disagreement is a ``RuntimeError``, never an answer.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from ortools.sat.python import cp_model

from solver.core import cancel
from solver.core.cards import format_cards
from solver.fishing.closeness import (
    Closeness,
    Proposal,
    closeness,
    kept_groups,
    read_proposal,
    same_way,
    touched,
)
from solver.fishing.items import Item, is_broom
from solver.fishing.model import (
    CaptureData,
    CaptureModel,
    capture_data,
    capture_rules,
    has_choice,
    play_value,
    play_weight,
)
from solver.fishing.plays import (
    Action,
    Play,
    first_non_trail,
    own_builds,
)
from solver.fishing.position import Position
from solver.fishing.referee import judge
from solver.fishing.search import SolvedPlay, direct_plays, rank_key, solve_once

DEFAULT_TIME_LIMIT_MS = 10_000


@dataclass(frozen=True)
class SuggestedPlay:
    """The nearest legal play, its keys, and which of the proposal's groups it keeps."""

    solved: SolvedPlay
    closeness: Closeness
    kept: tuple[int, ...]  # indices of the proposal's capture groups (a build: 0) kept
    proposed_items: tuple[int, ...]  # the proposal's table items it still takes that way
    extra_items: tuple[int, ...]  # the other table items it takes or builds on


@dataclass(frozen=True)
class Suggestion:
    """The answer: a play, or none with a sentence saying why; ``optimal`` when proved."""

    play: SuggestedPlay | None
    note: str
    optimal: bool


def suggest_play(
    position: Position, proposal_play: Play, time_limit_ms: int = DEFAULT_TIME_LIMIT_MS
) -> Suggestion:
    """The legal play nearest ``proposal_play`` (which the referee found illegal)."""
    deadline = time.monotonic() + max(time_limit_ms, 1) / 1000.0
    proposal = read_proposal(proposal_play, len(position.table))
    candidates = [_scored(position, proposal, play) for play in _direct_plays(position)]
    found, optimal = _nearest_sum_capture(position, proposal, deadline)
    if found is not None:
        candidates.append(_scored(position, proposal, found))
    if not candidates:
        return Suggestion(None, _none_note(position), optimal)
    best = min(candidates, key=lambda c: (tuple(-k for k in c[1].key), rank_key(c[0])))
    suggested = _suggested(position, proposal, *best)
    return Suggestion(suggested, _found_note(position, proposal, suggested), optimal)


def _scored(position: Position, proposal: Proposal, play: Play) -> tuple[SolvedPlay, Closeness]:
    cancel.check()  # a big table can list thousands of builds: a caller gone stops here
    verdict = judge(position, play)
    if verdict.outcome is None:
        raise RuntimeError(f"the suggestion search proposed an illegal play {play.text}")
    solved = SolvedPlay(play, verdict.outcome)
    return solved, closeness(proposal, play, verdict.outcome, position)


def _suggested(
    position: Position, proposal: Proposal, solved: SolvedPlay, keys: Closeness
) -> SuggestedPlay:
    play = solved.play
    items = touched(play, len(position.table))
    proposed = tuple(sorted(items & proposal.items)) if same_way(proposal, play) else ()
    extra = tuple(sorted(items - set(proposed)))
    return SuggestedPlay(solved, keys, kept_groups(proposal, play), proposed, extra)


# --- the plays outside the model ------------------------------------------------------------


def _direct_plays(position: Position) -> list[Play]:
    """SolvePlay's plays outside the model (the broom, J/Q/K captures, builds), and trails
    when nothing at all can capture or build (F7)."""
    table, rules, hand = position.table, position.rules, position.hand
    plays = direct_plays(position)
    owned = own_builds(table, position.player)
    if not owned and not plays and first_non_trail(hand, table, position.player, rules) is None:
        plays = [Play(card, Action.TRAIL) for card in hand if not is_broom(card)]
    return plays


# --- the captures by sums: the capture model with a closeness objective ---------------------


@dataclass(frozen=True)
class _Term:
    """One key as a linear expression with its exact range, most significant first."""

    expr: cp_model.LinearExprT
    low: int
    high: int


def _nearest_sum_capture(
    position: Position, proposal: Proposal, deadline: float
) -> tuple[Play | None, bool]:
    """The sum capture nearest the proposal, and whether the search proved it."""
    table = position.table
    data = capture_data(position.hand, table, own_builds(table, position.player), position.rules)
    if not data.cards or not has_choice(data, table):
        return None, True
    built = capture_rules(data, table)
    kept = _keep_vars(built, proposal, table)
    built.model.maximize(_lexicographic(_terms(built, data, proposal, kept, position)))
    status, capture = solve_once(built, data, deadline)
    if capture is None:
        return None, status == cp_model.INFEASIBLE
    play = Play(capture.card, Action.CAPTURE, capture.groups)
    return play, status == cp_model.OPTIMAL


def _keep_vars(
    built: CaptureModel, proposal: Proposal, table: Sequence[Item]
) -> list[cp_model.IntVar]:
    """``keep[g]``: proposed group ``g`` is one group of the capture, in one slot of the value
    it sums to. A slot's items sum exactly to its value, so holding the group's items is
    holding nothing else. Proposed groups are distinct sets (``read_proposal``): two kept
    groups never share a slot."""
    model = built.model
    keeps: list[cp_model.IntVar] = []
    for g, group in enumerate(proposal.groups):
        if group is None:
            continue
        worth = sum(table[index].value for index in group)
        placements = []
        for (value, slot), used in built.group_used.items():
            if value != worth:
                continue  # a slot of another value would hold more than the group, or less
            members = [built.in_group.get((value, index, slot)) for index in sorted(group)]
            if any(member is None for member in members):
                continue
            placed = model.new_bool_var(f"keep[{g},{value},{slot}]")
            for member in members:
                assert member is not None
                model.add_implication(placed, member)
            model.add_implication(placed, used)
            placements.append(placed)
        if placements:
            keep = model.new_bool_var(f"keep[{g}]")
            model.add(sum(placements) == keep)
            keeps.append(keep)
    return keeps


def _terms(
    built: CaptureModel,
    data: CaptureData,
    proposal: Proposal,
    keeps: list[cp_model.IntVar],
    position: Position,
) -> list[_Term]:
    """Closeness's keys for a capture by sums, in order (``closeness`` module)."""
    card = proposal.play.card
    same_card: cp_model.LinearExprT = built.choose.get(card, 0)
    meant = proposal.items if proposal.captures else frozenset()
    proposed = [var for index, var in built.taken.items() if index in meant]
    extra = [var for index, var in built.taken.items() if index not in meant]
    rules = position.rules
    most = play_weight(data.cards, rules) + sum(
        play_weight(position.table[index].cards, rules) for index in built.taken
    )
    return [
        _Term(same_card, 0, 1),
        _Term(sum(keeps), 0, len(keeps)),
        _Term(sum(proposed), 0, len(proposed)),
        _Term(-sum(extra), -len(extra), 0),
        # same_action and same_value are constants for every capture: no term
        _Term(play_value(built, position.table, rules), 0, most),
    ]


def _lexicographic(terms: list[_Term]) -> cp_model.LinearExpr:
    """One objective that orders solutions as the terms' tuple does (mixed radix)."""
    weights: list[int] = []
    weight = 1
    for term in reversed(terms):
        weights.insert(0, weight)
        weight *= term.high - term.low + 1
    return cp_model.LinearExpr.weighted_sum([term.expr for term in terms], weights)


# --- the notes ------------------------------------------------------------------------------


def _none_note(position: Position) -> str:
    return (
        "No suggestion: no legal play exists in this position (the player's own builds "
        "cannot all be captured by one card, F5)."
        if own_builds(position.table, position.player)
        else "No suggestion: no legal play exists in this position."
    )


def _found_note(position: Position, proposal: Proposal, suggested: SuggestedPlay) -> str:
    """``Nearest legal play with 7S: keeps 1 of the 2 proposed groups, still captures 3 of
    the 3 proposed table items, takes 1 other table item.``"""
    card = proposal.play.card
    play = suggested.solved.play
    nearest = f"nearest legal play with {play.card.code}"
    if card not in position.hand:
        head = f"{card.code} is not in the hand ({format_cards(position.hand)}); {nearest}"
    elif not suggested.closeness.same_card:
        head = f"No legal play uses {card.code}; {nearest}"
    else:
        head = "N" + nearest[1:]
    parts: list[str] = []
    if proposal.play.action is Action.CAPTURE and proposal.play.groups:
        total = _count(len(proposal.play.groups), "proposed group")
        parts.append(f"keeps {len(suggested.kept)} of the {total}")
    elif proposal.builds:
        parts.append("keeps the proposed build" if suggested.kept else "changes the proposed build")
    if proposal.items:
        way = "captures" if proposal.captures else "builds on"
        meant = _count(len(proposal.items), "proposed table item")
        parts.append(f"still {way} {len(suggested.proposed_items)} of the {meant}")
    extra = len(suggested.extra_items)
    verb = "builds on" if play.action is Action.BUILD else "takes"
    if play.action is not Action.TRAIL:
        parts.append(f"{verb} {_count(extra, 'other table item') if extra else 'no other'}")
    return f"{head}: {', '.join(parts)}." if parts else f"{head}: {play.text}."


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
