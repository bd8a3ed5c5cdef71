"""bench/carioca_suggest_bench.py and bench/carioca_suggest_differential.py run end to end (a
smoke test: no speed asserted): the speed bench against a server, the differential on a few
proposals with its summary and exit status."""

from __future__ import annotations

import pytest

from bench import carioca_suggest_bench, carioca_suggest_differential


def test_suggest_bench_runs_against_a_server(
    server_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--n", "4", "--target", f"127.0.0.1:{server_port}"]
    assert carioca_suggest_bench.main(argv) == 0
    out = capsys.readouterr().out
    assert "carioca opening:" in out and "carioca layoff:" in out, out
    assert "in-process CPU p50" in out


def test_differential_prints_its_keys_and_exits_0_when_all_agree(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert carioca_suggest_differential.main(["--proposals", "12", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("carioca: 12 proposals, 12 agree"), out
    assert "per key: hand cards laid 12, melds kept 12" in out
    assert "suggestions the referee rejects: 0" in out
