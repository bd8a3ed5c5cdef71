"""Giving memory back after large requests (glibc's ``malloc_trim``).

A burst of requests of a few MB is parsed and dropped within milliseconds, but glibc keeps
the freed pages in its per-thread arenas, so the server's RSS climbed pass after pass under
repeated huge requests and never came back (issue 52). After a large request the server
asks glibc, from a thread of its own and at most once per ``MIN_INTERVAL_S``, to return the
free pages at the top and in the middle of its heaps. Where there is no glibc (musl, macOS)
nothing is done.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
import time
from collections.abc import Callable

LARGE_REQUEST_BYTES = 256 * 1024
"""A request at least this large asks for a trim once the burst it came in is over."""

SETTLE_S = 0.2
"""How long the trimmer waits after a large request: the rest of its burst comes first."""

MIN_INTERVAL_S = 1.0
"""The least time between two trims (a trim walks every arena)."""


def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None
    return trim


M_ARENA_MAX = -8  # glibc's mallopt parameter number

DEFAULT_ARENAS = 2
"""glibc arenas for ``carrossel serve``: its threads mostly wait, and with glibc's default
(8 per core) each burst left pages spread over arenas that no trim gave back; with 2 the
RSS after bursts of huge requests came back to within about 10 MB of where it started
(docs/deploy.md)."""


def limit_arenas(arenas: int = DEFAULT_ARENAS) -> bool:
    """Cap glibc's malloc arenas unless ``MALLOC_ARENA_MAX`` is set; False without glibc."""
    if "MALLOC_ARENA_MAX" in os.environ:
        return True
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_ARENA_MAX, arenas))


class Trimmer:
    """Trims the heap in a daemon thread after large requests (``note`` is cheap)."""

    def __init__(self, trim: Callable[[int], int] | None = None) -> None:
        self._trim = trim if trim is not None else _malloc_trim()
        self._wanted = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.trims = 0

    def note(self, request_bytes: int) -> None:
        """A request of ``request_bytes`` arrived."""
        if request_bytes < LARGE_REQUEST_BYTES or self._trim is None:
            return
        self._wanted.set()
        if self._thread is None:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._run, name="carrossel-trim", daemon=True
                    )
                    self._thread.start()

    def _run(self) -> None:
        assert self._trim is not None
        while True:
            self._wanted.wait()
            time.sleep(SETTLE_S)
            self._wanted.clear()
            self._trim(0)
            self.trims += 1
            time.sleep(MIN_INTERVAL_S)


TRIMMER = Trimmer()
