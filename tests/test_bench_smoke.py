"""The benchmark runs end to end (a smoke test: it asserts nothing about speed)."""

from __future__ import annotations

import pytest

from bench.solve_bench import main, percentile


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 90) == 90.0
    assert percentile(values, 99) == 99.0
    assert percentile([3.0, 1.0, 2.0], 99) == 3.0


def test_bench_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--n", "2", "--time-limit-ms", "60000"]) == 0
    out = capsys.readouterr().out
    for line in ("carrossel  small", "rummikub   large", "rummikub-solver", "mismatch"):
        assert line in out, out
