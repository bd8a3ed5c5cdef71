"""A server process's call path on one core: grpcio's threads and the cheap calls' threads.

A unary call in grpcio's sync server moves between threads several times: the polling
thread takes the call and hands it to a worker, the worker starts reading the request and
waits, the polling thread parses it and wakes the worker, which answers; the polling thread
then sends the status. With those threads free to run on any core, each wake-up may land
on a core that was idle, with caches another core filled. On one core, in interleaved runs
on the shared 2-core machine, ValidateMove on a mid table took 0.02-0.12 ms less a call
(p50 1.0-1.1 ms), most of it from the client's send to the call reaching the interceptor
(0.18 against 0.28 ms), and the servicer ran warmer (0.34 against 0.40 ms); under load
the server answered about a sixth more calls (bench/HISTORY.md, "ValidateMove through the
call, outside the servicer"). A busy process on that core delays the call path where a free
core would not have: SolveMove through the call beside a busy client was 0.16 ms slower on
mid tables in one paired run, within the noise in another.

So ``carrossel serve`` (``ServeOptions.pin_calls``; a server built in-process, as the tests
build theirs, pins nothing unless asked; by default only a server whose processes are as
many as its usable cores, ``pins_calls``) builds its server on one core of those it may use
(``pinned_while_built``): every thread grpcio starts then (its polling thread, its I/O
threads) and every worker thread the lanes start later inherits that core. What searches
keeps every core: the solves lane's threads widen their own affinity when they start
(``use_every_core``), and a cheap call that runs a search (a suggestion, R8's questions)
widens it while it holds its solve slot (``every_core_while``). Server processes of
``serve --workers N`` take the usable cores in turn (worker ``k`` the ``k``-th), so their
call paths do not share a core. ``--no-pin-calls`` leaves the scheduler free, e.g. where
several servers share a host's cores without a cpuset of their own.

Linux only (``os.sched_setaffinity`` sets the calling thread's mask); elsewhere, and with
fewer than two usable cores, nothing is pinned.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

_EVERY_CORE: frozenset[int] | None = None
"""The cores the process could use before anything was pinned (set when a core is chosen)."""


def _can_pin() -> bool:
    return hasattr(os, "sched_setaffinity") and hasattr(os, "sched_getaffinity")


def pins_calls(choice: bool | None, processes: int) -> bool:
    """Whether to pin: ``choice`` when told; by default only where the server's
    ``processes`` are as many as the cores this process may use, i.e. the server has those
    cores to itself (a machine or a cpuset of its own). A process of a pod on a shared node,
    or one held to fewer cores by a CPU quota, may use cores other servers run on too, and
    every such server would pin its call path to the same first cores."""
    if choice is not None:
        return choice
    return _can_pin() and processes == len(os.sched_getaffinity(0))


def calls_core(worker_index: int = 0) -> int | None:
    """The core for the call path of server process ``worker_index``, or None when there is
    nothing to choose (one usable core, or no affinity on this system)."""
    if not _can_pin():
        return None  # pragma: no cover - not Linux
    usable = sorted(os.sched_getaffinity(0))
    if len(usable) < 2:
        return None
    return usable[worker_index % len(usable)]


@contextlib.contextmanager
def pinned_while_built(core: int | None) -> Iterator[None]:
    """Run the block on ``core`` (None: as it is): threads started in it inherit the core,
    the calling thread gets its affinity back at the end."""
    global _EVERY_CORE
    if core is None:
        yield
        return
    before = frozenset(os.sched_getaffinity(0))
    if _EVERY_CORE is None:
        _EVERY_CORE = before
    os.sched_setaffinity(0, {core})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def use_every_core() -> None:
    """Give the calling thread every core the process could use (a solve thread's start)."""
    if _EVERY_CORE is not None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, _EVERY_CORE)


@contextlib.contextmanager
def every_core_while() -> Iterator[None]:
    """Every usable core for the block (a search in a cheap call's thread), then the
    thread's own affinity again."""
    if _EVERY_CORE is None:
        yield
        return
    own = os.sched_getaffinity(0)
    if own == _EVERY_CORE:
        yield
        return
    os.sched_setaffinity(0, _EVERY_CORE)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, own)
