"""Issue 4's "Checked by", end to end: SolveMove and CheckKnock through gRPC give the optima.

The product owner checks the service through ``carrossel.v1.RummyService``: the most cards
placed and the best reachable hand points must equal the expected ones exactly, and every
returned move must validate. ``test_solver_vs_bruteforce.py`` proves the solver in-process;
this proves the wire around it (the parse of the ruleset, players, table with written wild
values, hand and every turn flag, and the answer's conversion) on positions of the same
kinds, each sent as a client sends it:

- small random positions of the six rearrangement rulesets (``tests.reference.positions``,
  seeds of their own): SolveMove with each objective and CheckKnock without a move must
  give the brute force's optima, and every returned move and CheckKnock witness, sent back
  to ValidateMove, must be legal with the effects the answer reported;
- mid and large dealt tables (``bench.positions``, with jokers or mexe-mexe 2s), whose
  optima the brute force cannot reach: each call must answer exactly as ``solve_move`` on
  the position parsed in this process.

The rulings it reaches through the wire: R1-R10 as the brute force reads them (the
positions hold wilds to release and mexe-mexe 2s taken back, R5, aces at both ends, R2,
going out, R9), the turn flags of R7 (vatikan's first meld a sequence,
``has_melded_sequence``) and R8 (a draw before a play, ``cards_drawn`` and ``stock_empty``;
rummikub's opening, ``has_opened``), and R10's CheckKnock. Malformed requests
(INVALID_ARGUMENT with field violations) are ``test_service_errors.py``'s and
``test_service_fuzz.py``'s.
"""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest

from bench.over_grpc import position_proto
from bench.positions import SIZES, PositionSpec, random_position
from carrossel.v1 import rummy_pb2, rummy_pb2_grpc
from service.rummy.convert import move_to_proto
from solver.core.rulesets import RULESETS
from solver.rearrangement.search import Objective, solve_move
from solver.rearrangement.turns import draws_before_play
from solver.rummy.position import Turn
from tests.answer_checks import DEADLINE_S, effects_problems, judge, witness_problems
from tests.reference.bruteforce import Optima, solve
from tests.reference.differential import reference_flags
from tests.reference.positions import REARRANGEMENT, random_spec

POSITIONS = int(os.environ.get("CARROSSEL_GRPC_OPTIMA_POSITIONS", "30"))  # per ruleset
DEALT = int(os.environ.get("CARROSSEL_GRPC_DEALT_POSITIONS", "3"))  # per ruleset and size
MOVES = 2  # moves asked per call: each must validate

OBJECTIVES = {
    Objective.MOST_CARDS: rummy_pb2.OBJECTIVE_MOST_CARDS,
    Objective.FEWEST_POINTS: rummy_pb2.OBJECTIVE_FEWEST_POINTS,
    Objective.GO_OUT: rummy_pb2.OBJECTIVE_GO_OUT,
}

# What the small positions must exercise, over all six rulesets (measured: each at least
# twice as often, most of them four times).
COVERAGE = {
    "play": 60,
    "no_play": 6,
    "go_out": 20,
    "release_needed": 6,
    "knock": 3,
    "to_hand": 3,
    "opening_play": 3,
    "meld_beats_add": 2,
    "ace_low": 6,
    "ace_high": 6,
}


def _solve_move_problems(
    stub: rummy_pb2_grpc.RummyServiceStub, position: rummy_pb2.RummyPosition, optima: Optima
) -> list[str]:
    problems = []
    for objective, wire in OBJECTIVES.items():
        what = f"SolveMove {objective.name}"
        response = stub.SolveMove(
            rummy_pb2.SolveMoveRequest(position=position, objective=wire, max_moves=MOVES),
            timeout=DEADLINE_S,
        )
        if not response.optimal:
            problems.append(f"{what}: not proved optimal")
        if not response.moves:
            if optima.most_cards is not None:
                problems.append(f"{what}: no move; the reference lays {optima.most_cards.value}")
            continue
        if optima.most_cards is None or optima.fewest_points is None:
            problems.append(f"{what}: a move where the reference finds no legal play")
            continue
        best = response.moves[0]
        if objective is Objective.MOST_CARDS:
            if len(best.played) != optima.most_cards.value:
                problems.append(
                    f"{what}: lays {len(best.played)}; the reference {optima.most_cards.value}"
                )
            elif optima.fewest_changed is not None and (
                best.melds_changed < optima.fewest_changed
                or (response.stats.tie_break_proved and best.melds_changed != optima.fewest_changed)
            ):
                problems.append(
                    f"{what}: {best.melds_changed} melds changed (proved: "
                    f"{response.stats.tie_break_proved}); the reference's fewest "
                    f"{optima.fewest_changed}"
                )
        elif objective is Objective.FEWEST_POINTS:
            if best.hand_points_after != optima.fewest_points.value:
                problems.append(
                    f"{what}: leaves {best.hand_points_after} points; the "
                    f"reference {optima.fewest_points.value}"
                )
        elif best.went_out != (optima.go_out is not None):
            problems.append(
                f"{what}: went_out {best.went_out}; the reference can go out: "
                f"{optima.go_out is not None}"
            )
        for k, solved in enumerate(response.moves):
            verdict = judge(stub, position, solved.move)
            problems += effects_problems(f"{what} move {k}", solved, verdict)
    return problems


def _check_knock_problems(
    stub: rummy_pb2_grpc.RummyServiceStub,
    position: rummy_pb2.RummyPosition,
    optima: Optima,
    points_now: int,
) -> list[str]:
    """R10 without a move: with no legal play the best total is the hand's own."""
    response = stub.CheckKnock(rummy_pb2.CheckKnockRequest(position=position), timeout=DEADLINE_S)
    best = optima.fewest_points.value if optima.fewest_points else points_now
    expected = (best, optima.knock is not None, optima.go_out is not None, True, optima.any_play)
    found = (
        response.best_hand_points,
        response.can_knock,
        response.can_go_out,
        response.optimal,
        response.HasField("witness"),
    )
    if found != expected:
        return [
            f"CheckKnock (best_hand_points, can_knock, can_go_out, optimal, witness) "
            f"{found}; the reference {expected}"
        ]
    return witness_problems(stub, position, response)


@pytest.fixture(scope="module")
def coverage() -> Counter[str]:
    return Counter()


@pytest.mark.parametrize("ruleset_id", REARRANGEMENT)
def test_grpc_answers_equal_the_bruteforce_optima(
    ruleset_id: str, rummy_stub: rummy_pb2_grpc.RummyServiceStub, coverage: Counter[str]
) -> None:
    failures = []
    for k in range(POSITIONS):
        spec = random_spec(ruleset_id, f"grpc/{k}")
        position = spec.build()
        optima = solve(position)
        coverage.update(reference_flags(optima, position))
        coverage[f"ruleset {ruleset_id}"] += 1
        wire = position_proto(spec)
        points_now = position.ruleset.hand_points(position.hand)
        problems = _solve_move_problems(rummy_stub, wire, optima)
        problems += _check_knock_problems(rummy_stub, wire, optima, points_now)
        if problems:
            failures.append(f"{spec}\n  " + "\n  ".join(problems))
    assert not failures, f"{len(failures)} of {POSITIONS} positions:\n" + "\n".join(failures[:5])


def test_the_positions_sent_cover_the_interesting_cases(coverage: Counter[str]) -> None:
    """Runs after the six comparisons above (pytest keeps a module's order)."""
    if POSITIONS < 30 or any(coverage[f"ruleset {r}"] < POSITIONS for r in REARRANGEMENT):
        pytest.skip("the six comparisons did not all run in full in this session")
    short = {
        flag: (coverage[flag], least) for flag, least in COVERAGE.items() if coverage[flag] < least
    }
    assert not short, f"(found, needed) per flag: {short}; all counts: {dict(coverage)}"


def _dealt(ruleset_id: str) -> list[PositionSpec]:
    rng = random.Random(f"grpc-dealt/{ruleset_id}")
    drawn = draws_before_play(RULESETS[ruleset_id])
    specs: list[PositionSpec] = []
    for size in ("mid", "large"):
        for _ in range(DEALT):
            opening = drawn == 0 and rng.random() < 0.5
            specs.append(
                random_position(
                    rng,
                    ruleset_id,
                    table_size=SIZES[size],
                    hand_size=(3, 18),
                    table_jokers=rng.randint(0, 2),
                    table_twos=rng.randint(1, 5) if ruleset_id == "mexe-mexe" else 0,
                    hand_jokers=rng.randint(0, 2),
                    hand_melds=rng.randint(0, 2),
                    turn=Turn(cards_drawn=drawn, has_opened=not opening),
                )
            )
    return specs


@pytest.mark.parametrize("ruleset_id", REARRANGEMENT)
def test_grpc_answers_equal_in_process_answers_on_big_tables(
    ruleset_id: str, rummy_stub: rummy_pb2_grpc.RummyServiceStub
) -> None:
    """Same request, same answer (issue 4): the call parses what ``parse_position`` does and
    returns each move as solved. Only solves proved on both sides compare: a time limit cut
    depends on the machine, work limits do not."""
    failures = []
    compared = 0
    for spec in _dealt(ruleset_id):
        position = position_proto(spec)
        parsed = spec.position()
        for objective, wire in OBJECTIVES.items():
            response = rummy_stub.SolveMove(
                rummy_pb2.SolveMoveRequest(position=position, objective=wire, max_moves=MOVES),
                timeout=DEADLINE_S,
            )
            local = solve_move(parsed, objective, MOVES)
            if not (response.optimal and local.optimal):
                continue
            compared += 1
            sent = [
                (list(m.move.table), list(m.played), m.hand_points_after, m.melds_changed)
                for m in response.moves
            ]
            here = [
                (
                    list(move_to_proto(m.move).table),
                    [c.code for c in m.verdict.played],
                    m.verdict.hand_points_after,
                    m.melds_changed,
                )
                for m in local.moves
            ]
            if sent != here:
                failures.append(f"{objective.name} {spec}:\n  call {sent}\n  here {here}")
    assert not failures, "\n".join(failures[:3])
    assert compared >= len(OBJECTIVES) * DEALT  # most solves are proved well within the limit
