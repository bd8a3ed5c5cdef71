"""Who may hold a worker thread: separate capacity for calls, health probes and open streams.

grpcio's sync server runs every call on a thread of one pool, and a bidirectional stream
(server reflection) holds its thread for as long as the client keeps it open. With one
shared pool, 16 idle reflection streams held every worker and even ``Health/Check`` timed out
(issue 52). So each kind of call gets its own lane, a pool of its own size:

- ``calls``: the carrossel RPCs that answer at once (ValidateMove, CheckKnock, ScoreRound,
  ListRulesets, ValidatePlay, ScoreDeal). At most ``max_pending`` may be admitted at once
  (running or waiting for a worker); one more is refused at once with RESOURCE_EXHAUSTED.
- ``solves``: the searches (SolveMove, SolvePlay), one thread per solve slot and per place in
  the solve queue (``service.limits.SolveSlots``), so solves waiting their turn never hold a
  thread a cheap call needs; one more is refused at once. Its threads run at a lower OS
  priority (``SOLVE_THREAD_NICE``), so a cheap call is not queued behind solves for a core.
- ``probes``: ``grpc.health.v1.Health/Check``: two threads nothing else uses, so a probe is
  answered however busy the server is.
- ``streams``: reflection streams, at most ``max_streams`` open; one more is refused at once.
- ``refusals``: answering refused calls, so a flood of them waits behind no real work.

The lane is chosen in the interceptor, which grpcio runs on its polling thread before the
call is handed to a pool (``experimental_thread_pool`` on the handler picks the pool), so a
refusal costs no worker of the lane it was refused from and no parsing of its request.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import Callable
from concurrent import futures
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from service import affinity, keep_warm

P = ParamSpec("P")
T = TypeVar("T")

HEALTH_PREFIX = "/grpc.health.v1.Health/"
SOLVE_METHODS = frozenset(
    {"/carrossel.v1.RummyService/SolveMove", "/carrossel.v1.FishingService/SolvePlay"}
)
"""The RPCs that run a search every time: they run in the ``solves`` lane."""

DEFAULT_WORKERS = 16
"""Threads running carrossel calls at once."""

DEFAULT_PENDING_PER_WORKER = 4
"""Calls admitted per worker thread (running or waiting); more are refused at once."""

DEFAULT_STREAMS = 4
"""Reflection streams open at once; each holds a thread of its own lane while open."""

DEFAULT_SOLVE_PLACES = 2 + 16
"""Threads of the solves lane when not told: two slots and a queue of 16."""

PROBE_WORKERS = 2
REFUSAL_WORKERS = 1


SOLVE_THREAD_NICE = 5
"""How much nicer than the process a solve's thread runs: when solves keep every core busy,
the OS scheduler gives the CPU to a cheap call first (Linux sets nice per thread), while a
core with nothing else to do still runs the solve at full speed."""


def _lower_this_threads_priority(by: int) -> None:
    """Make the calling thread nicer by ``by`` (Linux: per thread; elsewhere, nothing)."""
    if not hasattr(os, "setpriority") or not hasattr(threading, "get_native_id"):
        return  # pragma: no cover - not Linux
    thread = threading.get_native_id()
    with contextlib.suppress(OSError):  # a sandbox that refuses it: the same priority
        os.setpriority(os.PRIO_PROCESS, thread, os.getpriority(os.PRIO_PROCESS, thread) + by)


def _start_thread(nicer: int, every_core: bool) -> None:
    """A pool thread's start: its priority, and every core for a thread that searches (it
    inherits the core of the call path from the thread that started it: service.affinity)."""
    if nicer:
        _lower_this_threads_priority(nicer)
    if every_core:
        affinity.use_every_core()


class CountingExecutor(futures.ThreadPoolExecutor):
    """A thread pool that knows how many of its tasks are waiting or running (``load``);
    its threads run ``nicer`` than the process when given, on every usable core when
    ``every_core``."""

    def __init__(
        self, max_workers: int, thread_name_prefix: str, nicer: int = 0, every_core: bool = False
    ) -> None:
        # What each of its threads runs first; a thread of its lane started apart (the warm
        # thread, service/keep_warm.py) runs it too.
        self.thread_start = functools.partial(_start_thread, nicer, every_core)
        super().__init__(
            max_workers=max_workers,
            thread_name_prefix=thread_name_prefix,
            initializer=self.thread_start,
        )
        self.max_workers = max_workers
        self.warm: keep_warm.WarmThread | None = None
        self._load = 0
        self._load_lock = threading.Lock()

    @property
    def load(self) -> int:
        return self._load

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> futures.Future[T]:
        with self._load_lock:
            self._load += 1

        def counted() -> T:
            try:
                return fn(*args, **kwargs)
            finally:
                with self._load_lock:
                    self._load -= 1

        if self.warm is not None and (handed := self._hand_to_warm(self.warm, counted)):
            return handed
        try:
            return super().submit(counted)
        except BaseException:
            with self._load_lock:
                self._load -= 1
            raise

    def _hand_to_warm(
        self, warm: keep_warm.WarmThread, counted: Callable[[], T]
    ) -> futures.Future[T] | None:
        """``counted`` run on the warm thread if it holds no call (its future), else None."""
        future: futures.Future[T] = futures.Future()

        def task() -> None:
            if not future.set_running_or_notify_cancel():
                with self._load_lock:
                    self._load -= 1
                return
            try:
                future.set_result(counted())
            except BaseException as error:  # handed to the future, as the pool does
                future.set_exception(error)

        return future if warm.offer(task) else None


@dataclass(frozen=True)
class Lane:
    """One kind of call: its pool and how many may be admitted at once (None: no bound)."""

    name: str
    pool: CountingExecutor
    limit: int | None

    def admits(self) -> bool:
        return self.limit is None or self.pool.load < self.limit


class Capacity:
    """The server's lanes; ``lane_for`` says which one a method runs in."""

    def __init__(
        self,
        workers: int = DEFAULT_WORKERS,
        max_pending: int | None = None,
        max_streams: int = DEFAULT_STREAMS,
        solve_places: int = DEFAULT_SOLVE_PLACES,
        keep_warm_s: float = 0.0,
    ) -> None:
        """``solve_places``: solve slots plus the solve queue's length (threads of ``solves``);
        ``keep_warm_s`` > 0 gives ``solves`` a warm thread (``service.keep_warm``)."""
        if workers < 1 or max_streams < 1 or solve_places < 1:
            raise ValueError("a server needs at least one worker, stream and solve place")
        pending = workers * DEFAULT_PENDING_PER_WORKER if max_pending is None else max_pending
        self.calls = Lane("calls", CountingExecutor(workers, "carrossel-call"), pending)
        self.solves = Lane(
            "solves",
            CountingExecutor(
                solve_places, "carrossel-solve", nicer=SOLVE_THREAD_NICE, every_core=True
            ),
            solve_places,
        )
        if keep_warm_s > 0:
            self.solves.pool.warm = keep_warm.WarmThread(
                "carrossel-solve-warm", self.solves.pool.thread_start, keep_warm_s
            )
        self.probes = Lane("probes", CountingExecutor(PROBE_WORKERS, "carrossel-probe"), None)
        self.streams = Lane(
            "streams", CountingExecutor(max_streams, "carrossel-stream"), max_streams
        )
        self.refusals = Lane(
            "refusals", CountingExecutor(REFUSAL_WORKERS, "carrossel-refusal"), None
        )

    @property
    def max_concurrent_rpcs(self) -> int:
        """grpcio's own last-resort bound on calls alive at once, above every lane's bound:
        a flood beyond it (of health checks, refusals, health watches) is refused by grpcio."""
        bounded = (self.calls.limit, self.solves.limit, self.streams.limit)
        return sum(limit or 0 for limit in bounded) + 256

    def lane_for(self, method: str, handler: Any) -> Lane:
        if method.startswith(HEALTH_PREFIX):
            return self.probes
        if handler.request_streaming or handler.response_streaming:
            return self.streams
        if method in SOLVE_METHODS:
            return self.solves
        return self.calls

    def shutdown(self) -> None:
        """Let the pools' threads end once their tasks are done (after the server stops)."""
        for lane in (self.calls, self.solves, self.probes, self.streams, self.refusals):
            lane.pool.shutdown(wait=False)
        if self.solves.pool.warm is not None:
            self.solves.pool.warm.stop()
