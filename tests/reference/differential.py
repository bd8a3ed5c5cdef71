"""CP-SAT versus the brute-force reference on one position, and a minimiser for failures.

``compare(ruleset_id, seed)`` builds the seeded random position, solves it both ways and
returns an ``Outcome``: every disagreement as a sentence, plus coverage flags saying what the
position exercised (a play exists, a wild had to be released, going out, …). It is a plain
module-level function so that a process pool can run it.

Run as a script to hunt disagreements and print them, minimised, as markdown (the material
of ``DISAGREEMENTS.md``)::

    python -m tests.reference.differential [N] [ruleset ...]
    python -m tests.reference.differential mexe-mexe:264 rummikub:632
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from solver.core.cards import Card
from solver.core.rulesets import SuitRule
from solver.rearrangement.model import ModelOptions, TurnModel
from solver.rearrangement.search import (
    KnockReach,
    Objective,
    SolverError,
    SolveResult,
    knock_reach,
    max_cards_placed,
    solve_move,
    validate_move,
)
from solver.rummy.melds import MeldKind, classify
from solver.rummy.position import Move, Position
from tests.reference.bruteforce import (
    Best,
    Optima,
    as_seen,
    base_validator,
    format_move,
    laid,
    legal_moves_where,
    solve,
)
from tests.reference.positions import (
    MAX_WILDS,
    REARRANGEMENT,
    PositionSpec,
    random_spec,
    release_twins,
)

# Every MOVES_EVERY-th position asks the solver for several moves, all of which must be legal
# and distinct.
MOVES_EVERY = 10
SEVERAL_MOVES = 3


@dataclass
class Outcome:
    """The comparison on one position."""

    ruleset: str
    seed: int
    spec: PositionSpec
    problems: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    reference_seconds: float = 0.0
    solver_seconds: float = 0.0

    @property
    def agrees(self) -> bool:
        return not self.problems

    def report(self) -> str:
        return f"seed {self.seed}: {self.spec}\n  " + "\n  ".join(self.problems)


def _best_text(best: Best | None) -> str:
    if best is None:
        return "no legal play"
    return f"{best.value} by [{format_move(best.witness.move)}]"


def _solver_text(result: SolveResult) -> str:
    if not result.moves:
        return f"no move (optimal={result.optimal})"
    top = result.moves[0]
    return (
        f"[{format_move(top.move)}] laying {top.cards_played}, leaving "
        f"{top.verdict.hand_points_after} points, went_out={top.verdict.went_out} "
        f"(optimal={result.optimal})"
    )


def _ace_flags(optima: Optima, position: Position) -> set[str]:
    flags: set[str] = set()
    best = optima.most_cards
    if best is None:
        return flags
    for meld in best.witness.move.table:
        reading = classify(position.ruleset, meld).reading
        if reading.kind is MeldKind.SEQUENCE:
            if reading.positions[0] == 1:
                flags.add("ace_low")
            if reading.positions[-1] == 14:
                flags.add("ace_high")
    return flags


def reference_flags(optima: Optima, position: Position) -> set[str]:
    """What the position exercised, by the reference's optima and witnesses."""
    ruleset = position.ruleset
    flags: set[str] = set()
    if any(
        tc.value is not None or ruleset.is_wild_card(tc.card) for m in position.table for tc in m
    ):
        flags.add("table_wild")
    if not optima.any_play:
        flags.add("no_play")
        return flags
    assert optima.most_cards is not None and optima.fewest_points is not None
    flags.add("play")
    most = optima.most_cards.witness
    if most.releases:
        flags.add("release_needed_most")  # every move laying the most cards releases a wild
    if optima.fewest_points.witness.releases:
        flags.add("release_needed_points")
    if most.releases or optima.fewest_points.witness.releases:
        flags.add("release_needed")
    witnesses = (optima.most_cards, optima.fewest_points, optima.go_out)
    if any(b.witness.move.to_hand for b in witnesses if b):
        flags.add("to_hand_needed")  # an optimum needs a released 2 taken back (R5)
    if optima.to_hand is not None:
        flags.add("to_hand")  # a legal play takes a released 2 back to the hand
    if optima.go_out is not None:
        flags.add("go_out")
    if optima.knock is not None:
        flags.add("knock")  # R10: some play allows a knock
        if optima.go_out is not None:
            flags.add("knock_or_go_out")  # the lowest total (0) is not a knock: a search of its own
    if most.new_melds > 0:
        flags.add("meld_play")
    if optima.add_only is not None:
        flags.add("add_play")
        if optima.add_only.value < optima.most_cards.value:
            flags.add("meld_beats_add")
    if ruleset.rearrangement.opening_points and not position.turn.has_opened:
        flags.add("opening_play")
    flags |= _ace_flags(optima, position)
    return flags


def _check_move_legal(
    position: Position, optima: Optima, result: SolveResult, what: str, problems: list[str]
) -> None:
    """Every returned move: legal for the validator, and for the reference's own R8 check;
    and no two moves alike (SPEC §4: a different table or different cards played).

    The validator's R8 search question goes to the reference (not to CP-SAT, which
    ``solve_move`` has already consulted when it re-checked its own moves).
    """
    largest_add = optima.add_only.value if optima.add_only else 0
    seen = [as_seen(m.move) for m in result.moves]
    for k, move_seen in enumerate(seen):
        if move_seen in seen[:k]:
            problems.append(
                f"{what}: move {k} [{format_move(result.moves[k].move)}] is an earlier move again"
            )
    for k, solved in enumerate(result.moves):
        move = solved.move
        full = validate_move(position, move, max_placed=optima.max_placed)
        if not full.legal:
            problems.append(
                f"{what}: move {k} [{format_move(move)}] is illegal: "
                + "; ".join(str(v) for v in full.violations)
            )
        base = base_validator(position, move)
        net = len(move.table) - len(position.table)
        maximal_rule = position.ruleset.rearrangement.add_must_be_maximal
        if base.legal and maximal_rule and net <= 0 and len(base.played) != largest_add:
            problems.append(
                f"{what}: move {k} [{format_move(move)}] is an add of "
                f"{solved.cards_played} card(s) but the reference's largest add lays "
                f"{largest_add} (R8)"
            )


def compare_position(spec: PositionSpec, seed: int = -1, several: int = 1) -> Outcome:
    """Solve one position both ways and list every disagreement.

    ``several``: how many moves to ask the solver for (each must be legal).
    """
    position = spec.build()
    outcome = Outcome(position.ruleset.id, seed, spec)
    started = time.perf_counter()
    optima = solve(position)
    outcome.reference_seconds = time.perf_counter() - started
    outcome.flags = reference_flags(optima, position)
    problems = outcome.problems
    problems.extend(f"reference note: {n}" for n in optima.notes)
    started = time.perf_counter()
    results: dict[Objective, SolveResult] = {}
    for objective in Objective:
        try:
            results[objective] = solve_move(position, objective, max_moves=several)
        except SolverError as exc:
            problems.append(f"{objective.name}: SolverError: {exc}")
    add_placed: int | None = None
    if position.ruleset.rearrangement.add_must_be_maximal:
        add_placed = max_cards_placed(position, max_new_melds=0)
    reach: KnockReach | None = None
    if position.ruleset.knock_threshold:
        try:
            reach = knock_reach(position)
        except SolverError as exc:
            problems.append(f"CheckKnock: SolverError: {exc}")
    outcome.solver_seconds = time.perf_counter() - started

    for objective, result in results.items():
        what = objective.name
        if not result.optimal:
            problems.append(f"{what}: the solver did not prove optimality")
        if bool(result.moves) != optima.any_play:
            problems.append(
                f"{what}: the solver returned {_solver_text(result)}; the reference finds "
                f"{_best_text(optima.most_cards)}"
            )
            continue
        _check_move_legal(position, optima, result, what, problems)
        if not result.moves:
            continue
        top = result.moves[0]
        if objective is Objective.MOST_CARDS:
            assert optima.most_cards is not None
            if top.cards_played != optima.most_cards.value:
                problems.append(
                    f"{what}: solver {_solver_text(result)}; reference most cards "
                    f"{_best_text(optima.most_cards)}"
                )
            else:
                _check_tie_break(result, optima, outcome)
        elif objective is Objective.FEWEST_POINTS:
            assert optima.fewest_points is not None
            if top.verdict.hand_points_after != optima.fewest_points.value:
                problems.append(
                    f"{what}: solver {_solver_text(result)}; reference fewest points "
                    f"{_best_text(optima.fewest_points)}"
                )
        elif top.verdict.went_out != (optima.go_out is not None):
            problems.append(
                f"{what}: solver {_solver_text(result)}; reference going out "
                f"{_best_text(optima.go_out)}"
            )
    for objective in (Objective.MOST_CARDS, Objective.FEWEST_POINTS):
        if objective in results and len(results[objective].moves) > 1:
            _check_later_moves(position, optima, results[objective], objective, problems)
    if reach is not None:
        _check_knock(position, optima, reach, problems)
    if add_placed is not None:
        expected = optima.add_only.value if optima.add_only else 0
        if add_placed != expected:
            problems.append(
                f"max_cards_placed(max_new_melds=0) = {add_placed}; reference largest add "
                f"{_best_text(optima.add_only)}"
            )
    return outcome


def solution_key(
    position: Position, move: Move, played: Sequence[Card]
) -> tuple[tuple[object, ...], ...]:
    """Nearly what a solution of the CP-SAT model fixes (docs/solver.md, on `max_moves`):
    the cards played and taken back, how many runs cover each place (per suit where runs
    keep one) and how many groups of each rank and size there are. Tables that differ only
    in which of those cards sit in which meld share it, as they share a solution; so do
    tables whose runs are cut at other places, which is a little more forgiving than the
    model (there only rummikub's long runs, laid in pieces, are cut anywhere)."""
    rs = position.ruleset
    same_suit = rs.melds.sequence_suits is SuitRule.SAME_SUIT
    places: Counter[tuple[int, str]] = Counter()
    groups: Counter[tuple[int, int]] = Counter()
    for meld in move.table:
        reading = classify(rs, meld).reading
        assert reading is not None, f"an illegal meld in a legal move: {format_move(move)}"
        if reading.kind is MeldKind.GROUP:
            groups[(reading.rank, len(meld))] += 1
        else:
            for p in reading.positions:
                places[(p, (reading.suit or "") if same_suit else "")] += 1
    return (
        tuple(sorted(places.items())),
        tuple(sorted(groups.items())),
        tuple(sorted(c.code for c in played)),
        tuple(sorted(c.code for c in move.to_hand)),
    )


def _check_later_moves(
    position: Position,
    optima: Optima,
    result: SolveResult,
    objective: Objective,
    problems: list[str],
) -> None:
    """SPEC §4 "best first": each further move is the best solution unlike those before it,
    so every legal move strictly better than move k shares its ``solution_key`` with one of
    moves 0..k-1 (the model cannot tell such tables apart, docs/solver.md)."""
    largest_add = optima.add_only.value if optima.add_only else 0
    # One enumeration for all further moves: every legal move better than the last one.
    last = result.moves[-1]
    if objective is Objective.MOST_CARDS:
        count = last.cards_played
        candidates = legal_moves_where(position, lambda _, s: laid(s) > count, largest_add)
    else:
        points = last.verdict.hand_points_after
        candidates = legal_moves_where(
            position, lambda e, s: e.points_after(s) < points, largest_add
        )
    for k, solved in enumerate(result.moves[1:], start=1):
        if objective is Objective.MOST_CARDS:
            better = [c for c in candidates if len(c.played) > solved.cards_played]
        else:
            limit = solved.verdict.hand_points_after
            better = [c for c in candidates if c.points_after < limit]
        listed = {solution_key(position, m.move, m.verdict.played) for m in result.moves[:k]}
        missed = [c for c in better if solution_key(position, c.move, c.played) not in listed]
        if missed:
            problems.append(
                f"{objective.name}: move {k} [{format_move(solved.move)}] is not the best "
                f"left: {len(missed)} better legal move(s) unlike those before it, e.g. "
                f"[{format_move(missed[0].move)}]"
            )


def _check_knock(
    position: Position, optima: Optima, reach: KnockReach, problems: list[str]
) -> None:
    """CheckKnock without a move (R10): the lowest hand total reachable, whether a knock and
    going out are reachable, and a legal witness that reaches that total."""
    best = optima.fewest_points.value if optima.fewest_points else None
    if reach.best_hand_points != best:
        problems.append(f"CheckKnock: best hand points {reach.best_hand_points}; reference {best}")
    if reach.can_knock != (optima.knock is not None):
        problems.append(
            f"CheckKnock: can_knock {reach.can_knock}; reference {_best_text(optima.knock)}"
        )
    if reach.can_go_out != (optima.go_out is not None):
        problems.append(
            f"CheckKnock: can_go_out {reach.can_go_out}; reference {_best_text(optima.go_out)}"
        )
    if not reach.optimal:
        problems.append("CheckKnock: the solver did not prove its answer")
    if reach.witness is not None:
        verdict = validate_move(position, reach.witness.move, max_placed=optima.max_placed)
        if not verdict.legal or verdict.hand_points_after != reach.best_hand_points:
            problems.append(
                f"CheckKnock: witness [{format_move(reach.witness.move)}] is illegal or does "
                f"not leave {reach.best_hand_points} points"
            )


def _check_tie_break(result: SolveResult, optima: Optima, outcome: Outcome) -> None:
    """SPEC §4 tie-break: the fewest melds changed among the most-cards optima. Where the
    solver proved its tie-break the counts must be equal; where a work limit stopped it, it
    may change more melds than needed (flagged ``tie_break_short``), never fewer."""
    changed = result.moves[0].melds_changed
    fewest = optima.fewest_changed
    assert fewest is not None
    if changed == fewest:
        return
    if changed > fewest and not result.stats.tie_break_proved:
        outcome.flags.add("tie_break_short")
        return
    proved = "proved" if result.stats.tie_break_proved else "unproved"
    outcome.problems.append(
        f"MOST_CARDS: the solver's move changes {changed} melds ({proved}); the reference's "
        f"fewest for that optimum is {fewest} (SPEC §4 tie-break)"
    )


def compare(job: tuple[str, int] | tuple[str, int, int]) -> Outcome:
    """``compare_position`` on the seeded random position ``job = (ruleset_id, seed)``, or
    ``(ruleset_id, seed, max_wilds)`` for more wild-capable cards than by default."""
    ruleset_id, seed = job[0], job[1]
    max_wilds = job[2] if len(job) > 2 else MAX_WILDS
    several = SEVERAL_MOVES if seed % MOVES_EVERY == 0 else 1
    return compare_position(random_spec(ruleset_id, seed, max_wilds), seed, several)


def compare_release_twin(job: tuple[str, int]) -> Outcome | None:
    """``compare_position`` on the first of ``release_twins(ruleset_id, seed)`` whose model
    counts a meld kept via a slot (``KeptMelds.in_slot``); None if none does."""
    ruleset_id, seed = job
    for spec in release_twins(ruleset_id, seed):
        position = spec.build()
        options = ModelOptions(max_new_melds=position.ruleset.rearrangement.max_new_melds)
        if TurnModel(position, options).variables.kept.in_slot:
            return compare_position(spec, seed)
    return None


# ------------------------------------------------------------------------------------------
# Minimising a disagreement


def _smaller(spec: PositionSpec) -> list[PositionSpec]:
    """Positions with one hand card or one table meld less (still valid positions)."""
    out: list[PositionSpec] = []
    for i in range(len(spec.hand)):
        if len(spec.hand) > 1:
            out.append(replace(spec, hand=spec.hand[:i] + spec.hand[i + 1 :]))
    for m in range(len(spec.table)):
        out.append(replace(spec, table=spec.table[:m] + spec.table[m + 1 :]))
    for m, meld in enumerate(spec.table):
        for c in range(len(meld)):
            shorter = meld[:c] + meld[c + 1 :]
            out.append(replace(spec, table=(*spec.table[:m], shorter, *spec.table[m + 1 :])))
    return out


def minimise(spec: PositionSpec, fails: Callable[[PositionSpec], bool]) -> PositionSpec:
    """Greedily drop hand cards, melds and meld cards while ``fails`` still holds."""
    current = spec
    improved = True
    while improved:
        improved = False
        for smaller in _smaller(current):
            try:
                smaller.build()
            except ValueError:
                continue  # an invalid meld or position: not a candidate
            if fails(smaller):
                current = smaller
                improved = True
                break
    return current


def report_section(ruleset_id: str, seed: int) -> list[str]:
    """A markdown section for one disagreeing seed: as generated, then minimised."""
    outcome = compare((ruleset_id, seed))
    several = SEVERAL_MOVES if seed % MOVES_EVERY == 0 else 1

    def fails(spec: PositionSpec) -> bool:
        return not compare_position(spec, several=several).agrees

    small = minimise(outcome.spec, fails)
    again = compare_position(small, several=several)
    asked = f" (max_moves={several})" if several > 1 else ""
    return [
        f"### {ruleset_id}, seed {seed}{asked}",
        "",
        f"Generated: `{outcome.spec}`",
        "",
        *[f"- {p}" for p in outcome.problems],
        "",
        f"Minimised: `{small}`",
        "",
        *[f"- {p}" for p in again.problems],
        "",
    ]


def main(argv: list[str]) -> int:
    """Print markdown sections for disagreements, minimised.

    Arguments: ``N [ruleset ...]`` hunts seeds 0..N-1 (all six rulesets by default), or
    ``ruleset:seed ...`` reports exactly those seeds.
    """
    if argv and ":" in argv[0]:
        jobs = [(a.split(":")[0], int(a.split(":")[1])) for a in argv]
    else:
        n = int(argv[0]) if argv else 1000
        jobs = [(r, s) for r in argv[1:] or REARRANGEMENT for s in range(n)]
    found = 0
    for ruleset_id, seed in jobs:
        if compare((ruleset_id, seed)).agrees:
            continue
        found += 1
        print("\n".join(report_section(ruleset_id, seed)), flush=True)
    print(f"{found} disagreement(s) in {len(jobs)} position(s)", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
