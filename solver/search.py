"""Best moves and knock reachability: the CP-SAT questions of the rearrangement family.

Every move returned here has been re-checked by ``validate_move``; a disagreement is a
``SolverError`` (a loud failure), never a wrong hint.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from itertools import permutations, product

from ortools.sat.python import cp_model

from solver import cancel
from solver.cards import Card, TableCard, WildValue
from solver.melds import MeldClassification, classify
from solver.model import NO_ADD, ModelOptions, TurnModel
from solver.position import Meld, Move, Position
from solver.rebuild import rebuild_move
from solver.rulesets import Ruleset
from solver.turns import PlacedOracle, draw_violations
from solver.validate import Verdict, validate_move

DEFAULT_TIME_LIMIT_MS = 10_000
# Work limits in CP-SAT's deterministic time (load-independent, so the same request gets
# the same answer): 0.03 is about 100 ms of wall time on a 2-core CI machine (bench/).
TIE_BREAK_DTIME = 0.03  # the work of each try of the melds-changed tie-break
# The tie-break's tries from the primary's table, where those afresh found none (lean, whole
# linear relaxation): see _tie_break_from.
FROM_PRIMARY_TRIES: tuple[tuple[bool, bool], ...] = ((True, True), (False, False))
WEIGHTED_DTIME = 0.1  # the most work the one-solve lexicographic search gets
ADD_SHARE = 0.5  # the most of the time R8's largest add may take (_turn_model)
# The primary solve's tries in turn (work limit, lean): see _solve_primary.
PRIMARY_TRIES: tuple[tuple[float | None, bool], ...] = (
    (0.01, True),
    (0.03, False),
    (0.2, True),
    (0.2, False),
    (0.6, True),
    (0.6, False),
    (None, True),
)
# The tries without the 0.6 round, which only R8's largest adds need (shangai, manipulation):
# elsewhere its lean try mostly repeats the first 0.6 units of the last one, and where wilds
# can make a run on their own (mexe-mexe's 2s) its usual try was the slow tail
# (docs/performance.md).
SHORT_TRIES = (*PRIMARY_TRIES[:4], PRIMARY_TRIES[-1])
MAX_MOVES = 20
# Solves per move asked (plus one round): a table can come back as several solutions (a
# meld kept or laid again, two jokers trading places), each a solve that lists nothing, and
# 3 left some lists short while more moves existed (docs/solver.md, measured there).
MOVE_ATTEMPTS = 10
# A move as the player sees it (``_table_key``): the table's melds, the cards taken back.
TableKey = tuple[tuple["MeldKey", ...], tuple[str, ...]]


class Objective(Enum):
    """What "best" means for SolveMove."""

    MOST_CARDS = "most_cards"
    FEWEST_POINTS = "fewest_points"
    GO_OUT = "go_out"


class SolverError(RuntimeError):
    """The solver produced a move the validator rejects: a bug, reported loudly."""


class SearchUndecided(RuntimeError):
    """A search question of the rules was not settled within its time.

    R8's "how many cards can an add place?" answered with the best play found rather than
    the proved most could call a smaller add maximal: an illegal move judged legal. So the
    question is left unanswered, and the caller says so (the service: DEADLINE_EXCEEDED).
    """


@dataclass(frozen=True)
class SolveStats:
    """How the search went (summed over the solves one request needed)."""

    wall_time_ms: float = 0.0
    status: str = "UNKNOWN"
    objective_value: float = 0.0
    conflicts: int = 0
    branches: int = 0
    solves: int = 0
    tie_break_proved: bool = True  # the best move's fewest melds changed is proved, too
    # The time limit (or deadline) stopped a solve before its work limit, or a search
    # before its last try or move: the same request may get another answer (SPEC §5).
    time_limited: bool = False


@dataclass(frozen=True)
class SolvedMove:
    """A legal move with its effects and how many original melds it changes."""

    move: Move
    verdict: Verdict
    cards_played: int
    melds_changed: int
    changed: tuple[bool, ...]  # per meld of move.table: not one of the melds before


@dataclass(frozen=True)
class SolveResult:
    """Up to ``max_moves`` distinct legal moves, best first; ``optimal`` when proved."""

    moves: tuple[SolvedMove, ...]
    optimal: bool
    stats: SolveStats


def default_objective(ruleset: Ruleset) -> Objective:
    """Fewest points where hands score (SPEC §4), else most cards."""
    return Objective.FEWEST_POINTS if ruleset.hands_score else Objective.MOST_CARDS


def play_allowed(position: Position) -> bool:
    """Does the turn state allow a play at all (R8)? The validator's own rule, reused."""
    return not draw_violations(position)


def _options(position: Position, max_new_melds: int | None, add_size: int | None) -> ModelOptions:
    rs = position.ruleset
    turn = position.turn
    opening = bool(rs.opening_points) and not turn.has_opened
    return ModelOptions(
        max_new_melds=None if opening else max_new_melds,
        keep_all=opening,
        opening_points=rs.opening_points if opening else 0,
        groups_may_grow=not (rs.first_meld_sequence and not turn.has_melded_sequence),
        add_size=add_size,
    )


class _Budget:
    def __init__(self, time_limit_ms: int) -> None:
        self.deadline = time.monotonic() + max(time_limit_ms, 1) / 1000.0
        self.optimal = True
        self.conflicts = 0
        self.branches = 0
        self.solves = 0
        self.tie_break_proved: bool | None = None  # set by the first lexicographic solve
        # Work limits keep answers deterministic; the clock does not (SolveStats).
        self.time_limited = False

    def solver(
        self,
        share: float = 1.0,
        work: float | None = None,
        lean: bool = False,
        whole_lp: bool | None = None,
        probing: bool = False,
    ) -> cp_model.CpSolver:
        """A solver bounded by ``share`` of the time left and by ``work`` (deterministic).

        ``lean``: no presolve, no cutting planes and no SAT inprocessing. On models this
        small they cost more than they save in the searches that mostly look for solutions:
        the weighted solve of rummikub, the tie-break, and the primary's first and last tries
        (``_solve_primary``). ``whole_lp`` (by default, where lean): the linear relaxation
        holds every constraint from the start, not only the violated ones. Its bound halves
        rummikub's solves with a joker in the hand, but the tie-break finds tables sooner
        without it (bench/, docs/solver.md). ``probing``: CP-SAT probes its boolean
        variables (level 2) although presolve is off (``_solve_primary``).
        """
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = max(self.deadline - time.monotonic(), 0.001) * share
        if work is not None:
            solver.parameters.max_deterministic_time = work
        solver.parameters.random_seed = 0
        solver.parameters.num_workers = 1  # deterministic: same request, same answer
        # CP-SAT's own SIGINT handler is left at the default action after a solve, so the
        # server's Ctrl-C would kill it instead of stopping it gracefully.
        solver.parameters.catch_sigint_signal = False
        cancel.watch(solver)  # a caller that gives up stops this solve (solver/cancel.py)
        # These models are a few hundred variables: one presolve pass without probing or
        # symmetry detection halves the median solve and bounds the slow tail (bench/).
        solver.parameters.max_presolve_iterations = 1
        solver.parameters.cp_model_probing_level = 2 if probing else 0
        solver.parameters.symmetry_level = 0
        if lean:
            solver.parameters.cp_model_presolve = False
            solver.parameters.cut_level = 0
            solver.parameters.use_sat_inprocessing = False
        if whole_lp is None:
            whole_lp = lean
        if whole_lp:
            solver.parameters.add_lp_constraints_lazily = False
        return solver

    @contextmanager
    def part(self, share: float) -> Iterator[None]:
        """Within the block, the time left ends after ``share`` of it: a question asked
        first must leave time for those that come after it."""
        deadline = self.deadline
        self.deadline = time.monotonic() + max(deadline - time.monotonic(), 0.0) * share
        try:
            yield
        finally:
            self.deadline = deadline

    def settle_tie_break(self, proved: bool) -> None:
        """Whether the best move's tie-break was proved (the first answer's is reported)."""
        if self.tie_break_proved is None:
            self.tie_break_proved = proved

    def record(
        self,
        solver: cp_model.CpSolver,
        status: cp_model.CpSolverStatus,
        primary: bool = True,
        proved: bool | None = None,
    ) -> None:
        """Count a solve; a primary one also says whether it was proved (``proved``
        overrides what the status says)."""
        self.solves += 1
        self.conflicts += int(solver.num_conflicts)
        self.branches += int(solver.num_branches)
        if status in (cp_model.FEASIBLE, cp_model.UNKNOWN) and (
            solver.deterministic_time < solver.parameters.max_deterministic_time
        ):
            # Stopped by neither an answer nor its work: by the clock.
            self.time_limited = True
        if not primary:
            return
        if proved is None:
            proved = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
        if not proved:
            self.optimal = False


def _max_played(position: Position, max_new_melds: int | None, budget: _Budget) -> int:
    tm = TurnModel(position, _options(position, max_new_melds, None))
    tm.model.maximize(tm.played)
    solver, status = _solve_primary(
        tm.model, True, budget, tm.played, probe_last=tm.wild_runs_possible, third_round=True
    )
    budget.record(solver, status)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return int(solver.objective_value)
    return 0


def max_cards_placed(
    position: Position, max_new_melds: int | None, time_limit_ms: int = DEFAULT_TIME_LIMIT_MS
) -> int:
    """The most hand cards any legal play places with at most ``max_new_melds`` new melds.

    0 when no play exists. Used for R8's "an add must be maximal" and "must play if able".
    Raises ``SearchUndecided`` when ``time_limit_ms`` runs out before the most is proved.
    """
    if not position.hand or not play_allowed(position):
        return 0
    budget = _Budget(time_limit_ms)
    most = _max_played(position, max_new_melds, budget)
    if not budget.optimal:
        play = "an add" if max_new_melds == 0 else "a play"
        raise SearchUndecided(
            f"R8's question, how many hand cards {play} can place at most, was not settled "
            f"within {time_limit_ms} ms (at least {most}), so the move cannot be judged"
        )
    return most


def solve_move(
    position: Position,
    objective: Objective | None = None,
    max_moves: int = 1,
    time_limit_ms: int = DEFAULT_TIME_LIMIT_MS,
) -> SolveResult:
    """Up to ``max_moves`` distinct legal moves, best first (SPEC §4 SolveMove)."""
    started = time.monotonic()
    objective = objective or default_objective(position.ruleset)
    max_moves = max(1, min(max_moves, MAX_MOVES))
    budget = _Budget(time_limit_ms)
    if not position.hand or not play_allowed(position):
        return SolveResult((), True, SolveStats(status="NO_PLAY_ALLOWED"))
    tm, oracle = _turn_model(position, budget)
    moves: list[SolvedMove] = []
    seen: set[TableKey] = set()
    objective_value = 0.0
    # `optimal` speaks of the first move (proto: "proved the first move optimal"): further
    # moves that a time limit cuts short do not unsay it.
    first_proved: bool | None = None
    # A proved optimum bounds every later solve, whose model only excludes more tables.
    ceiling: int | None = None
    primary = _primary(tm, objective)[0]
    attempts = 0
    while len(moves) < max_moves and attempts < MOVE_ATTEMPTS * (max_moves + 1):
        attempts += 1
        solver = _solve_lexicographic(tm, objective, budget, ceiling)
        if solver is None:
            break
        value = round(solver.value(primary))
        if first_proved is None:
            first_proved = budget.optimal
            # The primary objective's value (the solver's may be the tie-break's).
            objective_value = float(value)
        ceiling = value if budget.optimal else None
        move = rebuild_move(tm, solver)
        # Where the model's count is an upper bound, the table with cards traded to lay more
        # melds again; once that table is listed, the solution's own (another table).
        for shown in [_lay_again(tm, move), move] if not tm.keeps_exact else [move]:
            if max_moves > 1:  # a single move has none to differ from
                key = _table_key(shown)
                if key in seen:
                    continue
                seen.add(key)
            moves.append(_checked(position, shown, oracle))
            break
        if len(moves) < max_moves:
            _forbid(tm, solver)
            if time.monotonic() >= budget.deadline:
                budget.time_limited = True
                break
    # Found best first by the model's count of melds changed; the table's own count can be
    # lower (docs/solver.md), so equally good moves are ordered by it (a stable sort: the
    # primary order stays).
    moves.sort(key=lambda solved: (primary_key(solved, objective), solved.melds_changed))
    optimal = budget.optimal if first_proved is None else first_proved
    stats = SolveStats(
        wall_time_ms=(time.monotonic() - started) * 1000.0,
        status=_status(bool(moves), optimal),
        objective_value=objective_value,
        conflicts=budget.conflicts,
        branches=budget.branches,
        solves=budget.solves,
        # Proved for the model's count, which is the table's unless D4 applies; a first
        # move that changes no meld is the fewest whatever the model counted.
        tie_break_proved=(budget.tie_break_proved is not False and tm.keeps_exact)
        or (bool(moves) and moves[0].melds_changed == 0),
        time_limited=budget.time_limited,
    )
    return SolveResult(tuple(moves), optimal, stats)


def _status(found: bool, proved: bool) -> str:
    """SolveStats.status: what the answer is, from the first move's own proof. Not the last
    CP-SAT status: R8's largest add is INFEASIBLE on a table no add fits, where a meld can
    still be played (docs/api.md)."""
    if found:
        return "OPTIMAL" if proved else "FEASIBLE"
    return "NO_LEGAL_PLAY" if proved else "UNKNOWN"


def primary_key(solved: SolvedMove, objective: Objective) -> tuple[int, ...]:
    """A move's value under ``objective`` as a sort key: smaller is better."""
    if objective is Objective.FEWEST_POINTS:
        return (solved.verdict.hand_points_after,)
    if objective is Objective.GO_OUT:
        return (-solved.verdict.went_out, -solved.cards_played)
    return (-solved.cards_played,)


def _turn_model(position: Position, budget: _Budget) -> tuple[TurnModel, PlacedOracle | None]:
    """The model of this turn's plays, and for R8's "an add must be maximal" the largest
    add, found first (the validator's oracle for the moves found)."""
    rs = position.ruleset
    if not rs.add_must_be_maximal:
        return TurnModel(position, _options(position, rs.max_new_melds, None)), None
    # Meld plays need no largest add (R8), so an add that cannot be settled must leave
    # them time: manipulation seed 61 of a big-hand scan proved its largest add (14) only
    # after 11.6 s, and with the whole 10 s spent there the answer held no move at all.
    with budget.part(ADD_SHARE):
        add_size = _max_played(position, 0, budget)
    if not budget.optimal:
        # The largest add is not known, so no add can be shown maximal (R8): only meld
        # plays are offered, and the answer is not optimal (the budget says so already).
        return TurnModel(position, _options(position, rs.max_new_melds, NO_ADD)), _no_add
    tm = TurnModel(position, _options(position, rs.max_new_melds, add_size))
    return tm, _known_largest_add(add_size)


def _primary(tm: TurnModel, objective: Objective) -> tuple[cp_model.LinearExprT, bool]:
    """The objective expression and whether it is maximised."""
    if objective is Objective.FEWEST_POINTS:
        return tm.hand_points_after, False
    if objective is Objective.GO_OUT:
        return tm.went_out * (sum(tm.hand_count.values()) + 1) + tm.played, True
    return tm.played, True


def _solve_lexicographic(
    tm: TurnModel, objective: Objective, budget: _Budget, ceiling: int | None = None
) -> cp_model.CpSolver | None:
    """Best by the objective; among those, the fewest original melds changed.

    Where new melds are unlimited, first one weighted solve (``_solve_weighted``). Else, or
    when that proved nothing, the tie-break is first tried on the objective's best
    conceivable value (``_ideal``: every hand card played, or for a further move the
    ``ceiling``, the previous move's proved value): a table found there proves the
    primary optimum too, in one solve. Else two solves: the primary optimum is proved on
    the model without the tie-break, then the primary value is fixed and the tie-break
    searches afresh within a work limit. ``optimal`` speaks of the primary objective; the
    tie-break is the best found within its limit (docs/solver.md). None: no legal play.
    """
    expr, maximize = _primary(tm, objective)
    if ceiling is not None:
        # A further move is never better than the proved one before it (its model only
        # excludes more tables): with that bound in the model, a table that reaches it is
        # proved best at once, where the search would otherwise have to prove it again.
        tm.model.add(expr <= ceiling if maximize else expr >= ceiling)
    if tm.options.max_new_melds is None and tm.keep:
        settled, weighted = _solve_weighted(tm, expr, maximize, budget)
        if settled:
            return weighted
    ideal = _ideal(tm, objective) if ceiling is None else ceiling
    tried_ideal = False
    if ideal is not None:
        # On big tables the hand can usually go out, and this one solve (every hand card
        # fixed as played) settles it faster than the primary optimisation finds and
        # proves the same value; where the hand cannot go out, the search mostly proves
        # that within milliseconds (bench/, docs/solver.md). A further move is often as
        # good as the one before (another table of the same value): then this one solve
        # also spares the primary's proof, seconds on the hardest positions.
        solver, status = _tie_break(tm, expr, ideal, budget)
        if solver is not None:
            # A table at the best conceivable value proves the primary optimum too.
            budget.settle_tie_break(status == cp_model.OPTIMAL)
            return solver
        tried_ideal = status == cp_model.UNKNOWN
    # The objective replaces the previous one, so the model itself is solved, not a copy.
    _optimize(tm.model, expr, maximize)
    solver, status = _solve_primary(
        tm.model, maximize, budget, expr,
        probe_last=tm.wild_runs_possible, third_round=tm.rs.add_must_be_maximal,
    )
    budget.record(solver, status, primary=True)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    best = round(solver.value(expr))
    if solver.value(tm.changed) == 0:
        budget.settle_tie_break(True)
        return solver  # nothing on the table changed: the tie-break cannot do better
    tie_solver = None
    # Unless the tie-break has just had its tries on this very question (and found no table).
    if not (tried_ideal and best == ideal):
        tie_solver, status = _tie_break(tm, expr, best, budget)
    if tie_solver is None:
        tie_solver, status = _tie_break_from(tm, expr, best, budget, solver)
    budget.settle_tie_break(status == cp_model.OPTIMAL)
    return tie_solver or solver


def _ideal(tm: TurnModel, objective: Objective) -> int | None:
    """The objective's best conceivable value: every hand card played (None: no such bound)."""
    n = sum(tm.hand_count.values())
    if objective is Objective.MOST_CARDS:
        return n
    if objective is Objective.GO_OUT:
        return 2 * n + 1  # _primary's went_out * (n + 1) + played, having gone out
    scored = [*tm.hand_count, *(w.card for w in tm.wilds)]  # wilds may go back to the hand
    if any(tm.rs.points(c) < 0 for c in scored):
        return None  # a hand could then hold fewer than no points
    return 0


def _tie_break(
    tm: TurnModel, expr: cp_model.LinearExprT, best: int, budget: _Budget
) -> tuple[cp_model.CpSolver | None, cp_model.CpSolverStatus]:
    """The fewest melds changed among the plays whose primary value is ``best``.

    Returns the solver holding the best table found (None if none) and the last status.
    Each try gets a fixed work (``TIE_BREAK_DTIME``, ~100 ms), at most half of the time
    left: a hint must stay fast even where proving the tie-break is hard. No hint from a
    first solution: it rearranges the table freely, and a search that starts from it finds
    fewer-change tables later than one that starts afresh (bench/). The first try holds
    the whole linear relaxation from the start, which is faster on about two positions in
    three; where it finds no table at all, the second builds the relaxation lazily, which
    finds one on most of those (docs/solver.md); where neither does, the caller's
    ``_tie_break_from`` starts from the primary's table.
    """
    tie = _tie_model(tm, expr, best)
    for whole_lp in (True, False):
        solver = budget.solver(share=0.5, work=TIE_BREAK_DTIME, lean=True, whole_lp=whole_lp)
        status = solver.solve(tie)
        budget.record(solver, status, primary=False)
        if status != cp_model.UNKNOWN:
            break
    return (solver if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) else None), status


def _tie_break_from(
    tm: TurnModel, expr: cp_model.LinearExprT, best: int, budget: _Budget, start: cp_model.CpSolver
) -> tuple[cp_model.CpSolver | None, cp_model.CpSolverStatus]:
    """More tie-break tries where those that start afresh found no table: these start from
    ``start``'s table (the primary solve's, as a solution hint), then from the best found,
    so they can only return a table that changes fewer melds (None: they found none). Rare
    (11 of 400 hard positions in docs/solver.md's scan), and there the answer was the
    primary's table, which may change many more melds than needed (18 where 6 suffice).
    The lean search and CP-SAT's usual one each lower tables the other cannot, so both run
    (``FROM_PRIMARY_TRIES``)."""
    found: cp_model.CpSolver | None = None
    status = cp_model.UNKNOWN
    tie = _tie_model(tm, expr, best)
    for lean, whole_lp in FROM_PRIMARY_TRIES:
        tie.proto.clear_solution_hint()
        solution = list(start.response_proto.solution)
        tie.proto.solution_hint.vars.extend(range(len(solution)))
        tie.proto.solution_hint.values.extend(solution)
        solver = budget.solver(share=0.5, work=TIE_BREAK_DTIME, lean=lean, whole_lp=whole_lp)
        status = solver.solve(tie)
        budget.record(solver, status, primary=False)
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) and solver.value(
            tm.changed
        ) < start.value(tm.changed):
            found = start = solver
        if status == cp_model.OPTIMAL:
            break
    return found, status


def _tie_model(tm: TurnModel, expr: cp_model.LinearExprT, best: int) -> cp_model.CpModel:
    """The turn's model with the primary value fixed at ``best``, minimising melds changed."""
    tie = tm.model.clone()
    tie.add(expr == best)
    tie.minimize(tm.changed)
    return tie


def _solve_primary(
    model: cp_model.CpModel,
    maximize: bool,
    budget: _Budget,
    objective: cp_model.LinearExprT | None = None,
    probe_last: bool = False,
    third_round: bool = False,
) -> tuple[cp_model.CpSolver, cp_model.CpSolverStatus]:
    """The primary optimum, or the best found in time.

    Two searches take turns, each try bounded by work so that the answer stays
    deterministic: the lean one (no presolve, no cuts, the whole linear relaxation) and
    CP-SAT's usual one. The lean search settles most positions two to four times faster,
    but each has slow positions where the other is quick (``carrossel-small-1-47``: 5.2 s
    usual, 0.16 s lean; ``carrossel-large-7-0``: 0.34 s lean, 0.05 s usual). So they
    alternate with growing limits (``PRIMARY_TRIES``), lean first and last: on 800 measured
    positions lean never needed more than 0.2 where the usual search was faster, while one
    manipulation position needs 0.87 lean and 0.13 usual (bench/, docs/solver.md). The
    usual search's second try gets 0.2, not 0.6: a unit of its work takes two to three
    times the lean search's wall time, and where 0.6 of it found nothing (mexe-mexe tables
    with wild 2s: about 0.9 s) the lean try after it finished in 0.02-0.4 s.

    ``third_round`` (R8's largest add and the primary of shangai and manipulation, whose
    adds must be maximal): a round of 0.6 each comes before the last try, unless
    ``probe_last``. On big hands the usual search proves in 0.2-0.4 what the lean one needs
    2-4.5 for (manipulation, 16 hand cards), while on vatikan the unbounded usual search did
    not settle in 30 s what the lean one did in 2 s, so neither can have the last word alone.
    Elsewhere the round only delayed the last try (``SHORT_TRIES``, docs/performance.md).

    With the ``objective`` expression, a try that finds a solution but cannot prove it
    leaves the next tries to search only strictly better ones (a copy of the model with a
    cutoff): they no longer start from scratch, and one that finds none proves the best
    found optimal.

    ``probe_last``: the tries are ``SHORT_TRIES``, and the last one, without a work
    limit, probes (``_Budget.solver``). Where wilds are enough for a run of their own
    (mexe-mexe's 2s), that try mostly proves that no better play exists, and probing
    lowered its work on every such bench position that reached it, most on the slowest (2.4
    to 0.65 units on ``mexe-mexe-mid-1-13``). On other positions it went either way
    (carrossel-52-123 of a hard-hand scan: 2.4 to 4.4 units in all), so it is not used
    there (docs/performance.md).
    """
    tried: list[tuple[cp_model.CpSolver, cp_model.CpSolverStatus]] = []
    current = model
    incumbent: cp_model.CpSolver | None = None  # the last try's unproved play
    tries = PRIMARY_TRIES if third_round and not probe_last else SHORT_TRIES
    for work, lean in tries:
        solver = budget.solver(work=work, lean=lean, probing=probe_last and work is None)
        status = solver.solve(current)
        tried.append((solver, status))
        if status == cp_model.INFEASIBLE and incumbent is not None:
            # Nothing beats the incumbent: it is optimal.
            tried.append((incumbent, cp_model.OPTIMAL))
            break
        if status in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
            break
        if time.monotonic() >= budget.deadline:
            budget.time_limited = True
            break
        if status == cp_model.FEASIBLE and objective is not None:
            incumbent = solver
            value = round(solver.value(objective))
            current = model.clone()
            current.add(objective >= value + 1 if maximize else objective <= value - 1)
    sign = 1 if maximize else -1
    found = [t for t in tried if t[1] == cp_model.FEASIBLE]
    if tried[-1][1] in (cp_model.OPTIMAL, cp_model.INFEASIBLE) or not found:
        chosen = tried[-1]
    else:  # out of time: the best any try found
        chosen = max(found, key=lambda t: sign * t[0].objective_value)
    for t in tried:
        if t[0] is not chosen[0]:
            budget.record(*t, primary=False)
    return chosen


def _optimize(model: cp_model.CpModel, expr: cp_model.LinearExprT, maximize: bool) -> None:
    if maximize:
        model.maximize(expr)
    else:
        model.minimize(expr)


def _solve_weighted(
    tm: TurnModel, expr: cp_model.LinearExprT, maximize: bool, budget: _Budget
) -> tuple[bool, cp_model.CpSolver | None]:
    """Both objectives in one solve: one primary unit outweighs every melds-changed count.

    Used where new melds are unlimited (rummikub): there this sum is proved about as fast
    as the primary alone, which saves the second solve (bench/). Under R6's one new meld
    its proof can take seconds, so those rulesets solve in two stages. Returns whether the
    question is settled (a primary optimum proved, or no legal play) with the solver holding
    the answer (None: no legal play); unsettled after at most half the time left or
    ``WEIGHTED_DTIME``, and the two stages then run.
    """
    weight = len(tm.keep) + 1  # changed is 0..len(keep): below one unit of the primary
    sign = -1 if maximize else 1
    combined = cp_model.LinearExpr.weighted_sum([expr, tm.changed], [weight, sign])
    _optimize(tm.model, combined, maximize)
    solver = budget.solver(share=0.5, work=WEIGHTED_DTIME, lean=True)
    status = solver.solve(tm.model)
    if status in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
        budget.record(solver, status, primary=True)
        budget.settle_tie_break(True)
        return True, solver if status == cp_model.OPTIMAL else None
    if status == cp_model.FEASIBLE:
        # The bound may already exclude a better primary value with any tie-break.
        value = round(solver.value(expr))
        bound = solver.best_objective_bound
        proved = bound < value * weight + 1 if maximize else bound > value * weight - 1
        if proved:
            budget.record(solver, status, primary=True, proved=True)
            budget.settle_tie_break(False)
            return True, solver
    budget.record(solver, status, primary=False)
    return False, None


def _forbid(tm: TurnModel, solver: cp_model.CpSolver) -> None:
    """Exclude this exact solution (its structural variables) from later solves.

    One clause: some variable differs. A boolean is its own literal. The integers at 0 are
    all still 0 unless their sum is at least 1, and those at their upper bound likewise
    (one literal each way); only those in between need a literal of their own. On a
    two-deck table most integers are 0, so a further move's model grows by a few
    variables rather than by one per integer (800 on a mid vatikan table).
    """
    m = tm.model
    diffs: list[cp_model.IntVar] = []
    at_zero: list[cp_model.IntVar] = []
    below_top: list[cp_model.LinearExprT] = []
    for var in tm.structural_vars():
        value = int(solver.value(var))
        # Not ``domain[-1]``: the proto's repeated field does not count from the end
        # (it read outside the field, so booleans were never seen as such).
        domain = list(var.proto.domain)
        lo, hi = domain[0], domain[-1]
        if lo == 0 and hi == 1:
            diffs.append(var if value == 0 else ~var)  # type: ignore[arg-type]
        elif value == lo == 0:
            at_zero.append(var)
        elif value == hi:
            below_top.append(hi - var)
        else:
            d = m.new_bool_var("")
            m.add(var != value).only_enforce_if(d)
            diffs.append(d)
    for terms in (at_zero, below_top):
        if terms:
            d = m.new_bool_var("")
            m.add(cp_model.LinearExpr.sum(terms) >= 1).only_enforce_if(d)
            diffs.append(d)
    m.add_bool_or(diffs)


def _table_key(move: Move) -> TableKey:
    """A move as the player sees it: each meld's cards with the rank each wild stands for
    (``_meld_key``), in any order (a kept group keeps its old order, the same group laid
    from the pool's counts is written in suit order), and the cards taken back to the hand.
    A wild's written suit is not part of it: in a group it is a note (``JK=9`` and ``JK=9S``
    beside 9♣ 9♥ are one group), in a run the naturals fix it."""
    table = tuple(sorted(_meld_key((tc.card, tc.value) for tc in meld) for meld in move.table))
    return table, tuple(sorted(card.code for card in move.to_hand))


MeldKey = tuple[tuple[Card, int], ...]


def _meld_key(cards: Iterable[tuple[Card, WildValue | None]]) -> MeldKey:
    # Each card with the rank it stands for as a wild (0: natural, or a mexe-mexe 2 standing
    # for its own rank). The same cards can hold wilds of other ranks where another copy of
    # a natural released them: vatikan `AS JK=A JK=A` laid again as `AS JK=2 JK=3`, a group
    # become a run. A wild's suit is not compared: a note in a group, the naturals' in a run.
    return tuple(sorted([(c, 0 if v is None or v.rank == c.rank else v.rank) for c, v in cards]))


def _before_key(classified: MeldClassification) -> MeldKey:
    # A meld before, its wilds' values read (a bare `JK` stands for one).
    reading = classified.reading
    stands = zip(classified.cards, reading.values, reading.wild, strict=True)
    return _meld_key((tc.card, v if w else None) for tc, v, w in stands)


def changed_melds(position: Position, table: tuple[Meld, ...]) -> tuple[int, tuple[bool, ...]]:
    """How many melds before have no meld of the very same cards after, their wilds
    standing for the same ranks, and which melds after are new."""
    before = Counter(_before_key(c) for c in position.readings)
    flags = []
    for meld in table:
        key = _meld_key((tc.card, tc.value) for tc in meld)
        if before[key] > 0:
            before[key] -= 1
            flags.append(False)
        else:
            flags.append(True)
    return sum(before.values()), tuple(flags)


def _lay_again(tm: TurnModel, move: Move) -> Move:
    """The move with two cards traded between two of its melds wherever that lays a meld
    before again card for card, so that ``changed_melds`` drops (``_swaps``). Asked only
    where the model's count is an upper bound of the table's (``TurnModel.keeps_exact``):
    vatikan ``JD QH KH JK=A | QH KS AD`` with ``AD`` in hand, whose solution may lay
    ``QH KH AD | 10D JD QH KS``; one trade makes it ``QH KS AD`` (the second meld,
    unchanged) and ``10D JD QH KH``. Likewise a natural for a wild of its value (D4):
    carrossel ``AC AD AH | JK=A JK=2 3H`` becomes ``AC JK=A AH | AD JK=2 3H``, which shows
    a group before, ``AH AC JK``. A trade is kept only if the move stays legal
    (``validate_move`` without R8's searches, which a trade cannot change: the same cards
    are laid in as many melds); ``_checked`` then judges the move in full."""
    position = tm.position
    wanted = [Counter(tc.card for tc in meld) for meld in position.table]
    table = move.table
    changed = changed_melds(position, table)[0]
    for _ in range(len(table)):  # each trade lays one more meld again
        for after in _swaps(tm.rs, table, wanted):
            fewer = changed_melds(position, after)[0]
            if fewer < changed and validate_move(
                position, Move(after, move.to_hand), search_rules=False
            ).legal:
                table, changed = after, fewer
                break
        else:
            break
    return Move(table, move.to_hand)


def _swaps(
    rs: Ruleset, table: tuple[Meld, ...], wanted: list[Counter[Card]]
) -> Iterator[tuple[Meld, ...]]:
    """Tables where one meld is made one of ``wanted`` by trading one or two of its cards
    for as many of one other meld, both still melds: each pair two naturals of one rank (so
    each meld keeps its kind, as vatikan's groups rule needs, R7), a natural for a wild
    standing for that very card, each then standing where the other stood, or a mexe-mexe 2
    and a wild 2 swapping roles (``_traded``).
    Two at once: vatikan `AC 2C 3C 4C 5C | 2C 3D 4H 5S` lays `AC 2C 3D 4H 5C` again by
    trading the 3♣ and 4♣ for the 3♦ and 4♥ (the differential's seed 252537)."""
    for want in wanted:
        for a, meld_a in enumerate(table):
            has = Counter(tc.card for tc in meld_a)
            give, take = has - want, want - has
            k = give.total()
            if not 1 <= k <= MAX_TRADED or take.total() != k:
                continue
            from_a = list(_places(meld_a, give.elements()))
            for b, meld_b in enumerate(table):
                if b == a or not take <= Counter(tc.card for tc in meld_b):
                    continue
                # Which taken card goes where each given one was (two equal ones: one way).
                for takes in dict.fromkeys(permutations(take.elements())):
                    for at_a, at_b in product(from_a, _places(meld_b, takes)):
                        after = _trade(rs, table, a, b, at_a, at_b)
                        if after is not None:
                            yield after


MAX_TRADED = 2  # the most cards one trade of ``_swaps`` moves each way


def _places(meld: Meld, cards: Iterable[Card]) -> Iterator[tuple[int, ...]]:
    """Distinct places of ``meld`` holding ``cards``, one place per card, in order."""
    options = [[i for i, tc in enumerate(meld) if tc.card == card] for card in cards]
    for chosen in product(*options):
        if len(set(chosen)) == len(chosen):
            yield chosen


def _trade(
    rs: Ruleset,
    table: tuple[Meld, ...],
    a: int,
    b: int,
    at_a: tuple[int, ...],
    at_b: tuple[int, ...],
) -> tuple[Meld, ...] | None:
    """The table with the cards at ``at_a`` of meld ``a`` and ``at_b`` of meld ``b`` traded
    pairwise, if each pair can trade and both melds stay melds (None: not)."""
    new_a, new_b = list(table[a]), list(table[b])
    for i, j in zip(at_a, at_b, strict=True):
        traded = _traded(rs, table[a][i], table[b][j])
        if traded is None:
            return None
        new_a[i], new_b[j] = traded
    # Written out as read (a same-suit run's wild with its suit), as the rebuild writes
    # them, so that one table has one key.
    read_a = classify(rs, tuple(new_a))
    read_b = classify(rs, tuple(new_b))
    if not (read_a.ok and read_b.ok):
        return None
    after = list(table)
    after[a], after[b] = read_a.normalized, read_b.normalized
    return tuple(after)


def _traded(rs: Ruleset, x: TableCard, y: TableCard) -> tuple[TableCard, TableCard] | None:
    """``y`` where ``x`` stood and ``x`` where ``y`` stood, if they can trade places: two
    naturals of one rank; a natural and a wild standing for that card (its rank, and its
    suit where it has one), the wild then standing for it where it was; or a natural that
    may itself be wild (a mexe-mexe 2) and a wild of the natural's rank, which trade roles:
    the natural stands for the wild's value where the wild was, the wild's card is a natural
    where the natural was (``2S | 2C=5D`` to ``2C | 2S=5D``, seed 290052 with up to four
    wilds). None: they cannot. ``_lay_again`` keeps a trade only if the table is legal."""
    if x.value is None and y.value is None:
        return (y, x) if x.card.rank == y.card.rank else None
    if x.value is not None and y.value is not None:
        return None  # two wilds: the same cards where they were
    natural, wild = (x, y) if x.value is None else (y, x)
    value, card = wild.value, natural.card
    assert value is not None
    if value.rank == card.rank and value.suit in (None, card.suit):
        # Its written suit kept: a suited wild (from a same-suit run) stands for that very
        # card (R5), an unsuited one takes its new meld's suit where it has one (``_swaps``).
        stands = TableCard(wild.card, WildValue(card.rank, value.suit))
        return (stands, natural) if wild is y else (natural, stands)
    if rs.is_wild_card(card) and wild.card.rank == card.rank and wild.card != card:
        # Where the wild stood: the natural's card with its value; where the natural stood:
        # the wild's card, natural.
        at_wild, at_natural = TableCard(card, value), TableCard(wild.card)
        return (at_wild, at_natural) if wild is x else (at_natural, at_wild)
    return None


def _known_largest_add(add_size: int) -> PlacedOracle:
    """The validator's R8 question "how many cards can an add place?", answered by the solve
    that has just asked it (the same model and search would give the same answer)."""

    def oracle(position: Position, max_new_melds: int | None = None) -> int:
        if max_new_melds == 0:
            return add_size
        return max_cards_placed(position, max_new_melds)

    return oracle


def _no_add(position: Position, max_new_melds: int | None = None) -> int:
    """The validator's oracle where the model offers no add: never asked for a meld play."""
    raise SolverError("the solver offered an add although the largest add is not known (R8)")


def _checked(position: Position, move: Move, max_placed: PlacedOracle | None = None) -> SolvedMove:
    verdict = validate_move(position, move, max_placed=max_placed)
    if not verdict.legal:
        reasons = "; ".join(str(v) for v in verdict.violations)
        table = " | ".join(" ".join(tc.code for tc in meld) for meld in move.table)
        raise SolverError(f"the solver proposed an illegal move [{table}]: {reasons}")
    n_changed, flags = changed_melds(position, verdict.table)
    return SolvedMove(
        Move(verdict.table, move.to_hand, move.knock, move.discard),
        verdict,
        len(verdict.played),
        n_changed,
        flags,
    )


@dataclass(frozen=True)
class KnockReach:
    """What this turn can reach (R10): best hand total, knock, going out, a witness."""

    best_hand_points: int | None  # None when no play exists
    can_knock: bool
    can_go_out: bool
    witness: SolvedMove | None
    optimal: bool
    time_limited: bool = False  # as SolveStats.time_limited, for either question


def knock_reach(position: Position, time_limit_ms: int = DEFAULT_TIME_LIMIT_MS) -> KnockReach:
    """The lowest hand total reachable by a play this turn, and whether knocking is; both
    questions share ``time_limit_ms``."""
    rs = position.ruleset
    deadline = time.monotonic() + max(time_limit_ms, 1) / 1000.0
    best = solve_move(position, Objective.FEWEST_POINTS, 1, time_limit_ms)
    time_limited = best.stats.time_limited
    if not best.moves:
        return KnockReach(None, False, False, None, best.optimal, time_limited)
    top = best.moves[0]
    points = top.verdict.hand_points_after
    can_go_out = top.verdict.went_out
    witness = top
    can_knock = top.verdict.knock_eligible
    optimal = best.optimal
    if rs.knock_threshold and can_go_out:
        # Going out leaves 0 points; a knock needs a hand worth 1..threshold after a play.
        left_ms = max(round((deadline - time.monotonic()) * 1000.0), 1)
        found, settled, cut = _knock_play_exists(position, left_ms)
        optimal = optimal and settled
        can_knock = can_knock or found
        time_limited = time_limited or cut
    return KnockReach(points, can_knock, can_go_out, witness, optimal, time_limited)


def _knock_play_exists(position: Position, time_limit_ms: int) -> tuple[bool, bool, bool]:
    """Does some play leave 1..threshold points (R10)? Any such play answers it, so this is
    a search for one, not for the best: on large tables where the hand can go out it is
    several times faster than the lowest total above 0 (docs/solver.md). Returns whether
    one was found (and re-checked by ``validate_move``), whether the answer is settled, and
    whether the clock stopped a solve (``SolveStats.time_limited``)."""
    budget = _Budget(time_limit_ms)
    tm, oracle = _turn_model(position, budget)
    tm.model.add(tm.hand_points_after >= 1)
    tm.model.add(tm.hand_points_after <= position.ruleset.knock_threshold)
    solver, status = _solve_primary(
        tm.model, True, budget,
        probe_last=tm.wild_runs_possible, third_round=position.ruleset.add_must_be_maximal,
    )
    budget.record(solver, status, primary=False)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return False, status == cp_model.INFEASIBLE, budget.time_limited
    move = rebuild_move(tm, solver)
    play = _checked(position, move, oracle)
    if not play.verdict.knock_eligible:
        raise SolverError(
            f"the solver's knock play leaves {play.verdict.hand_points_after} points (R10)"
        )
    return True, True, budget.time_limited
