"""The benchmark runs end to end (a smoke test: it asserts nothing about speed)."""

from __future__ import annotations

import pytest

from bench.positions import bench_positions
from bench.solve_bench import main, percentile


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 90) == 90.0
    assert percentile(values, 99) == 99.0
    assert percentile([3.0, 1.0, 2.0], 99) == 3.0


def _bench(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run the bench with a generous time limit; it must exit 0. Returns what it printed."""
    assert main([*argv, "--time-limit-ms", "60000"]) == 0
    return capsys.readouterr().out


def test_bench_runs(capsys: pytest.CaptureFixture[str]) -> None:
    out = _bench(capsys, "--n", "2")
    for line in ("carrossel  small", "rummikub   large", "rummikub-solver", "mismatch"):
        assert line in out, out


def test_bench_times_mexe_mexe_with_wild_twos_on_the_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _bench(capsys, "--n", "1", "--rulesets", "mexe-mexe", "--sizes", "small", "--strict")
    assert "mexe-mexe  small" in out and "rummikub" not in out, out


def test_bench_positions_put_wild_twos_on_mexe_mexe_tables() -> None:
    """bench_positions("mexe-mexe"): 1-8 table melds each hold a 2 of the stock standing for
    one of its cards, its value written (R5), within the deck's two copies of each card."""
    for size in ("mid", "large"):
        specs = bench_positions("mexe-mexe", size, 12, 3)
        wild = [sum("=" in code for meld in spec.table for code in meld) for spec in specs]
        assert all(0 <= k <= 8 for k in wild) and sum(wild) >= len(specs), wild
        for spec in specs:
            position = spec.position()  # parses: every meld valid, the card counts within the deck
            assert all(tc.card.rank == 2 for meld in position.table for tc in meld if tc.value)
            assert all(not tc.card.is_joker for meld in position.table for tc in meld)


def test_bench_times_solve_move_through_a_server_it_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _bench(capsys, "--n", "1", "--rulesets", "rummikub", "--sizes", "small,mid", "--grpc")
    assert "SolveMove through gRPC" in out, out
    rows = [line.split() for line in out.splitlines() if line.startswith("rummikub   ")]
    grpc_rows = [row for row in rows if len(row) == 12]  # the gRPC table's rows
    assert [row[1] for row in grpc_rows] == ["small", "mid"], out
    assert all(row[-1] == "0" for row in grpc_rows), out  # same cards as in-process


def test_bench_calls_a_running_server(
    server_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    target = f"127.0.0.1:{server_port}"
    argv = ["--n", "1", "--rulesets", "carrossel", "--sizes", "small", "--no-reference"]
    assert "SolveMove through gRPC" in _bench(capsys, *argv, "--grpc", "--target", target)


def test_bench_target_needs_grpc(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--target", "127.0.0.1:1"])
    assert stop.value.code == 2
    assert "--target needs --grpc" in capsys.readouterr().err
