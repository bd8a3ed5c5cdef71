"""SolvePlay (Part 1): the best plays of a position, best first (SPEC §4).

Captures by sums come from the CP-SAT model (``model``), one solve per play wanted, each
excluding the captures already found; J/Q/K captures and the broom, which leave no choice
of groups, are listed directly. Captures rank by deal points secured, then cards, then
prize-suit cards; builds (nothing captured yet) follow, and trails come only when nothing
else is legal (F7). Every play returned is re-checked by the referee.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ortools.sat.python import cp_model

from solver.core import cancel
from solver.core.cards import sort_key
from solver.fishing.items import is_broom, is_court
from solver.fishing.model import (
    CaptureData,
    CaptureModel,
    FoundCapture,
    build_model,
    capture_data,
    exclude,
    has_choice,
    read_capture,
)
from solver.fishing.plays import (
    Action,
    Outcome,
    Play,
    build_plays,
    capture_plays,
    first_non_trail,
    own_builds,
)
from solver.fishing.position import Position
from solver.fishing.referee import judge

DEFAULT_TIME_LIMIT_MS = 10_000
SOLVER_SEED = 0

CAPTURE_SEARCH_SHARE = 0.5
"""The share of the time limit the CP-SAT capture search may use. The rest is for the work
after it: on a table of 30 items the referee's re-check of three plays takes about 150 ms of
CPU, several times that on a busy machine, so a search cut by the call's deadline still
answers (not optimal) instead of missing it. A search that needs more than half the limit
is on a table so big that it would not be proved within the whole limit either."""


@dataclass(frozen=True, slots=True)
class SolvedPlay:
    play: Play
    outcome: Outcome


@dataclass(frozen=True)
class SolveResult:
    plays: tuple[SolvedPlay, ...]
    optimal: bool
    solves: int


def rank_key(solved: SolvedPlay) -> tuple[object, ...]:
    """Best first: captures by SPEC §4's key, then builds by what they gather, then trails;
    equal plays in card order, then by the items they take (deterministic)."""
    play, effect = solved.play, solved.outcome
    kind = {Action.TRAIL: 2, Action.BUILD: 1}.get(play.action, 0)
    gathered = len(play.items)
    return (
        kind,
        *(-k for k in effect.key),
        -gathered,
        sort_key(play.card),
        sorted(play.taken),
        play.items,
        play.value,
    )


def solve_plays(position: Position, max_plays: int, time_limit_ms: int) -> SolveResult:
    """Up to ``max_plays`` distinct legal plays, best first; ``optimal`` when proved."""
    wanted = max(1, max_plays)
    deadline = time.monotonic() + CAPTURE_SEARCH_SHARE * max(time_limit_ms, 1) / 1000.0
    direct = direct_plays(position)
    found, optimal, solves = _sum_captures(position, wanted, deadline)
    plays = [*direct, *found]
    if not plays and not own_builds(position.table, position.player):
        plays = _when_nothing_found(position)
    solved = sorted((_checked(position, play) for play in plays), key=rank_key)
    return SolveResult(tuple(solved[:wanted]), optimal, solves)


def _when_nothing_found(position: Position) -> list[Play]:
    """Trails when the hand can neither capture nor build (F7). Otherwise the search ran out
    of time before its first capture: the first capture found directly, unranked (the answer
    is already not optimal). Listing every capture instead, as ``legal_plays`` does, can take
    millions of sets on a big table."""
    hand, table = position.hand, position.table
    first = first_non_trail(hand, table, position.player, position.rules)
    if first is not None:
        return [first]
    return [Play(card, Action.TRAIL) for card in hand if not is_broom(card)]


def _checked(position: Position, play: Play) -> SolvedPlay:
    cancel.check()  # a big table can list thousands of builds: a caller gone stops here
    verdict = judge(position, play)
    if verdict.outcome is None:
        raise RuntimeError(f"the solver proposed an illegal play {play.text}: {verdict}")
    return SolvedPlay(play, verdict.outcome)


def direct_plays(position: Position) -> list[Play]:
    """The broom, J/Q/K captures and builds: no choice of groups to optimise (F4-F6)."""
    table, rules = position.table, position.rules
    owned = own_builds(table, position.player)
    plays: list[Play] = []
    for card in position.hand:
        if is_broom(card) or is_court(card):
            plays.extend(
                play
                for play in capture_plays(card, table, rules)
                if play.action is Action.BROOM or owned <= play.taken
            )
        if not owned:
            plays.extend(build_plays(card, position.hand, table, rules))
    return plays


def _sum_captures(position: Position, wanted: int, deadline: float) -> tuple[list[Play], bool, int]:
    """The best ``wanted`` captures by sums: solve, exclude the capture found, solve again."""
    table = position.table
    data = capture_data(position.hand, table, own_builds(table, position.player), position.rules)
    if not data.cards or not has_choice(data, table):
        return [], True, 0
    built = build_model(data, table, position.rules)
    found: list[Play] = []
    optimal = True
    solves = 0
    while len(found) < wanted:
        status, capture = solve_once(built, data, deadline)
        solves += 1
        if status == cp_model.INFEASIBLE:
            break
        if capture is None:
            optimal = False  # out of time before any capture was found or proved absent
            break
        if status != cp_model.OPTIMAL:
            optimal = False
        found.append(Play(capture.card, Action.CAPTURE, capture.groups))
        exclude(built, capture.card, capture.taken)
    return found, optimal, solves


def solve_once(
    built: CaptureModel, data: CaptureData, deadline: float
) -> tuple[object, FoundCapture | None]:
    """One CP-SAT solve within what is left of the time limit (fixed seed, one worker)."""
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(deadline - time.monotonic(), 0.001)
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = SOLVER_SEED
    # The model is a few dozen Booleans: presolve, LP relaxation, symmetry detection and
    # probing cost more than the search itself (5 ms against 1.3 ms on a full table).
    solver.parameters.cp_model_presolve = False
    solver.parameters.linearization_level = 0
    solver.parameters.symmetry_level = 0
    solver.parameters.cp_model_probing_level = 0
    cancel.watch(solver)  # a caller that gives up stops this solve (solver/core/cancel.py)
    status = solver.solve(built.model)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return status, read_capture(built, solver, data)
    return status, None
