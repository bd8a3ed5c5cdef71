"""The big-table bench runs end to end (a smoke test: it asserts nothing about speed)."""

from __future__ import annotations

import pytest

from bench.fishing_table_bench import main


def test_fishing_table_bench_runs(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--sizes", "10", "12", "--rounds", "1"])
    out = capsys.readouterr().out
    assert " 10 items  SolvePlay" in out and " 12 items  SolvePlay" in out, out
    assert "ValidatePlay(trail)" in out, out
