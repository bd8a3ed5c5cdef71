"""Issue 52: every repeated field is bounded before its elements are processed, strings are
bounded, and card codes and ruleset ids accept only their documented characters.

Before, a 2.5 MB ScoreRound with 500,000 ``totals_before`` was refused only after 2.5 s of
CPU and a 910 MB peak, and ``7ſ`` (U+017F, long s) was read as ``7S`` through Unicode case
mapping. SPEC §5: "Request size, card count and concurrent solves are bounded, and exceeding
a bound is a clear status".
"""

from __future__ import annotations

import tracemalloc
from typing import Any

import grpc
import pytest

from carrossel.v1 import rummy_pb2
from service import bounds
from solver.core.errors import InvalidRequest
from tests.ops_helpers import CARROSSEL_MOVE, error_of, field_violations


def _score_round(**fields: Any) -> rummy_pb2.ScoreRoundRequest:
    request = rummy_pb2.ScoreRoundRequest(
        ruleset="carrossel",
        players=2,
        end=rummy_pb2.ROUND_END_WENT_OUT,
        ender=0,
        hands=[rummy_pb2.Hand(cards=[]), rummy_pb2.Hand(cards=["7H"])],
    )
    for name, values in fields.items():
        getattr(request, name).extend(values)
    return request


def test_half_a_million_totals_are_refused_by_their_count(rummy_stub: Any) -> None:
    error = error_of(rummy_stub.ScoreRound, _score_round(totals_before=[1] * 500_000), timeout=30)
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    found = field_violations(error)
    assert "500000 entries" in found["totals_before"]
    assert len(error.details() or "") < 600


def test_the_count_is_read_before_any_element() -> None:
    """The check allocates next to nothing whatever the length: no element is visited."""
    request = _score_round(totals_before=[7] * 500_000)
    tracemalloc.start()
    try:
        with pytest.raises(InvalidRequest) as refused:
            bounds.check(request)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [p.field for p in refused.value.problems] == ["totals_before"]
    assert peak < 100_000


def test_half_a_million_empty_melds_are_refused_by_their_count(rummy_stub: Any) -> None:
    request = rummy_pb2.ValidateMoveRequest()
    request.CopyFrom(CARROSSEL_MOVE)
    request.position.table.extend(rummy_pb2.Meld() for _ in range(500_000))
    error = error_of(rummy_stub.ValidateMove, request, timeout=30)
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "at most 120" in field_violations(error)["position.table"]


def test_eight_huge_requests_at_once_are_all_refused(rummy_stub: Any) -> None:
    request = _score_round(totals_before=[1] * 500_000)
    futures = [rummy_stub.ScoreRound.future(request, timeout=60) for _ in range(8)]
    for future in futures:
        assert future.exception() is not None
        assert future.code() is grpc.StatusCode.INVALID_ARGUMENT


@pytest.mark.parametrize(
    ("field", "value"),
    [("ruleset", "x" * 100_000), ("ruleset", "carrossel" + "\u200b" * 100)],
)
def test_a_huge_string_is_refused_without_being_quoted(
    rummy_stub: Any, field: str, value: str
) -> None:
    request = rummy_pb2.ValidateMoveRequest()
    request.CopyFrom(CARROSSEL_MOVE)
    setattr(request.position, field, value)
    error = error_of(rummy_stub.ValidateMove, request, timeout=30)
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    found = field_violations(error)
    assert "characters" in found[f"position.{field}"]
    assert value[:20] not in (error.details() or "")


@pytest.mark.parametrize("code", ["7\u017f", "\u0131K"])  # long s, dotless i
def test_a_lookalike_card_code_is_not_case_mapped(rummy_stub: Any, code: str) -> None:
    request = rummy_pb2.ValidateMoveRequest()
    request.CopyFrom(CARROSSEL_MOVE)
    request.position.hand.append(code)
    error = error_of(rummy_stub.ValidateMove, request, timeout=30)
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "position.hand[1]" in field_violations(error)


def test_the_documented_card_characters_still_parse(rummy_stub: Any) -> None:
    """README's notation: any case, 10 or T, suit letters or symbols (with the emoji form)."""
    request = rummy_pb2.ValidateMoveRequest()
    request.CopyFrom(CARROSSEL_MOVE)
    del request.position.hand[:]
    request.position.hand.append("6\u2665\ufe0f")
    del request.move.table[:]
    request.move.table.add(cards=["6h", "7H", "8\u2660", "jk=9"])
    assert rummy_stub.ValidateMove(request, timeout=30).legal


def test_a_lookalike_ruleset_id_is_refused(rummy_stub: Any) -> None:
    """The Kelvin sign lowercases to k: 'rummi\u212aub' must not be read as rummikub."""
    request = rummy_pb2.SolveMoveRequest(
        position=rummy_pb2.RummyPosition(ruleset="rummi\u212aub", players=2, hand=["7H"])
    )
    error = error_of(rummy_stub.SolveMove, request, timeout=30)
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "ASCII" in field_violations(error)["position.ruleset"]


@pytest.mark.parametrize("max_moves", [21, 2**31 - 1, -(2**31)])
def test_max_moves_out_of_range_is_named(rummy_stub: Any, max_moves: int) -> None:
    request = rummy_pb2.SolveMoveRequest(position=CARROSSEL_MOVE.position, max_moves=max_moves)
    error = error_of(rummy_stub.SolveMove, request, timeout=30)
    assert "max_moves" in field_violations(error)


def test_a_huge_time_limit_is_capped_not_refused(rummy_stub: Any) -> None:
    """docs/api.md: time_limit_ms is capped at 30 s; negative is refused."""
    request = rummy_pb2.SolveMoveRequest(position=CARROSSEL_MOVE.position, time_limit_ms=2**31 - 1)
    assert rummy_stub.SolveMove(request, timeout=60).moves
    request.time_limit_ms = -1
    assert "time_limit_ms" in field_violations(error_of(rummy_stub.SolveMove, request, timeout=30))
