"""Big legal fishing tables through gRPC (F1-F8, SPEC §5): 30 and 39 single low cards on
the table (the 56-card deck holds 40 numbered cards). SolvePlay answers within the call's
short deadline; SolvePlay to the deal's end and ValidatePlay (with and without ``suggest``)
give an answer whose plays the referee accepts, or DEADLINE_EXCEEDED at that deadline; the
server serves on afterwards; the process's peak memory barely grows (the former listing took
2^n sums: 8 GB at 30 items). A table the deck cannot hold repeats a card: INVALID_ARGUMENT
with BadRequest."""

from __future__ import annotations

import resource
from typing import Any

import grpc
import pytest

from carrossel.v1 import fishing_pb2
from tests.fishing_table import big_table, big_table_proto, deal_end_proto
from tests.ops_helpers import error_of, field_violations

SHORT_DEADLINE_S = 3.0
"""A short client deadline; the calls either answer within it or end DEADLINE_EXCEEDED."""

MAX_PEAK_GROWTH_MB = 400
"""What the big-table calls may add to the process's peak RSS (server and client together)."""

SIZES = (30, 39)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


def answered(call: Any, request: Any) -> Any | None:
    """The answer, or None when the call's deadline passed first (any other status fails)."""
    try:
        return call(request, timeout=SHORT_DEADLINE_S)
    except grpc.RpcError as error:
        assert error.code() is grpc.StatusCode.DEADLINE_EXCEEDED, error
        return None


def trail_9s() -> fishing_pb2.FishingPlay:
    play = fishing_pb2.FishingPlay(card="9S")
    play.trail.SetInParent()
    return play


def legal_again(stub: Any, position: fishing_pb2.FishingPosition, play: Any) -> None:
    again = stub.ValidatePlay(
        fishing_pb2.ValidatePlayRequest(position=position, play=play), timeout=60
    )
    assert again.legal, again


@pytest.fixture(scope="module")
def peak_before() -> float:
    return peak_rss_mb()


@pytest.mark.parametrize("size", SIZES)
def test_f3_f5_solve_play_on_a_big_table_answers_within_its_deadline(
    fishing_stub: Any, peak_before: float, size: int
) -> None:
    """SPEC §5: "running out returns the best found with `optimal = false`". The capture
    search stops at half the time the deadline leaves (``CAPTURE_SEARCH_SHARE``), so the
    re-check of its plays still fits: the best found, not proved, rather than
    DEADLINE_EXCEEDED."""
    position = big_table_proto(size)
    request = fishing_pb2.SolvePlayRequest(position=position, max_plays=3)
    answer = fishing_stub.SolvePlay(request, timeout=SHORT_DEADLINE_S)
    assert answer.plays
    for solved in answer.plays:
        legal_again(fishing_stub, position, solved.play)


@pytest.mark.parametrize("size", SIZES)
def test_f7_trail_on_a_big_table_is_refused_with_a_capture_named(
    fishing_stub: Any, peak_before: float, size: int
) -> None:
    request = fishing_pb2.ValidatePlayRequest(position=big_table_proto(size), play=trail_9s())
    answer = answered(fishing_stub.ValidatePlay, request)
    if answer is not None:
        assert not answer.legal
        codes = [fishing_pb2.FishingViolationCode.Name(v.code) for v in answer.violations]
        assert codes == ["FISHING_VIOLATION_CODE_TRAIL_NOT_ALLOWED"], answer
        assert "F7" in answer.violations[0].message


@pytest.mark.parametrize("size", SIZES)
def test_f7_suggestion_on_a_big_table_answers_or_meets_its_deadline(
    fishing_stub: Any, peak_before: float, size: int
) -> None:
    position = big_table_proto(size)
    request = fishing_pb2.ValidatePlayRequest(position=position, play=trail_9s(), suggest=True)
    answer = answered(fishing_stub.ValidatePlay, request)
    if answer is not None:
        assert not answer.legal
        assert answer.HasField("nearest_legal"), answer.suggestion_note
        legal_again(fishing_stub, position, answer.nearest_legal.play)


def test_f8_deal_end_on_a_big_table_answers_or_meets_its_deadline(
    fishing_stub: Any, peak_before: float
) -> None:
    """JK20 on 39 low cards: the deal-end search cannot list its plays in time, so it answers
    SolvePlay's plays now, not optimal (or the call's deadline passes first)."""
    position = deal_end_proto(39)
    request = fishing_pb2.SolvePlayRequest(
        position=position, horizon=fishing_pb2.HORIZON_DEAL_END, time_limit_ms=500
    )
    answer = answered(fishing_stub.SolvePlay, request)
    if answer is not None:
        assert answer.plays and not answer.optimal and not answer.deal_end
        for solved in answer.plays:
            legal_again(fishing_stub, position, solved.play)


def test_f1_a_table_beyond_the_deck_is_invalid_argument(fishing_stub: Any) -> None:
    """40 numbered cards exist and one is in hand: a 40th table card repeats one (F1)."""
    position = big_table_proto(39)
    position.table.append(fishing_pb2.TableItem(cards=[big_table(1)[0]]))
    request = fishing_pb2.SolvePlayRequest(position=position)
    error = error_of(fishing_stub.SolvePlay, request, timeout=60)
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    violations = field_violations(error)
    assert "position.table[39].cards[0]" in violations, violations
    assert "F1" in violations["position.table[39].cards[0]"]


def test_the_server_serves_on_and_memory_stayed_bounded(
    fishing_stub: Any, peak_before: float
) -> None:
    """Runs after the big-table calls above (pytest keeps the file's order)."""
    request = fishing_pb2.SolvePlayRequest(position=big_table_proto(8), max_plays=1)
    answer = fishing_stub.SolvePlay(request, timeout=60)
    assert answer.plays and answer.optimal
    assert peak_rss_mb() - peak_before < MAX_PEAK_GROWTH_MB
