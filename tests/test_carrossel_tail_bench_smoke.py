"""bench.carrossel_tail runs end to end (a smoke test: it asserts nothing about speed)."""

from __future__ import annotations

import pytest

from bench import carrossel_tail, solve_parts
from solver.rearrangement import search, tries


def test_tail_scan_and_ab_run(capsys: pytest.CaptureFixture[str]) -> None:
    before = tries.TIE_BREAK_DTIME
    argv = ["--seeds", "7", "--sizes", "fit", "--n", "2", "--slow-ms", "0"]
    assert (
        carrossel_tail.main([*argv, "--ab", "solver.rearrangement.tries:TIE_BREAK_DTIME=0.02"]) == 0
    )
    out = capsys.readouterr().out
    for text in (
        "fit A ",
        "fit B ",
        "primary value differs: 0",
        "table jokers",
        "carrossel-fit-7-0",
    ):
        assert text in out, out
    assert tries.TIE_BREAK_DTIME == before  # B's constants are set back


def test_ab_names_an_existing_constant() -> None:
    with pytest.raises(SystemExit, match="no constant"):
        carrossel_tail.parse_patch("solver.rearrangement.tries:NO_SUCH_LIMIT=1")


def test_solve_parts_runs_with_a_constant_set(capsys: pytest.CaptureFixture[str]) -> None:
    """bench.solve_parts --set: the run's constant, set back afterwards."""
    argv = ["--n", "2", "--seed", "1", "--rulesets", "carrossel", "--sizes", "mid"]
    flow = "solver.rearrangement.search:RUN_FLOW"
    assert solve_parts.main([*argv, "--rounds", "1", "--set", f"{flow}=False"]) == 0
    assert "answers digest" in capsys.readouterr().out
    assert search.RUN_FLOW is True
