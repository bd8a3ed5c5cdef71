"""The fishing bench runs end to end over gRPC (a smoke test: it asserts nothing about speed)."""

from __future__ import annotations

import pytest

from bench.fishing_bench import main


def test_fishing_bench_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--n", "4"]) == 0
    out = capsys.readouterr().out
    for name in ("ValidatePlay (8 items)", "SolvePlay (8 items)", "SolvePlay deal end (4+4)"):
        assert name in out, out
