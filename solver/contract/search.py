"""SolveMove for carioca: the best turns by CP-SAT, best first, each re-checked by the referee.

Best means fewest penalty points left in the hand after the play and the discard (C7), then
fewest jokers spent, then fewest table melds changed (OBJECTIVE_MOST_CARDS puts the cards
laid first). Going out leaves 0 points, so it is chosen whenever it is possible. More moves
come from solving again with each found move excluded, so the list stays best first.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, replace

from ortools.sat.python import cp_model

from solver.contract import model as turn_model
from solver.contract.referee import ContractVerdict, validate_contract_move
from solver.core import cancel
from solver.core.cards import Card, sort_key
from solver.rummy.position import Move, Position

SEED = 0  # a fixed random seed with one worker: the same request, the same answer (SPEC §5)
WORKERS = 1
MIN_SOLVE_SECONDS = 0.001


class ContractSolverError(RuntimeError):
    """The model produced a move the referee rejects: a bug, never a client's mistake."""


@dataclass(frozen=True)
class ContractSolvedMove:
    """One legal turn with its verdict (effects) and the table melds it changes."""

    move: Move
    verdict: ContractVerdict
    changed_melds: tuple[int, ...]  # indices of the position's melds that the move grows
    melds_before: int  # the position's melds; the move's melds past them are new

    @property
    def melds_changed(self) -> int:
        """How many melds of the table before the play the move changes (new ones aside)."""
        return len(self.changed_melds)

    @property
    def changed(self) -> tuple[bool, ...]:
        """Per meld of the move's table: grown or new."""
        return tuple(
            i in self.changed_melds or i >= self.melds_before for i in range(len(self.move.table))
        )


@dataclass(frozen=True)
class ContractSolveStats:
    """How the answer was found."""

    wall_time_ms: float = 0.0
    status: str = "UNKNOWN"
    objective_value: float = 0.0
    conflicts: int = 0
    branches: int = 0
    solves: int = 0
    time_limited: bool = False


@dataclass(frozen=True)
class ContractSolveResult:
    """Up to ``max_moves`` legal turns, best first, and whether the first is proved best."""

    moves: tuple[ContractSolvedMove, ...]
    optimal: bool
    stats: ContractSolveStats


def turn_data(
    position: Position, discard_required: bool = True, most_cards: bool = False
) -> turn_model.TurnData:
    """The model's data for a parsed carioca position."""
    contract = position.ruleset.contract.for_deal(position.turn.deal_number)
    if contract is None:  # parse_position has refused the deal number already
        raise ValueError(f"no contract for deal {position.turn.deal_number}")
    return turn_model.TurnData(
        ruleset=position.ruleset,
        hand=Counter(position.hand),
        table=position.table,
        readings=tuple(r.reading for r in position.readings),
        opened=position.turn.has_opened,
        contract=contract,
        discard_required=discard_required,
        most_cards=most_cards,
    )


def new_solver(seconds: float) -> cp_model.CpSolver:
    """A deterministic solver for a turn model. A turn's model is small (tens of Booleans)
    and its search takes a few branches: presolve and probing were most of the time (on the
    bench's 12-card positions, mean 2.9 -> 0.9 ms, p99 18 -> 7 ms, same optima)."""
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = WORKERS
    solver.parameters.random_seed = SEED
    solver.parameters.max_time_in_seconds = max(MIN_SOLVE_SECONDS, seconds)
    solver.parameters.cp_model_presolve = False
    solver.parameters.cp_model_probing_level = 0
    # CP-SAT's own SIGINT handler would outlive the solve and kill the server on Ctrl-C.
    solver.parameters.catch_sigint_signal = False
    cancel.watch(solver)  # a caller that gives up stops this solve (solver/core/cancel.py)
    return solver


def solve_contract_move(
    position: Position, max_moves: int = 1, time_limit_ms: int = 1000, most_cards: bool = False
) -> ContractSolveResult:
    """The best ``max_moves`` turns of the position, best first (the hand is after the draw)."""
    started = time.perf_counter()
    deadline = started + time_limit_ms / 1000
    if not position.hand:
        # Nothing to discard: no turn can be completed (C6).
        return ContractSolveResult((), True, ContractSolveStats(status="NO_LEGAL_PLAY"))
    turn = turn_model.build(turn_data(position, most_cards=most_cards))
    moves: list[ContractSolvedMove] = []
    optimal = False
    status_name = "UNKNOWN"
    conflicts = branches = solves = 0
    time_limited = False
    wanted = max(1, max_moves)
    while len(moves) < wanted:
        solver = new_solver(deadline - time.perf_counter())
        status = solver.solve(turn.model)
        solves += 1
        conflicts += solver.num_conflicts
        branches += solver.num_branches
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            time_limited = time_limited or status == cp_model.UNKNOWN
            break
        if not moves:
            optimal = status == cp_model.OPTIMAL
            status_name = solver.status_name(status)
        time_limited = time_limited or status == cp_model.FEASIBLE
        moves.append(checked_move(position, turn, solver))
        if len(moves) < wanted:
            turn_model.exclude(turn, solver)  # the next move must differ from those found
    if not moves:
        # The clock stopped the search before any move: the pass with the costliest discard
        # is always legal (C6), so the answer is never empty for a hand that holds a card.
        moves.append(_pass_with_best_discard(position))
        status_name = "FEASIBLE"
    first = moves[0].verdict if moves else None
    objective = (len(first.played) if most_cards else first.hand_points_after) if first else 0
    stats = ContractSolveStats(
        wall_time_ms=(time.perf_counter() - started) * 1000,
        status=status_name,
        objective_value=float(objective),
        conflicts=conflicts,
        branches=branches,
        solves=solves,
        time_limited=time_limited,
    )
    return ContractSolveResult(tuple(moves), optimal, stats)


def checked_move(
    position: Position, turn: turn_model.TurnModel, solver: cp_model.CpSolver
) -> ContractSolvedMove:
    """The solution as a move, judged by the referee before it may leave the server."""
    move = Move(turn_model.table_after(turn, solver), discard=turn_model.discard_of(turn, solver))
    verdict = validate_contract_move(position, move)
    if not verdict.legal:
        problems = "; ".join(str(v) for v in verdict.violations)
        raise ContractSolverError(f"the model's move is illegal: {problems}")
    # The move as the referee wrote it out, every joker with its value (``JK=8S``): a trio
    # grown with jokers around one natural card stays readable as the next turn's table.
    written = replace(move, table=verdict.table)
    changed = turn_model.changed_melds(turn, solver)
    return ContractSolvedMove(written, verdict, changed, len(position.table))


def _pass_with_best_discard(position: Position) -> ContractSolvedMove:
    """No play, and the discard that leaves the fewest points (the first such card)."""
    costliest = max(position.hand, key=lambda card: (position.ruleset.points(card), sort_key(card)))
    move = Move(position.table, discard=costliest)
    verdict = validate_contract_move(position, move)
    if not verdict.legal:
        raise ContractSolverError(f"a pass is illegal: {verdict.violations}")
    return ContractSolvedMove(replace(move, table=verdict.table), verdict, (), len(position.table))


def fewest_points_left(position: Position, time_limit_ms: int) -> tuple[int, bool]:
    """The fewest points the hand can keep this turn when the discard is a card from outside
    the hand (the unseen stock card, draw.py); with whether that is proved."""
    turn = turn_model.build(turn_data(position, discard_required=False))
    solver = new_solver(time_limit_ms / 1000)
    status = solver.solve(turn.model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return position.ruleset.hand_points(position.hand), False
    return int(solver.value(turn.points_left)), status == cp_model.OPTIMAL


def with_card(position: Position, card: Card) -> Position:
    """The position after taking ``card`` into the hand: the turn's one draw is done."""
    return replace(
        position, hand=(*position.hand, card), turn=replace(position.turn, cards_drawn=1)
    )
