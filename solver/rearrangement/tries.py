"""The lexicographic search of one turn: the primary objective, then the fewest melds changed.

Each solve is a try bounded by work (deterministic) and by the time the ``Budget`` leaves;
tries alternate CP-SAT's lean and usual searches (``solve_primary``) and the tie-break
re-solves with the primary value fixed (``_tie_break``).
"""

from __future__ import annotations

import time
from enum import Enum
from typing import NamedTuple

from ortools.sat.python import cp_model

from solver.rearrangement.budget import Budget
from solver.rearrangement.model import TurnModel

# Work limits in CP-SAT's deterministic time (load-independent, so the same request gets
# the same answer); bench/HISTORY.md has what a unit took in wall time.
TIE_BREAK_DTIME = 0.03  # the work of each try of the melds-changed tie-break


class TieTry(NamedTuple):
    """One search of the tie-break (``Budget.solver``'s options)."""

    lean: bool
    whole_lp: bool
    cuts: bool = False


# The tie-break's tries afresh, in turn, each until one finds a table: see _tie_break.
TIE_BREAK_TRIES: tuple[TieTry, ...] = (
    TieTry(lean=True, whole_lp=True),
    TieTry(lean=False, whole_lp=False),
    TieTry(lean=True, whole_lp=False),
)
# The tie-break's tries from the primary's table, where those afresh found none (lean, whole
# linear relaxation): see _tie_break_from.
FROM_PRIMARY_TRIES: tuple[tuple[bool, bool], ...] = ((True, True), (False, False))
WEIGHTED_DTIME = 0.1  # the most work the one-solve lexicographic search gets
# Under R6's one new meld, the one weighted solve where no play reaches the best conceivable
# value (the hand cannot go out) before the two stages: on the 28 such mid carrossel
# positions of seeds 1-4 it proved all 28, the same values, in two thirds of the two stages'
# CPU (bench/HISTORY.md, "the weighted solve where the hand cannot go out"). False: the two
# stages at once.
WEIGHTED_BELOW_IDEAL = True
# The primary solve's tries in turn (work limit, lean): see solve_primary.
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
# elsewhere its lean try mostly repeats the start of the last one, and where wilds can make
# a run on their own (mexe-mexe's 2s) its usual try was the slow tail.
SHORT_TRIES = (*PRIMARY_TRIES[:4], PRIMARY_TRIES[-1])


class Objective(Enum):
    """What "best" means for SolveMove."""

    MOST_CARDS = "most_cards"
    FEWEST_POINTS = "fewest_points"
    GO_OUT = "go_out"


def primary_objective(tm: TurnModel, objective: Objective) -> tuple[cp_model.LinearExprT, bool]:
    """The objective expression and whether it is maximised."""
    measures = tm.variables
    if objective is Objective.FEWEST_POINTS:
        return measures.hand_points_after, False
    if objective is Objective.GO_OUT:
        hand_size = sum(tm.data.hand_count.values())
        return measures.went_out * (hand_size + 1) + measures.played, True
    return measures.played, True


def solve_lexicographic(
    tm: TurnModel, objective: Objective, budget: Budget, ceiling: int | None = None
) -> cp_model.CpSolver | None:
    """Best by the objective; among those, the fewest original melds changed.

    Where new melds are unlimited, first one weighted solve (``_solve_weighted``). Else, or
    when that proved nothing, the tie-break is first tried on the objective's best
    conceivable value (``_ideal``: every hand card played, or for a further move the
    ``ceiling``, the previous move's proved value): a table found there proves the
    primary optimum too, in one solve. Where that value is proved out of reach, the one
    weighted solve (``WEIGHTED_BELOW_IDEAL``). Else two solves: the primary optimum is proved on
    the model without the tie-break, then the primary value is fixed and the tie-break
    searches afresh within a work limit. ``optimal`` speaks of the primary objective; the
    tie-break is the best found within its limit (docs/solver.md). None: no legal play.
    """
    expr, maximize = primary_objective(tm, objective)
    if ceiling is not None:
        # A further move is never better than the proved one before it (its model only
        # excludes more tables): with that bound in the model, a table that reaches it is
        # proved best at once, where the search would otherwise have to prove it again.
        tm.model.add(expr <= ceiling if maximize else expr >= ceiling)
    if tm.data.options.max_new_melds is None and tm.variables.kept.keep:
        settled, weighted = _solve_weighted(tm, expr, maximize, budget)
        if settled:
            return weighted
    ideal = _ideal(tm, objective) if ceiling is None else ceiling
    if ideal is None:
        return _two_stages(tm, expr, maximize, budget)
    settled, answer, tried = _at_the_ideal(tm, expr, maximize, ideal, budget)
    if settled:
        return answer
    return _two_stages(tm, expr, maximize, budget, tried_at=ideal if tried else None)


def _at_the_ideal(
    tm: TurnModel, expr: cp_model.LinearExprT, maximize: bool, ideal: int, budget: Budget
) -> tuple[bool, cp_model.CpSolver | None, bool]:
    """The tie-break at the best conceivable value, then below it the one weighted solve
    where that applies: whether that settled the question, the answer if so, and whether
    the tie-break's tries ended without knowing (its question asked in vain).

    On big tables the hand can usually go out, and this one solve (every hand card fixed as
    played) settles it faster than the primary optimisation finds and proves the same
    value; where the hand cannot go out, the search mostly proves that within milliseconds
    (bench/, docs/solver.md). A further move is often as good as the one before (another
    table of the same value): then this one solve also spares the primary's proof, seconds
    on the hardest positions."""
    solver, status = _tie_break(tm, expr, ideal, budget)
    if solver is not None:
        # A table at the best conceivable value proves the primary optimum too.
        budget.settle_tie_break(status == cp_model.OPTIMAL)
        return True, solver, False
    # Below the ideal, one weighted solve mostly proves both objectives at once (where
    # every hand card can go, it is slower than the ideal's tie-break). Not where it came
    # first (new melds unlimited), nor where a D4 trade can lower the table's count of
    # melds changed below the model's: there the two stages, whose tables the rebuild's
    # trades were measured on (tests/test_solve_move.py, D4).
    if (
        status == cp_model.INFEASIBLE
        and WEIGHTED_BELOW_IDEAL
        and tm.data.options.max_new_melds is not None
        and tm.data.keeps_exact
        and tm.variables.kept.keep
    ):
        settled, weighted = _solve_weighted(tm, expr, maximize, budget, both_proved=True)
        if settled:
            return True, weighted, False
    return False, None, status == cp_model.UNKNOWN


def _two_stages(
    tm: TurnModel,
    expr: cp_model.LinearExprT,
    maximize: bool,
    budget: Budget,
    tried_at: int | None = None,
) -> cp_model.CpSolver | None:
    """The primary optimum proved on the model without the tie-break, then the primary
    value fixed and the tie-break searched afresh (unless its tries have just asked that
    very question, ``tried_at``, and found no table), else from the primary's table."""
    # The objective replaces the previous one, so the model itself is solved, not a copy.
    _optimize(tm.model, expr, maximize)
    solver, status = solve_primary(
        tm.model,
        maximize,
        budget,
        expr,
        probe_last=tm.data.wild_runs_possible,
        third_round=tm.data.ruleset.rearrangement.add_must_be_maximal,
    )
    budget.record(solver, status, primary=True)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    best = round(solver.value(expr))
    if solver.value(tm.variables.changed) == 0:
        budget.settle_tie_break(True)
        return solver  # nothing on the table changed: the tie-break cannot do better
    tie_solver = None
    if best != tried_at:
        tie_solver, status = _tie_break(tm, expr, best, budget)
    if tie_solver is None:
        tie_solver, status = _tie_break_from(tm, expr, best, budget, solver)
    budget.settle_tie_break(status == cp_model.OPTIMAL)
    return tie_solver or solver


def _ideal(tm: TurnModel, objective: Objective) -> int | None:
    """The objective's best conceivable value: every hand card played (None: no such bound)."""
    n = sum(tm.data.hand_count.values())
    if objective is Objective.MOST_CARDS:
        return n
    if objective is Objective.GO_OUT:
        return 2 * n + 1  # _primary's went_out * (n + 1) + played, having gone out
    scored = [
        *tm.data.hand_count,
        *(w.card for w in tm.data.wilds),
    ]  # wilds may go back to the hand
    if any(tm.data.ruleset.points(c) < 0 for c in scored):
        return None  # a hand could then hold fewer than no points
    return 0


def _tie_break(
    tm: TurnModel, expr: cp_model.LinearExprT, best: int, budget: Budget
) -> tuple[cp_model.CpSolver | None, cp_model.CpSolverStatus]:
    """The fewest melds changed among the plays whose primary value is ``best``.

    Returns the solver holding the best table found (None if none) and the last status.
    Each try gets a fixed work (``TIE_BREAK_DTIME``), at most half of the time left: a
    hint must stay fast even where proving the tie-break is hard. No hint from a first
    solution: it rearranges the table freely, and a search that starts from it finds
    fewer-change tables later than one that starts afresh. The tries differ in their
    search (``TIE_BREAK_TRIES``): the work a search needs before its first table varies
    widely from one position to the next, and a position slow for one search is often
    quick for another. The first holds the whole linear relaxation from the start,
    which is faster on most positions; where it finds no table at all, CP-SAT's usual
    search without cuts finds one on four positions in five, and the lean one with the
    relaxation built lazily on half of the rest (bench/HISTORY.md); where none does, the
    caller's ``_tie_break_from`` starts from the primary's table.
    """
    tie = _tie_model(tm, expr, best)
    for search in TIE_BREAK_TRIES:
        solver = budget.solver(
            share=0.5,
            work=TIE_BREAK_DTIME,
            lean=search.lean,
            whole_lp=search.whole_lp,
            cuts=search.cuts,
        )
        status = solver.solve(tie)
        budget.record(solver, status, primary=False)
        if status != cp_model.UNKNOWN:
            break
    return (solver if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) else None), status


def _tie_break_from(
    tm: TurnModel, expr: cp_model.LinearExprT, best: int, budget: Budget, start: cp_model.CpSolver
) -> tuple[cp_model.CpSolver | None, cp_model.CpSolverStatus]:
    """More tie-break tries where those that start afresh found no table: these start from
    ``start``'s table (the primary solve's, as a solution hint), then from the best found,
    so they can only return a table that changes fewer melds (None: they found none). Rare,
    but without them the answer is the primary's table, which may change many more melds
    than needed. The lean search and CP-SAT's usual one each lower tables the other
    cannot, so both run (``FROM_PRIMARY_TRIES``)."""
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
        changed = tm.variables.changed
        found_one = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
        if found_one and solver.value(changed) < start.value(changed):
            found = start = solver
        if status == cp_model.OPTIMAL:
            break
    return found, status


def _tie_model(tm: TurnModel, expr: cp_model.LinearExprT, best: int) -> cp_model.CpModel:
    """The turn's model with the primary value fixed at ``best``, minimising melds changed."""
    tie = tm.model.clone()
    tie.add(expr == best)
    tie.minimize(tm.variables.changed)
    return tie


def solve_primary(
    model: cp_model.CpModel,
    maximize: bool,
    budget: Budget,
    objective: cp_model.LinearExprT | None = None,
    probe_last: bool = False,
    third_round: bool = False,
) -> tuple[cp_model.CpSolver, cp_model.CpSolverStatus]:
    """The primary optimum, or the best found in time.

    Two searches take turns, each try bounded by work so that the answer stays
    deterministic: the lean one (no presolve, no cuts, the whole linear relaxation) and
    CP-SAT's usual one. The lean search settles most positions faster, but each has slow
    positions where the other is quick, so they alternate with growing limits
    (``PRIMARY_TRIES``), lean first and last. The usual search's second try is short
    because a unit of its work takes longer than the lean search's (bench/HISTORY.md).

    ``third_round`` (R8's largest add and the primary of shangai and manipulation, whose
    adds must be maximal): a round of 0.6 each comes before the last try, unless
    ``probe_last``: on big hands the usual search proves quickly what the lean one is slow
    at, and on vatikan the reverse, so neither can have the last word alone. Elsewhere the
    round only delays the last try (``SHORT_TRIES``).

    With the ``objective`` expression, a try that finds a solution but cannot prove it
    leaves the next tries to search only strictly better ones (a copy of the model with a
    cutoff): they no longer start from scratch, and one that finds none proves the best
    found optimal.

    ``probe_last``: the tries are ``SHORT_TRIES``, and the last one, without a work
    limit, probes (``Budget.solver``). Where wilds are enough for a run of their own
    (mexe-mexe's 2s) that try mostly proves that no better play exists, which probing
    speeds up; on other positions it went either way, so it is not used there.
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
    tm: TurnModel,
    expr: cp_model.LinearExprT,
    maximize: bool,
    budget: Budget,
    both_proved: bool = False,
) -> tuple[bool, cp_model.CpSolver | None]:
    """Both objectives in one solve: one primary unit outweighs every melds-changed count.

    Used where new melds are unlimited (rummikub): there this sum is proved about as fast
    as the primary alone, which saves the second solve (bench/). Under R6's one new meld
    its proof can take seconds, so those rulesets solve in two stages, unless the best
    conceivable value is proved out of reach (``WEIGHTED_BELOW_IDEAL``). Returns whether the
    question is settled (a primary optimum proved, or no legal play) with the solver holding
    the answer (None: no legal play); unsettled after at most half the time left or
    ``WEIGHTED_DTIME``, and the two stages then run. ``both_proved``: settled only
    with both objectives proved (below the ideal, where the two stages would otherwise give
    the tie-break tries of its own).
    """
    # Melds changed is 0..len(keep): below one unit of the primary.
    weight = len(tm.variables.kept.keep) + 1
    sign = -1 if maximize else 1
    combined = cp_model.LinearExpr.weighted_sum([expr, tm.variables.changed], [weight, sign])
    _optimize(tm.model, combined, maximize)
    solver = budget.solver(share=0.5, work=WEIGHTED_DTIME, lean=True)
    status = solver.solve(tm.model)
    if status in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
        budget.record(solver, status, primary=True)
        budget.settle_tie_break(True)
        return True, solver if status == cp_model.OPTIMAL else None
    if status == cp_model.FEASIBLE and not both_proved:
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
