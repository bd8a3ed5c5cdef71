"""Bounds every request lives within (SPEC §5): message size, card counts, solves, solve time.

Exceeding a bound is a clear status (``RESOURCE_EXHAUSTED`` or ``INVALID_ARGUMENT``), never a
hang or a crash.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

import grpc

from service import metrics
from service.errors import abort_resource_exhausted
from solver.rearrangement.search import DEFAULT_TIME_LIMIT_MS, SearchUndecided, max_cards_placed
from solver.rearrangement.turns import PlacedOracle
from solver.rummy.position import Position

MAX_MESSAGE_BYTES = 4 * 1024 * 1024
"""The largest request or response message, in bytes (both directions)."""

MAX_CODES_PER_REQUEST = 1000
"""The most card codes one request may carry in all (the biggest deck has 108 cards)."""

MAX_CODE_LENGTH = 16
"""The longest card code accepted (``JK=10H`` has 6 characters)."""

DEFAULT_SOLVE_MS = DEFAULT_TIME_LIMIT_MS
"""Solver time when a request gives no ``time_limit_ms``: the library's and the CLI's own
default (10 s). Typical positions are settled in
milliseconds whatever the limit; a hard one (a mid table with several jokers and a long
hand) can need a few seconds to find its optimum, and a client that prefers a quick
unproved hint asks for less (docs/api.md)."""

MAX_SOLVE_MS = 30_000
"""The most solver time one request may ask for."""

DEADLINE_MARGIN_MS = 100
"""Solver time kept back from the call's deadline to build and send the answer."""

DEFAULT_CONCURRENT_SOLVES = 4
"""Solves that may run at once in one server process (the machine has few cores)."""


class SolveSlots:
    """A bounded number of concurrent solves; a call that finds none free is refused at once.

    Refused, not queued: a queued solve would hold a worker thread and could only start
    when another ends, maybe after its own deadline. The refusal carries a retry hint."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("at least one concurrent solve is needed")
        self.limit = limit
        self._semaphore = threading.BoundedSemaphore(limit)

    @contextmanager
    def slot(self, context: grpc.ServicerContext) -> Iterator[None]:
        """Hold one solve slot for the ``with`` block, or abort with RESOURCE_EXHAUSTED."""
        if not self._semaphore.acquire(blocking=False):
            metrics.SOLVES_REJECTED.inc()
            abort_resource_exhausted(
                context,
                f"The server is already running {self.limit} solves; retry in a moment.",
            )
        metrics.SOLVES_IN_FLIGHT.inc()
        try:
            yield
        finally:
            metrics.SOLVES_IN_FLIGHT.dec()
            self._semaphore.release()


_slots = SolveSlots(DEFAULT_CONCURRENT_SOLVES)


def configure_solve_slots(limit: int) -> None:
    """Set the process-wide number of concurrent solves (create_server calls this)."""
    global _slots
    _slots = SolveSlots(limit)


def solve_slot(context: grpc.ServicerContext) -> AbstractContextManager[None]:
    """Hold a process-wide solve slot: ``with solve_slot(context): ...run CP-SAT...``."""
    return _slots.slot(context)


def solve_time_limit_s(time_limit_ms: int, context: grpc.ServicerContext) -> float:
    """Seconds of solver time: the smaller of the request's limit and the call's deadline.

    ``time_limit_ms`` of 0 (unset) means DEFAULT_SOLVE_MS; it is capped at MAX_SOLVE_MS.
    A deadline closer than the margin still leaves the solver a few milliseconds, so the
    answer is "best found, not optimal" rather than an error.
    """
    requested = DEFAULT_SOLVE_MS if time_limit_ms <= 0 else min(time_limit_ms, MAX_SOLVE_MS)
    remaining = context.time_remaining()
    if remaining is not None:
        requested = min(requested, max(int(remaining * 1000) - DEADLINE_MARGIN_MS, 10))
    return requested / 1000.0


def bounded_search(context: grpc.ServicerContext, time_limit_ms: int = 0) -> PlacedOracle:
    """R8's search questions for a validating RPC (shangai and manipulation's "play if able"
    and "maximal add"), asked like any solve: within the call's deadline (SPEC §5) and
    holding a solve slot. A question left unsettled in time is ``DEADLINE_EXCEEDED``: the
    best play found is no proof, and judging by it could call an illegal add legal."""

    def oracle(position: Position, max_new_melds: int | None = None) -> int:
        limit_ms = int(solve_time_limit_s(time_limit_ms, context) * 1000)
        with solve_slot(context):
            try:
                return max_cards_placed(position, max_new_melds, limit_ms)
            except SearchUndecided as undecided:
                context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, str(undecided))

    return oracle
