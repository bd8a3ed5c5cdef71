"""Seeded random requests to SolveMove and CheckKnock through gRPC (SPEC §5, issue 4).

Each request starts from a random valid position of a rearrangement ruleset (small from
``tests.reference.positions``, or a dealt table of up to 100 cards from ``bench.positions``)
and may then be spoiled: a card dropped from a meld or the hand, a stray or malformed code,
melds shuffled into each other, odd turn flags, player counts and ruleset names, and
objectives, ``max_moves`` and ``time_limit_ms`` out of range. Whatever arrives:

- the answer is OK, INVALID_ARGUMENT with a ``google.rpc.BadRequest`` naming the fields,
  never INTERNAL, UNKNOWN or a deadline missed (a carioca position, whose deal is
  unset here, is INVALID_ARGUMENT: tests/test_c6_carioca_service.py fuzzes carioca);
- every move SolveMove returns is legal for ValidateMove, with the same effects, and no two
  moves are alike (a different table or different cards played);
- they come best first by the objective asked for, ``stats.objective_value`` is the first
  one's value and ``stats.status`` agrees with the moves and ``optimal`` (docs/api.md);
- CheckKnock with one of those moves says it allows a knock exactly when ValidateMove does;
- CheckKnock's witness is legal and leaves the best hand points it reports.

A failure prints the request, to replay it. ``CARROSSEL_FUZZ_REQUESTS`` sets how many and
``CARROSSEL_FUZZ_SEED`` their seed (17).
Outside the suite, 3 × 1,500 such requests (other seeds) found the repeated moves of
``test_moves_are_distinct_whatever_order_a_meld_is_written_in`` and nothing else.
"""

from __future__ import annotations

import functools
import os
import random
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from google.protobuf import text_format
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from bench.positions import SIZES
from bench.positions import PositionSpec as DealtSpec
from bench.positions import random_position as deal
from carrossel.v1 import rummy_pb2, rummy_pb2_grpc
from tests.answer_checks import DEADLINE_S, effects_problems, judge, witness_problems
from tests.reference.positions import REARRANGEMENT, random_spec
from tests.reference.positions import PositionSpec as ReferenceSpec

REQUESTS = int(os.environ.get("CARROSSEL_FUZZ_REQUESTS", "200"))
SEED = int(os.environ.get("CARROSSEL_FUZZ_SEED", "17"))

CODES = [
    r + s
    for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
    for s in "SHDC"
] + ["JK"]
MALFORMED = [
    "",
    "XX",
    "JK=",
    "JK=Z",
    "JK=10",
    "JK=QH",
    "2S=5",
    "2S=5D",
    "AS=2",
    "1S",
    "11H",
    "jk",
    " AS",
    "JK=JK",
    "2H=2H",
    "10",
]


def _start(rng: random.Random) -> tuple[str, int, list[list[str]], list[str], dict[str, Any]]:
    ruleset = rng.choice(REARRANGEMENT)
    spec: DealtSpec | ReferenceSpec
    if rng.random() < 0.6:
        spec = random_spec(ruleset, rng.randrange(10**9), max_wilds=rng.choice((0, 2, 4)))
    else:
        size = rng.choice(("small", "mid", "large"))
        spec = deal(
            rng,
            ruleset,
            table_size=SIZES[size],
            hand_size=(1, 20),
            table_jokers=rng.randint(0, 2),
            hand_jokers=rng.randint(0, 2),
        )
    turn = {
        "cards_drawn": spec.turn.cards_drawn,
        "stock_empty": spec.turn.stock_empty,
        "has_melded_sequence": spec.turn.has_melded_sequence,
        "has_opened": spec.turn.has_opened,
    }
    return ruleset, spec.players, [list(m) for m in spec.table], list(spec.hand), turn


def _spoil(
    rng: random.Random,
    ruleset: str,
    players: int,
    table: list[list[str]],
    hand: list[str],
    turn: dict[str, Any],
) -> rummy_pb2.RummyPosition:
    """Up to three random changes, any of which may make the position malformed."""
    for _ in range(rng.choice((0, 0, 0, 1, 1, 2, 3))):
        change = rng.randrange(13)
        if change == 0 and table:
            meld = rng.choice(table)
            if meld:
                meld.pop(rng.randrange(len(meld)))
        elif change == 1:
            hand.append(rng.choice(CODES))
        elif change == 2:
            (rng.choice(table) if table and rng.random() < 0.5 else hand).append(
                rng.choice(MALFORMED)
            )
        elif change == 3 and hand:
            hand.pop(rng.randrange(len(hand)))
        elif change == 4:
            turn["cards_drawn"] = rng.choice((-1, 0, 1, 2, 3, 4, 99))
        elif change == 5:
            turn["has_opened"] = not turn["has_opened"]
        elif change == 6:
            turn["has_melded_sequence"] = not turn["has_melded_sequence"]
        elif change == 7:
            turn["stock_empty"] = not turn["stock_empty"]
        elif change == 8:
            players = rng.choice((-1, 0, 1, 2, 3, 4, 5, 6, 8, 100))
        elif change == 9:
            ruleset = rng.choice((*REARRANGEMENT, "carioca", "buraco", "", "RUMMIKUB"))
        elif change == 10 and len(table) > 1:
            a, b = rng.sample(range(len(table)), 2)
            if table[a] and table[b]:
                i, j = rng.randrange(len(table[a])), rng.randrange(len(table[b]))
                table[a][i], table[b][j] = table[b][j], table[a][i]
        elif change == 11:
            table.append([rng.choice(CODES) for _ in range(rng.randint(0, 5))])
        elif change == 12 and table and hand:
            meld = rng.choice(table)
            meld.insert(rng.randint(0, len(meld)), hand.pop())
    return rummy_pb2.RummyPosition(
        ruleset=ruleset,
        players=players,
        hand=hand,
        table=[rummy_pb2.Meld(cards=m) for m in table],
        turn=rummy_pb2.Turn(**turn),
    )


@functools.cache
def _requests() -> list[tuple[rummy_pb2.SolveMoveRequest, rummy_pb2.CheckKnockRequest]]:
    rng = random.Random(SEED)
    out = []
    for _ in range(REQUESTS):
        position = _spoil(rng, *_start(rng))
        odd = rng.random() < 0.1  # a number out of range, which must be refused
        solve = rummy_pb2.SolveMoveRequest(
            position=position,
            objective=rummy_pb2.Objective.ValueType(
                rng.choice((0, 1, 2, 3, 9) if odd else (0, 1, 2, 3))
            ),
            max_moves=rng.choice((21, -1) if odd else (0, 1, 2, 3, 5)),
            time_limit_ms=rng.choice((1, 5, 50, 300, -3) if odd else (1, 5, 50, 300)),
        )
        knock = rummy_pb2.CheckKnockRequest(
            position=position, time_limit_ms=rng.choice((1, 50, 300))
        )
        out.append((solve, knock))
    return out


def _refused_properly(error: grpc.RpcError, ruleset: str) -> str | None:
    """None when the error is an allowed answer to a bad request, else what is wrong."""
    code = error.code()
    if code is not grpc.StatusCode.INVALID_ARGUMENT:
        return f"{code.name}: {error.details()}"
    status = rpc_status.from_call(error)
    for detail in status.details if status else ():
        bad = error_details_pb2.BadRequest()
        if detail.Unpack(bad) and bad.field_violations:
            return None
    return f"INVALID_ARGUMENT without BadRequest field violations: {error.details()}"


def _as_seen(move: rummy_pb2.RummyMove) -> tuple[object, ...]:
    melds = sorted(sorted(meld.cards) for meld in move.table)
    return tuple(tuple(m) for m in melds), tuple(sorted(move.to_hand))


def _answer(call: Any, request: Any) -> tuple[Any, list[str]]:
    """The call's answer, or None and what is wrong unless it was refused properly."""
    try:
        return call(request, timeout=DEADLINE_S), []
    except grpc.RpcError as error:
        wrong = _refused_properly(error, request.position.ruleset)
        return None, [f"{type(request).__name__} answered {wrong}"] if wrong else []


def _solve_problems(
    stub: rummy_pb2_grpc.RummyServiceStub, request: rummy_pb2.SolveMoveRequest
) -> list[str]:
    response, problems = _answer(stub.SolveMove, request)
    if response is None:
        return problems
    if len(response.moves) > max(request.max_moves, 1):
        problems.append(f"{len(response.moves)} moves for max_moves {request.max_moves}")
    seen = [_as_seen(solved.move) for solved in response.moves]
    if len(set(seen)) != len(seen):
        problems.append("two moves alike")
    problems += _answer_problems(request, response)
    for k, solved in enumerate(response.moves):
        verdict = judge(stub, request.position, solved.move)
        problems += effects_problems(f"move {k}", solved, verdict)
        knock = stub.CheckKnock(
            rummy_pb2.CheckKnockRequest(position=request.position, move=solved.move),
            timeout=DEADLINE_S,
        )
        if knock.eligible != verdict.knock_eligible:
            problems.append(
                f"move {k}: CheckKnock eligible {knock.eligible} ({knock.reason}), "
                f"ValidateMove knock_eligible {verdict.knock_eligible}"
            )
    return problems


def _answer_problems(
    request: rummy_pb2.SolveMoveRequest, response: rummy_pb2.SolveMoveResponse
) -> list[str]:
    """proto SolveStats: the status agrees with the moves and ``optimal``; objective_value is
    the first move's value; the moves come best first by the objective asked for."""
    problems = []
    status = (
        ("OPTIMAL" if response.optimal else "FEASIBLE")
        if response.moves
        else ("NO_LEGAL_PLAY" if response.optimal else "UNKNOWN")
    )
    if response.stats.status not in (status, "NO_PLAY_ALLOWED") or (
        response.stats.status == "NO_PLAY_ALLOWED" and response.moves
    ):
        problems.append(
            f"status {response.stats.status} for {len(response.moves)} moves, "
            f"optimal {response.optimal}"
        )
    hand = len(request.position.hand)
    by_objective: dict[int, Callable[[rummy_pb2.SolvedMove], int]] = {
        rummy_pb2.OBJECTIVE_MOST_CARDS: lambda m: len(m.played),
        rummy_pb2.OBJECTIVE_FEWEST_POINTS: lambda m: -m.hand_points_after,
        rummy_pb2.OBJECTIVE_GO_OUT: lambda m: (hand + 1) * m.went_out + len(m.played),
    }
    value = by_objective.get(request.objective)
    if value is None or not response.moves:
        return problems
    values = [value(m) for m in response.moves]
    if abs(values[0]) != response.stats.objective_value:
        problems.append(f"objective_value {response.stats.objective_value}, first move {values}")
    if values != sorted(values, reverse=True):
        problems.append(f"moves not best first: {values}")
    return problems


def _knock_problems(
    stub: rummy_pb2_grpc.RummyServiceStub, request: rummy_pb2.CheckKnockRequest
) -> list[str]:
    response, problems = _answer(stub.CheckKnock, request)
    if response is None:
        return problems
    return witness_problems(stub, request.position, response)


@pytest.mark.parametrize("n", range(0, REQUESTS, 20))
def test_random_requests_are_answered_or_refused_never_wrong(
    rummy_stub: rummy_pb2_grpc.RummyServiceStub, n: int
) -> None:
    failures = []
    for solve, knock in _requests()[n : n + 20]:
        problems = _solve_problems(rummy_stub, solve) + _knock_problems(rummy_stub, knock)
        if problems:
            failures.append(
                "; ".join(problems) + "\n" + text_format.MessageToString(solve, as_one_line=True)
            )
    assert not failures, "\n\n".join(failures)
