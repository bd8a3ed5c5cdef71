"""The suite's report of how near their limits its CP-SAT solves came (tests/solve_margins.py)."""

from __future__ import annotations

from ortools.sat.python import cp_model

from tests.solve_margins import Margin, summary_lines


def test_the_report_names_the_closest_solve_and_lists_those_over_a_tenth() -> None:
    margins = [
        Margin("t::far", 0.1, 10.0),
        Margin("t::close", 7.0, 10.0),  # a 7 s proof under the 10 s default
        Margin("t::near", 3.0, 20.0),
    ]
    lines = summary_lines(margins)
    assert lines[0].startswith("CP-SAT solves with a limit of 1 s or more: 3;")
    assert "used 70% of it (7.00 of 10.0 s, t::close)" in lines[0]
    assert [line.split()[-1] for line in lines[2:]] == ["t::close", "t::near"]


def test_a_run_with_every_solve_far_from_its_limit_reports_one_line() -> None:
    assert len(summary_lines([Margin("t::a", 0.2, 10.0), Margin("t::b", 0.5, 60.0)])) == 1
    assert summary_lines([]) == []


def test_the_suites_solves_are_watched() -> None:
    # The plugin wraps CpSolver.solve for the whole run (pyproject.toml's addopts).
    assert cp_model.CpSolver.solve.__name__ == "watched"
