"""Bounds every request lives within (SPEC §5): message size, card counts, solves, solve time.

Exceeding a bound is a clear status (``RESOURCE_EXHAUSTED`` or ``INVALID_ARGUMENT``), never a
hang or a crash.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import grpc

from service import affinity, cores, metrics
from service.errors import abort_resource_exhausted
from solver.core import cancel
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

DEFAULT_SOLVE_QUEUE = 16
"""Solves that may wait for a slot in one server process (``--solve-queue``); one more is
refused at once. 16 lets every one of 16 clients of one process wait its turn."""

MAX_QUEUE_WAIT_S = DEFAULT_SOLVE_MS / 1000.0
"""The longest a solve waits for a slot when its call has no deadline."""

QUEUE_POLL_S = 0.02
"""How often a waiting solve looks whether its client left (its slot is handed over at once)."""


def default_concurrent_solves(processes: int = 1) -> int:
    """One solve per core this process may use, the cores shared among ``processes`` server
    processes: a CP-SAT solve keeps a core busy, and a core left to the OS scheduler is what
    answers the cheap calls (ValidateMove, ScoreRound...) between solves (docs/deploy.md)."""
    return max(1, cores.usable_cores() // max(1, processes))


class SolveSlots:
    """At most ``limit`` solves at once, and a short first-come queue for the next ones.

    A solve that finds every slot busy waits its turn, for at most its call's deadline (less
    ``DEADLINE_MARGIN_MS``, so the refusal still reaches the client). It is refused at once
    with RESOURCE_EXHAUSTED and a retry hint when ``queue`` solves already wait, or when the
    solves ahead of it, at the recent mean time a solve holds its slot, would not let it start
    before its deadline; it is refused at the end of its wait if no slot came. A waiting
    solve whose client left gives up its place (the interceptor records the cancellation).
    The slot a solve releases is handed to the first waiting one, so the order is kept."""

    def __init__(self, limit: int, queue: int = DEFAULT_SOLVE_QUEUE) -> None:
        if limit < 1 or queue < 0:
            raise ValueError("at least one concurrent solve is needed, and a queue of 0 or more")
        self.limit = limit
        self.queue = queue
        self._lock = threading.Lock()
        self._free = limit
        self._waiting: deque[threading.Event] = deque()
        self._mean_hold_s = 0.0  # of recent solves; 0 until one has ended

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def try_acquire(self) -> bool:
        """Take a free slot if no solve waits for one (without queueing)."""
        with self._lock:
            if self._free > 0 and not self._waiting:
                self._free -= 1
                return True
            return False

    def release(self, held_s: float | None = None) -> None:
        """Give a slot back: to the first waiting solve, else to the free ones."""
        with self._lock:
            if held_s is not None:
                self._mean_hold_s += (held_s - self._mean_hold_s) * HOLD_SMOOTHING
            if self._waiting:
                self._waiting.popleft().set()
            else:
                self._free += 1

    @contextmanager
    def slot(self, context: grpc.ServicerContext) -> Iterator[None]:
        """Hold one solve slot for the ``with`` block, or abort with RESOURCE_EXHAUSTED."""
        self._acquire(context)
        metrics.SOLVES_IN_FLIGHT.inc()
        started = time.perf_counter()
        try:
            yield
        finally:
            metrics.SOLVES_IN_FLIGHT.dec()
            self.release(time.perf_counter() - started)

    def _acquire(self, context: grpc.ServicerContext) -> None:
        remaining = context.time_remaining()
        wait_s = MAX_QUEUE_WAIT_S
        if remaining is not None:
            wait_s = min(wait_s, remaining - DEADLINE_MARGIN_MS / 1000.0)
        granted = threading.Event()
        with self._lock:
            if self._free > 0 and not self._waiting:
                self._free -= 1
                return
            expected_s = (len(self._waiting) + 1) / self.limit * self._mean_hold_s
            if len(self._waiting) >= self.queue:
                refusal = f"{self.queue} more wait for one"
            elif expected_s > wait_s:
                refusal = "the solves before this one would not let it start before its deadline"
            else:
                refusal = ""
                self._waiting.append(granted)
        if refusal:
            self._refuse(context, refusal)
        metrics.SOLVES_QUEUED.inc()
        try:
            self._wait(granted, context, time.monotonic() + wait_s)
        finally:
            metrics.SOLVES_QUEUED.dec()

    def _wait(self, granted: threading.Event, context: grpc.ServicerContext, until: float) -> None:
        """Wait for the slot ``granted`` hands over, until ``until`` or the client leaves."""
        while not granted.wait(max(0.0, min(QUEUE_POLL_S, until - time.monotonic()))):
            left = not context.is_active()
            if not left and time.monotonic() < until:
                continue
            with self._lock:
                if granted.is_set():  # handed over at the last moment: it is ours
                    return
                self._waiting.remove(granted)
            if left:
                raise cancel.Cancelled("the client left while its solve waited for a slot")
            self._refuse(context, "none came free before its deadline")

    def _refuse(self, context: grpc.ServicerContext, why: str) -> NoReturn:
        metrics.SOLVES_REJECTED.inc()
        abort_resource_exhausted(
            context,
            f"The server is already running {self.limit} solves at once and {why}; "
            "retry in a moment.",
        )


HOLD_SMOOTHING = 0.2
"""Weight of the latest solve in the mean time a solve holds its slot."""

_slots = SolveSlots(default_concurrent_solves())


def configure_solve_slots(limit: int, queue: int = DEFAULT_SOLVE_QUEUE) -> None:
    """Set the process-wide solve slots and queue (build_server calls this)."""
    global _slots
    _slots = SolveSlots(limit, queue)


def solve_slots() -> SolveSlots:
    """The process's solve slots and queue (for tests and diagnostics)."""
    return _slots


@contextmanager
def solve_slot(context: grpc.ServicerContext) -> Iterator[None]:
    """Hold a process-wide solve slot: ``with solve_slot(context): ...run CP-SAT...``; compute
    the solve's time limit inside the block, so the time spent waiting counts. A search on a
    cheap call's thread may use every core meanwhile (``service.affinity``)."""
    with _slots.slot(context), affinity.every_core_while():
        yield


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
        with solve_slot(context):
            limit_ms = int(solve_time_limit_s(time_limit_ms, context) * 1000)
            try:
                return max_cards_placed(position, max_new_melds, limit_ms)
            except SearchUndecided as undecided:
                context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, str(undecided))

    return oracle
