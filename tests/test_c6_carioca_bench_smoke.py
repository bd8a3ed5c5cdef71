"""bench/carioca_bench.py runs end to end against a server (a smoke test: no speed asserted);
its positions are well-formed carioca positions of the sizes the speed goal names."""

from __future__ import annotations

import random

import pytest

from bench import carioca_bench


def test_bench_runs_against_a_server(server_port: int, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--positions", "3", "--warmup", "0", "--target", f"127.0.0.1:{server_port}"]
    assert carioca_bench.main(argv) == 0
    out = capsys.readouterr().out
    for kind in ("opening", "layoff", "draw", "all"):
        assert f"{kind:8} n=" in out, out


def test_bench_positions_have_the_goal_sizes() -> None:
    rng = random.Random(1)
    for _ in range(50):
        opening = carioca_bench.opening(rng).position
        assert len(opening.hand) >= 12 and list(opening.hand).count("JK") <= 4
        layoff = carioca_bench.layoff(rng).position
        assert len(layoff.hand) == 12 and 4 <= len(layoff.table) <= 8
