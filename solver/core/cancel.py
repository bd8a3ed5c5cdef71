"""Stopping a search from another thread: the caller gave up, so its CP-SAT search stops too.

A caller runs a search inside ``with cancel.scope(token):``; every CP-SAT solver the search
creates is registered with the token (``watch``). ``token.cancel()``, called from any thread,
stops the solve that is running (``CpSolver.stop_search``) and makes the search's next solver
raise ``Cancelled``, so the whole search ends within one solver's stop time. Without a scope
nothing changes. This module knows nothing of gRPC: the service cancels a token when its call
is cancelled or its deadline passes.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from ortools.sat.python import cp_model


class Cancelled(Exception):
    """The search was cancelled by its caller; there is no answer to give."""


class CancelToken:
    """Cancels the searches run in its scope; ``cancel`` may be called from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        self._solvers: list[cp_model.CpSolver] = []

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        """Stop the running solve and every later one (idempotent)."""
        with self._lock:
            self._cancelled = True
            solvers, self._solvers = self._solvers, []
        for solver in solvers:
            _stop(solver)

    def watch(self, solver: cp_model.CpSolver) -> None:
        """Register a solver about to solve; raise ``Cancelled`` if the token already is."""
        with self._lock:
            if not self._cancelled:
                self._solvers.append(solver)
                return
        raise Cancelled("the search was cancelled")


def _stop(solver: cp_model.CpSolver) -> None:
    # A solve that has not yet read its parameters ends at once by its time limit; one that
    # is running is stopped. Doing both covers the moment between the two.
    solver.parameters.max_time_in_seconds = 0.0
    solver.stop_search()


_current: ContextVar[CancelToken | None] = ContextVar("carrossel_cancel_token", default=None)


@contextmanager
def scope(token: CancelToken) -> Iterator[CancelToken]:
    """Within the block, the searches this thread runs are cancelled by ``token``."""
    reset = _current.set(token)
    try:
        yield token
    finally:
        _current.reset(reset)


def watch(solver: cp_model.CpSolver) -> None:
    """Register a new solver with the current scope's token (none: nothing to do)."""
    token = _current.get()
    if token is not None:
        token.watch(solver)


def check() -> None:
    """Raise ``Cancelled`` when the current scope's token is cancelled: for searches that are
    not CP-SAT (the fishing games' deal-end search) to call every so many nodes."""
    token = _current.get()
    if token is not None and token.cancelled:
        raise Cancelled("the search was cancelled")
