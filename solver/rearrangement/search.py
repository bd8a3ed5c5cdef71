"""Best moves and knock reachability: the CP-SAT questions of the rearrangement family.

This is the family's public face: ``solve_move``, ``max_cards_placed``, ``knock_reach`` and
``validate_move`` (the referee with R8's search wired in). The model is built in
``model``, solved in ``tries`` within a ``budget``, read back in ``rebuild``; ``identity``
tells moves apart and ``trades`` lays melds before again.

Every move returned here has been re-checked by ``validate_move``; a disagreement is a
``SolverError`` (a loud failure), never a wrong hint.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

from ortools.sat.python import cp_model

from solver.core.cards import format_cards
from solver.core.rulesets import Ruleset
from solver.core.violations import Violation, ViolationCode
from solver.rearrangement import tries
from solver.rearrangement.budget import Budget
from solver.rearrangement.identity import TableKey, forbid, table_key
from solver.rearrangement.model import NO_ADD, ModelOptions, TurnModel, deck_melds, turn_options
from solver.rearrangement.rebuild import rebuild_move
from solver.rearrangement.referee import Verdict, judge_move
from solver.rearrangement.trades import lay_again
from solver.rearrangement.tries import Objective
from solver.rearrangement.turns import PlacedOracle, draw_violations
from solver.rummy.position import Move, Position
from solver.rummy.table_change import changed_indices, changed_melds

__all__ = [
    "DEFAULT_TIME_LIMIT_MS",
    "MAX_MOVES",
    "KnockReach",
    "Objective",
    "SearchUndecided",
    "SolveResult",
    "SolveStats",
    "SolvedMove",
    "SolverError",
    "changed_melds",
    "default_objective",
    "knock_reach",
    "legal_turn_model",
    "max_cards_placed",
    "play_allowed",
    "primary_key",
    "solve_move",
    "solved_move",
    "validate_move",
]

DEFAULT_TIME_LIMIT_MS = 10_000  # a request's time when it names none (service, CLI hint)
ADD_SHARE = 0.5  # the most of the time R8's largest add may take (_turn_model)
MAX_MOVES = 20  # the most moves one request may ask for (SolveMove's max_moves)
# Solves per move asked (plus one round): a table can come back as several solutions (a
# meld kept or laid again, two jokers trading places), each a solve that lists nothing, and
# 3 left some lists short while more moves existed (docs/solver.md, measured there).
MOVE_ATTEMPTS = 10
# The searches' pool counts any-suit runs as a flow along the places: the same tables in a
# model half the pool's size, whose tie-break is about a tenth cheaper (model/run_flow.py,
# bench/HISTORY.md). False: one count per run template, as the suggestion's model has.
RUN_FLOW = True
# The rulesets whose searches flag each rank's pool groups (model/group_flags.py): the same
# tables, found and proved sooner (carrossel's large tail: p99 144 -> 50 ms). Mexe-mexe's
# searches were slower with them; rummikub's copy the deck's model (bench/HISTORY.md, "a
# flag per rank's groups").
GROUP_FLAGS: tuple[str, ...] = ("carrossel", "vatikan", "shangai", "manipulation")
# Rummikub's single best move searched on the model of the deck's melds (model/deck_melds.py):
# the same answers, CP-SAT's part about a third shorter (bench/HISTORY.md). False: the turn
# model answers every request (the tests compare the two).
DECK_MELDS = True


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
    unkept: tuple[int, ...]  # the melds before (indices) that move.table does not keep


@dataclass(frozen=True)
class SolveResult:
    """Up to ``max_moves`` distinct legal moves, best first; ``optimal`` when proved."""

    moves: tuple[SolvedMove, ...]
    optimal: bool
    stats: SolveStats


def default_objective(ruleset: Ruleset) -> Objective:
    """Fewest points where hands score (SPEC §4), else most cards."""
    return Objective.FEWEST_POINTS if ruleset.scoring.hands_score else Objective.MOST_CARDS


def play_allowed(position: Position) -> bool:
    """Does the turn state allow a play at all (R8)? The validator's own rule, reused."""
    return not draw_violations(position)


def validate_move(
    position: Position,
    move: Move,
    *,
    max_placed: PlacedOracle | None = None,
    search_rules: bool = True,
) -> Verdict:
    """Judge ``move`` in ``position`` (R1-R10); never raises for an illegal move.

    ``max_placed(position, max_new_melds=k)`` answers shangai and manipulation's search
    questions (R8); by default ``max_cards_placed``. With ``search_rules=False`` those two
    rules (MUST_PLAY, ADD_NOT_MAXIMAL) are not checked (``referee.judge_move``).
    """
    verdict = judge_move(
        position, move, max_placed=max_placed or max_cards_placed, search_rules=search_rules
    )
    if any(v.code in _NAMED_PLAYS for v in verdict.violations):
        verdict = _name_the_play(position, verdict)
    return verdict


_NAMED_PLAYS = {
    ViolationCode.MUST_PLAY: None,  # any play: the rule's own new-meld limit
    ViolationCode.ADD_NOT_MAXIMAL: 0,  # an add: no net new meld
}
WITNESS_TIME_LIMIT_MS = 2000
"""Time for finding the play that MUST_PLAY or ADD_NOT_MAXIMAL says exists (R8)."""


def _name_the_play(position: Position, verdict: Verdict) -> Verdict:
    """MUST_PLAY and ADD_NOT_MAXIMAL say which play exists: its cards and the melds they go
    to, as a largest such play lays them (R8)."""
    named: list[Violation] = []
    for violation in verdict.violations:
        if violation.code not in _NAMED_PLAYS:
            named.append(violation)
            continue
        limit = _NAMED_PLAYS[violation.code]
        if limit is None:
            limit = position.ruleset.rearrangement.max_new_melds
        example = _largest_play(position, limit)
        named.append(
            violation
            if example is None
            else dataclasses.replace(
                violation, message=f"{violation.message}; for example {example}"
            )
        )
    return dataclasses.replace(verdict, violations=tuple(named))


def _largest_play(position: Position, max_new_melds: int | None) -> str | None:
    """A play placing the most hand cards with at most ``max_new_melds`` net new melds, as
    text (its cards, then the melds they go to); None when none was found in time."""
    budget = Budget(WITNESS_TIME_LIMIT_MS)
    tm = TurnModel(position, _search_options(position, max_new_melds, None))
    tm.model.maximize(tm.variables.played)
    solver, status = tries.solve_primary(
        tm.model, True, budget, tm.variables.played, probe_last=tm.data.wild_runs_possible
    )
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    move = rebuild_move(tm, solver)
    play = judge_move(position, move, max_placed=_no_add, search_rules=False)
    if not play.legal or not play.played:
        return None
    _, new = changed_indices(position, play.table)
    melds = " | ".join(" ".join(tc.code for tc in play.table[j]) for j in new)
    return f"{format_cards(play.played)} laid as {melds}"


def _max_played(position: Position, max_new_melds: int | None, budget: Budget) -> int:
    tm = TurnModel(position, _search_options(position, max_new_melds, None))
    tm.model.maximize(tm.variables.played)
    solver, status = tries.solve_primary(
        tm.model,
        True,
        budget,
        tm.variables.played,
        probe_last=tm.data.wild_runs_possible,
        third_round=True,
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
    budget = Budget(time_limit_ms)
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
    budget = Budget(time_limit_ms)
    if not position.hand or not play_allowed(position):
        return SolveResult((), True, SolveStats(status="NO_PLAY_ALLOWED"))
    if max_moves == 1 and DECK_MELDS and deck_melds.applies(position):
        answer = _solve_deck_melds(position, objective, budget, started)
        if answer is not None:
            return answer
    tm, oracle = _turn_model(position, budget)
    moves, first_proved, objective_value = _search_moves(
        position, tm, oracle, objective, max_moves, budget
    )
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
        tie_break_proved=(budget.tie_break_proved is not False and tm.data.keeps_exact)
        or (bool(moves) and moves[0].melds_changed == 0),
        time_limited=budget.time_limited,
    )
    return SolveResult(tuple(moves), optimal, stats)


def _search_moves(
    position: Position,
    tm: TurnModel,
    oracle: PlacedOracle | None,
    objective: Objective,
    max_moves: int,
    budget: Budget,
) -> tuple[list[SolvedMove], bool | None, float]:
    """The moves of the turn model, in the order found, each solve excluding the solutions
    before; whether the first was proved best (None: no move) and its primary value.
    `optimal` speaks of the first move (proto: "proved the first move optimal"): further
    moves that a time limit cuts short do not unsay it."""
    moves: list[SolvedMove] = []
    seen: set[TableKey] = set()
    objective_value = 0.0
    first_proved: bool | None = None
    # A proved optimum bounds every later solve, whose model only excludes more tables.
    ceiling: int | None = None
    primary = tries.primary_objective(tm, objective)[0]
    for _ in range(MOVE_ATTEMPTS * (max_moves + 1)):
        if len(moves) >= max_moves:
            break
        solver = tries.solve_lexicographic(tm, objective, budget, ceiling)
        if solver is None:
            break
        value = round(solver.value(primary))
        if first_proved is None:
            first_proved = budget.optimal
            # The primary objective's value (the solver's may be the tie-break's).
            objective_value = float(value)
        ceiling = value if budget.optimal else None
        shown = _unseen_table(tm, rebuild_move(tm, solver), seen if max_moves > 1 else None)
        if shown is not None:
            moves.append(_checked(position, shown, oracle))
        if len(moves) < max_moves:
            forbid(tm, solver)
            if time.monotonic() >= budget.deadline:
                budget.time_limited = True
                break
    return moves, first_proved, objective_value


def _unseen_table(tm: TurnModel, move: Move, seen: set[TableKey] | None) -> Move | None:
    """The table to list for a solution, None where every table it shows is listed already
    (``seen``: the tables listed, which it records; None: a single move, none to differ
    from). Where the model's count is an upper bound, the table with cards traded to lay
    more melds again; once that table is listed, the solution's own (another table)."""
    for shown in [lay_again(tm, move), move] if not tm.data.keeps_exact else [move]:
        if seen is None:
            return shown
        key = table_key(shown)
        if key not in seen:
            seen.add(key)
            return shown
    return None


_MEASURES = {
    Objective.MOST_CARDS: deck_melds.Measure.CARDS,
    Objective.FEWEST_POINTS: deck_melds.Measure.POINTS,
    Objective.GO_OUT: deck_melds.Measure.GO_OUT,
}


def _solve_deck_melds(
    position: Position, objective: Objective, budget: Budget, started: float
) -> SolveResult | None:
    """The best move on the model of the deck's melds (``model.deck_melds``), proved; None
    where the solve stopped unproved (the turn model then answers, in the time left)."""
    choice = deck_melds.build(position, _MEASURES[objective])
    if choice is None:
        return None
    solver = budget.solver(share=0.5, work=tries.WEIGHTED_DTIME, lean=True)
    try:
        status = solver.solve(choice.model)
    finally:
        choice.release()
    if status != cp_model.OPTIMAL:
        budget.record(solver, status, primary=False)
        return None
    budget.record(solver, status, primary=True)
    move = deck_melds.read(position, choice, solver.response_proto.solution)
    moves: tuple[SolvedMove, ...] = ()
    if move is not None and choice.deck.table_jokers is not None:
        # With jokers on the table the model holds every legal move and perhaps a few that
        # move a joker R5 does not release: its best is the answer only where it is legal.
        verdict = validate_move(position, move)
        if not verdict.legal:
            return None
        moves = (solved_move(position, move, verdict),)
    elif move is not None:
        moves = (_checked(position, move),)
    stats = SolveStats(
        wall_time_ms=(time.monotonic() - started) * 1000.0,
        status=_status(bool(moves), True),
        objective_value=_primary_value(position, moves[0].verdict, objective) if moves else 0.0,
        conflicts=budget.conflicts,
        branches=budget.branches,
        solves=budget.solves,
        tie_break_proved=True,
        time_limited=budget.time_limited,
    )
    return SolveResult(moves, True, stats)


def _primary_value(position: Position, verdict: Verdict, objective: Objective) -> float:
    """A legal move's value under ``objective``, as ``tries.primary_objective`` counts it."""
    played = len(verdict.played)
    if objective is Objective.FEWEST_POINTS:
        return float(verdict.hand_points_after)
    if objective is Objective.GO_OUT:
        return float(verdict.went_out * (len(position.hand) + 1) + played)
    return float(played)


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


def legal_turn_model(position: Position, budget: Budget) -> tuple[TurnModel, PlacedOracle | None]:
    """The model of this turn's legal plays with R8's largest add settled, and the
    validator's oracle for the moves it finds (as ``solve_move`` builds it, but with the
    pool's run templates, which the suggestion of ValidateMove names, ``suggest``)."""
    return _turn_model(position, budget, run_flow=False)


def _search_options(
    position: Position,
    max_new_melds: int | None,
    add_size: int | None,
    run_flow: bool | None = None,
) -> ModelOptions:
    """The turn's options for a search: its any-suit runs counted as a flow (the same
    tables, a smaller model: ``model.run_flow``) where ``run_flow`` (by default
    ``RUN_FLOW``), and each rank's groups flagged in the rulesets of ``GROUP_FLAGS``
    (``model.group_flags``), but not in the suggestion's model (``run_flow`` given), whose
    search was not measured with them."""
    flow = RUN_FLOW if run_flow is None else run_flow
    flags = run_flow is None and position.ruleset.id in GROUP_FLAGS
    options = turn_options(position, max_new_melds, add_size)
    return dataclasses.replace(options, run_flow=flow, group_flags=flags)


def _turn_model(
    position: Position, budget: Budget, run_flow: bool | None = None
) -> tuple[TurnModel, PlacedOracle | None]:
    """The model of this turn's plays, and for R8's "an add must be maximal" the largest
    add, found first (the validator's oracle for the moves found)."""
    rs = position.ruleset
    if not rs.rearrangement.add_must_be_maximal:
        return TurnModel(
            position, _search_options(position, rs.rearrangement.max_new_melds, None, run_flow)
        ), None
    # Meld plays need no largest add (R8), so an add that cannot be settled must leave
    # them time, or the answer holds no move at all.
    with budget.part(ADD_SHARE):
        add_size = _max_played(position, 0, budget)
    if not budget.optimal:
        # The largest add is not known, so no add can be shown maximal (R8): only meld
        # plays are offered, and the answer is not optimal (the budget says so already).
        return TurnModel(
            position, _search_options(position, rs.rearrangement.max_new_melds, NO_ADD, run_flow)
        ), _no_add
    options = _search_options(position, rs.rearrangement.max_new_melds, add_size, run_flow)
    tm = TurnModel(position, options)
    return tm, _known_largest_add(add_size)


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
        table = " | ".join(format_cards(meld) for meld in move.table)
        raise SolverError(f"the solver proposed an illegal move [{table}]: {reasons}")
    return solved_move(position, move, verdict)


def solved_move(position: Position, move: Move, verdict: Verdict) -> SolvedMove:
    """A legal move with its effects: the table as the referee read it (every wild's value
    written out) and how many of the position's melds it changes."""
    unkept, new = changed_indices(position, verdict.table)
    fresh = set(new)
    return SolvedMove(
        Move(verdict.table, move.to_hand, move.knock, move.discard),
        verdict,
        len(verdict.played),
        len(unkept),
        tuple(j in fresh for j in range(len(verdict.table))),
        unkept,
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
    knock_witness: SolvedMove | None = None  # the fewest points among plays that may knock


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
    knock_witness = top if can_knock else None  # the fewest points of all: of knocks too
    optimal = best.optimal
    if rs.knock_threshold and can_go_out:
        # Going out leaves 0 points; a knock needs a hand worth 1..threshold after a play.
        left_ms = max(round((deadline - time.monotonic()) * 1000.0), 1)
        knock_witness, settled, cut = _fewest_points_knock(position, left_ms)
        optimal = optimal and settled
        can_knock = can_knock or knock_witness is not None
        time_limited = time_limited or cut
    return KnockReach(points, can_knock, can_go_out, witness, optimal, time_limited, knock_witness)


def _fewest_points_knock(
    position: Position, time_limit_ms: int
) -> tuple[SolvedMove | None, bool, bool]:
    """The play that leaves the fewest points among those leaving 1..threshold (R10): the
    knock witness where the hand can also go out. Returns it (re-checked by the referee) or
    None, whether "can a play knock?" is settled (one found, or none proved), and
    whether the clock stopped a solve (``SolveStats.time_limited``)."""
    budget = Budget(time_limit_ms)
    tm, oracle = _turn_model(position, budget)
    tm.model.add(tm.variables.hand_points_after >= 1)
    tm.model.add(tm.variables.hand_points_after <= position.ruleset.knock_threshold)
    tm.model.minimize(tm.variables.hand_points_after)
    solver, status = tries.solve_primary(
        tm.model,
        False,
        budget,
        tm.variables.hand_points_after,
        probe_last=tm.data.wild_runs_possible,
        third_round=position.ruleset.rearrangement.add_must_be_maximal,
    )
    budget.record(solver, status, primary=False)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None, status == cp_model.INFEASIBLE, budget.time_limited
    move = rebuild_move(tm, solver)
    play = _checked(position, move, oracle)
    if not play.verdict.knock_eligible:
        raise SolverError(
            f"the solver's knock play leaves {play.verdict.hand_points_after} points (R10)"
        )
    # Whether a knock is reachable is settled by any such play; ``optimal`` speaks of
    # best_hand_points, not of the witness being the very fewest.
    return play, True, budget.time_limited
