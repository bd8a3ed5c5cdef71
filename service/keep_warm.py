"""A solve thread that keeps its core's caches warm between a client's calls.

A client that calls in a loop (a bot, a hint on every move) leaves the server idle for a few
milliseconds to a few tens between calls. On a shared machine that is enough for the host's
other work to evict CP-SAT's and the handler's code and data from the core's caches: a
Rummikub SolveMove handler of 2.3 ms back to back takes 3.3-3.5 ms 20 ms after the last call,
whether the thread slept or spun in the meantime (bench/HISTORY.md). Solving the last
position again in the meantime keeps them.

So the solves lane has one *warm* thread (``WarmThread``). A call submitted to the lane goes
to it first when it holds no call, else to the lane's other threads as before. Between its
calls, for ``window_s`` seconds after the process's last SolveMove of the rearrangement
family, it *rehearses*: it solves that call's request again, within what is left of the
window, and throws the answer away. A call handed to it cancels
the rehearsal's search (``solver.core.cancel``: CP-SAT stops within about 0.1 ms) and runs
on the same thread, on a core whose caches hold the solve. It rehearses only on a spare
core: while more threads are runnable on the machine than the process has cores, it waits
instead, so under load it takes no CPU from real work. After the window it waits without
using the CPU: an idle server stays idle.

The process-wide state is the last rehearsal (what to repeat and when it was given), set by
the SolveMove handler (``remember``) and read by every warm thread of the process.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from service import cores, metrics
from solver.core import cancel

log = logging.getLogger(__name__)

DEFAULT_WINDOW_S = 1.0
"""How long after the last SolveMove the warm thread rehearses (``serve --keep-warm``)."""

QUIET_S = 0.001
"""How long after a call the warm thread waits for the next before rehearsing: a client
calling back to back then finds it waiting, not rehearsing (a cancelled search costs its
stop time, about 0.1 ms), and caches lose little in a millisecond."""

SPARE_CORE_RECHECK_S = 0.002
"""How long the warm thread waits before looking again for a spare core."""

LOADAVG = Path("/proc/loadavg")

Rehearsal = Callable[[int], object]
"""The work to repeat, given the milliseconds left in the window as its time limit (a
rehearsal of a long solve ends with the window, not with the call's own limit)."""


def default_window() -> float:
    """``serve``'s window when not told: on where the process has two cores or more and no
    CPU quota. Under a quota (a container's CPU limit) the rehearsals' CPU would count
    against it and get the real calls throttled; on one core nothing is spare."""
    if cores.cgroup_cpu_quota() is not None or cores.usable_cores() < 2:
        return 0.0
    return DEFAULT_WINDOW_S


class _Last:
    """The last SolveMove's rehearsal and when it was given (monotonic seconds)."""

    def __init__(self) -> None:
        self.rehearsal: Rehearsal | None = None
        self.given = 0.0
        self.threads: list[WarmThread] = []


_last = _Last()


def remember(rehearsal: Rehearsal) -> None:
    """The work to repeat between calls: this call's solve, its answer discarded."""
    _last.rehearsal = rehearsal
    _last.given = time.monotonic()
    for thread in tuple(_last.threads):
        thread.wake()


def runnable_threads(loadavg: Path = LOADAVG) -> int | None:
    """Threads runnable on the machine now (``/proc/loadavg``'s fourth field), None where
    it cannot be read."""
    try:
        return int(loadavg.read_text().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None


class WarmThread:
    """One thread that runs the calls handed to it and, between them, the last rehearsal."""

    def __init__(
        self,
        name: str,
        start: Callable[[], None],
        window_s: float,
        spare_cores: Callable[[], bool] | None = None,
    ) -> None:
        self.window_s = window_s
        self._spare_cores = spare_cores or _spare_core
        self._start = start
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._task: Callable[[], None] | None = None
        self._busy = False  # running a call (not a rehearsal)
        self._called = False  # a call just ended: wait QUIET_S before rehearsing
        self._stopping = False
        self._token: cancel.CancelToken | None = None
        self.rehearsals = 0  # started, for tests and the curious
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()
        _last.threads.append(self)

    def offer(self, task: Callable[[], None]) -> bool:
        """Run ``task`` on this thread if it holds no call; False if it does (or stopped)."""
        with self._lock:
            if self._busy or self._task is not None or self._stopping:
                return False
            self._task = task
            token = self._token
            self._wake.notify()
        if token is not None:
            token.cancel()
        return True

    def wake(self) -> None:
        """Look again whether to rehearse (a new rehearsal was given)."""
        with self._lock:
            self._wake.notify()

    def stop(self) -> None:
        """End the thread once the call it was handed, if any, has run."""
        with self._lock:
            self._stopping = True
            token = self._token
            self._wake.notify()
        if token is not None:
            token.cancel()
        if self in _last.threads:
            _last.threads.remove(self)

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def _run(self) -> None:
        self._start()
        while True:
            with self._lock:
                if self._called:
                    self._called = False
                    self._wake.wait_for(lambda: self._task is not None or self._stopping, QUIET_S)
                rehearsal = self._next_rehearsal()
                while self._task is None and not self._stopping and rehearsal is None:
                    self._wake.wait(self._recheck_after())
                    rehearsal = self._next_rehearsal()
                task, self._task = self._task, None
                if task is None and self._stopping:
                    return
                if task is None:
                    token = self._token = cancel.CancelToken()
                else:
                    self._busy = True
            if task is None:
                if rehearsal is not None:  # always, after the wait above
                    self._rehearse(rehearsal, token)
                continue
            try:
                task()
            finally:
                with self._lock:
                    self._busy = False
                    self._called = True

    def _in_window(self) -> bool:
        return _last.rehearsal is not None and time.monotonic() - _last.given < self.window_s

    def _next_rehearsal(self) -> Rehearsal | None:
        """The rehearsal to run now: within the window and on a spare core. Called holding
        the lock, which it lets go while it reads the machine's load: a call's ``offer``
        takes that lock on the call's path."""
        if self._task is not None or self._stopping or not self._in_window():
            return None
        self._lock.release()
        try:
            spare = self._spare_cores()
        finally:
            self._lock.acquire()
        if not spare or self._task is not None or self._stopping:  # a call came meanwhile
            return None
        return _last.rehearsal

    def _recheck_after(self) -> float | None:
        """Wait for a call or a rehearsal; while in the window, look again for a spare
        core shortly (no wake-up tells us one came free)."""
        return SPARE_CORE_RECHECK_S if self._in_window() else None

    def _rehearse(self, rehearsal: Rehearsal, token: cancel.CancelToken) -> None:
        self.rehearsals += 1
        started = time.monotonic()
        outcome = "done"
        try:
            left_ms = (_last.given + self.window_s - started) * 1000
            with cancel.scope(token):
                rehearsal(max(1, int(left_ms)))
            if token.cancelled:  # stopped mid-solve, then returned what it had
                outcome = "cancelled"
        except cancel.Cancelled:
            outcome = "cancelled"
        except Exception:  # a rehearsal is never an answer: its failure is only logged
            outcome = "failed"
            log.debug("a rehearsal failed", exc_info=True)
        finally:
            with self._lock:
                self._token = None
            metrics.observe_rehearsal(outcome, time.monotonic() - started)


_CORES = cores.usable_cores()


def _spare_core() -> bool:
    """Whether the machine has a core nothing else wants: runnable threads, this one
    counted, no more than the process's cores (unknown: yes)."""
    runnable = runnable_threads()
    return runnable is None or runnable <= _CORES
