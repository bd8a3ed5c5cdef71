"""A pytest plugin: how close the suite's CP-SAT solves came to their time limits.

A test that asserts ``optimal`` fails on a slower or busier machine once a solve of its runs
into its time limit (one did in a fresh-clone run on a loaded machine: a 7 s proof under the
10 s default). Tests never assert wall time, so this only reports: at the end of the run, one
line with the solve that used the largest share of its limit, and the five largest where any
used over a tenth. Solves with limits under a second are left out (the tests that set them
accept any answer), and so are those of servers started in another process.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from ortools.sat.python import cp_model

WATCHED_LIMIT_S = 1.0
WARN_SHARE = 0.1


@dataclass(frozen=True)
class Margin:
    test: str
    wall_s: float
    limit_s: float

    @property
    def share(self) -> float:
        return self.wall_s / self.limit_s


_margins: list[Margin] = []
_current = {"test": "(outside a test)"}


def _watching(solve: Callable[..., Any]) -> Callable[..., Any]:
    def watched(self: cp_model.CpSolver, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return solve(self, *args, **kwargs)
        finally:
            limit = self.parameters.max_time_in_seconds
            if limit >= WATCHED_LIMIT_S:
                _margins.append(Margin(_current["test"], time.perf_counter() - start, limit))

    return watched


def pytest_configure(config: pytest.Config) -> None:
    del config
    cp_model.CpSolver.solve = _watching(cp_model.CpSolver.solve)  # type: ignore[method-assign]


def pytest_runtest_setup(item: pytest.Item) -> None:
    _current["test"] = item.nodeid


def summary_lines(margins: list[Margin]) -> list[str]:
    """The report: one line, and the five closest solves where any used over WARN_SHARE."""
    if not margins:
        return []
    ranked = sorted(margins, key=lambda m: m.share, reverse=True)
    top = ranked[0]
    lines = [
        f"CP-SAT solves with a limit of {WATCHED_LIMIT_S:g} s or more: {len(ranked)}; the "
        f"closest to its limit used {top.share:.0%} of it ({top.wall_s:.2f} of "
        f"{top.limit_s:.1f} s, {top.test})"
    ]
    close = [m for m in ranked[:5] if m.share > WARN_SHARE]
    if close:
        lines.append(f"over {WARN_SHARE:.0%} of their limit (a slower machine may cut them short):")
        lines.extend(
            f"  {m.share:4.0%}  {m.wall_s:6.2f} of {m.limit_s:5.1f} s  {m.test}" for m in close
        )
    return lines


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for line in summary_lines(_margins):
        terminalreporter.write_line(line)
