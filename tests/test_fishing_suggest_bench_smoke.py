"""The fishing suggestion's bench modules run end to end (smoke tests: they assert what the
runs print, never a speed)."""

from __future__ import annotations

import pytest

from bench import fishing_suggest_bench, fishing_suggest_differential


def test_fishing_suggest_bench_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert fishing_suggest_bench.main(["--n", "4"]) == 0
    out = capsys.readouterr().out
    assert "suggest=true" in out and "4 proved nearest" in out


def test_fishing_suggest_differential_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert fishing_suggest_differential.main(["--proposals", "9", "karusele"]) == 0
    out = capsys.readouterr().out
    assert "karusele: 9 proposals, 9 agree key by key" in out
