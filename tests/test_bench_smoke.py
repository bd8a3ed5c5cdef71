"""The benchmark runs end to end (a smoke test: it asserts nothing about speed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import curve, hard_scan, load
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


def test_bench_times_rummikub_with_table_jokers(capsys: pytest.CaptureFixture[str]) -> None:
    # Its table jokers are free where ours keep their value (R5): a difference within its
    # bounds is counted apart, never a mismatch (the bench exits 1 on one).
    out = _bench(capsys, "--n", "6", "--rulesets", "rummikub", "--sizes", "jokers")
    assert "rummikub   jokers" in out, out
    for spec in bench_positions("rummikub", "jokers", 6, 1):
        assert 1 <= sum(code.startswith("JK") for meld in spec.table for code in meld) <= 2


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
    again = out.split("the same calls again back to back")[1]
    back_to_back = [line.split() for line in again.splitlines() if line.startswith("rummikub   ")]
    assert [(row[1], row[2]) for row in back_to_back[:2]] == [("small", "1"), ("mid", "1")], out


def test_bench_calls_a_running_server(server_port: int, capsys: pytest.CaptureFixture[str]) -> None:
    target = f"127.0.0.1:{server_port}"
    argv = ["--n", "1", "--rulesets", "carrossel", "--sizes", "small", "--no-reference"]
    assert "SolveMove through gRPC" in _bench(capsys, *argv, "--grpc", "--target", target)


def test_bench_target_needs_grpc(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--target", "127.0.0.1:1"])
    assert stop.value.code == 2
    assert "--target needs --grpc" in capsys.readouterr().err


def test_hard_scan_runs(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--shape", "opening", "--seeds", "0-0", "--rulesets", "rummikub,carrossel"]
    assert hard_scan.main([*argv, "--objectives", "most_cards", "--time-limit-ms", "60000"]) == 0
    out = capsys.readouterr().out
    assert "rummikub      most_cards       1" in out and "carrossel     most_cards       1" in out
    assert "vatikan" not in out, out


def test_hard_scan_lists_slow_solves_with_their_position(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--seeds", "3-3", "--rulesets", "shangai", "--objectives", "go_out", "--slow-ms", "0"]
    argv += ["--time-limit-ms", "60000"]
    assert hard_scan.main(argv) == 0
    out = capsys.readouterr().out
    assert " proved     go_out " in out and "midhand-shangai-3 [shangai] table: " in out, out


@pytest.mark.parametrize("shape", sorted(hard_scan.SHAPES))
def test_hard_scan_shapes_hold_what_they_say(shape: str) -> None:
    """Each shape's positions parse, and their tables and hands have the sizes it names
    (hands fewer only where the stock runs out); the same number gives the same position."""
    low, high = hard_scan.SHAPES[shape].table
    for rid in hard_scan.RULESETS:
        specs = [hard_scan.shape_position(shape, rid, k) for k in range(6)]
        assert specs == [hard_scan.shape_position(shape, rid, k) for k in range(6)]
        for spec in specs:
            position = spec.position()
            assert low <= spec.table_size <= high
            assert len(spec.hand) <= hard_scan.SHAPES[shape].hand[1]
            if rid == "mexe-mexe":
                assert not any(c.is_joker for c in position.hand)
                assert position.turn.cards_drawn == 1  # a play needs a card drawn first (R8)
    opened = [hard_scan.shape_position("opening", "rummikub", k).turn.has_opened for k in range(40)]
    assert 0 < sum(opened) < 40  # some must still make rummikub's 30-point opening


def test_hard_scan_refuses_an_unknown_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        hard_scan.main(["--rulesets", "canasta"])
    assert stop.value.code == 2
    assert "unknown ruleset: canasta" in capsys.readouterr().err


def test_load_bench_runs_closed_loop_clients_against_a_server_it_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``make bench-load``'s generator: every call is counted by RPC and status."""
    argv = ["--clients", "2", "--duration", "1", "--n", "2", "--rulesets", "rummikub"]
    assert load.main(argv) == 0
    out = capsys.readouterr().out
    for text in ("OK calls/s", "SolveMove", "ValidateMove", "errors: none", "server RSS"):
        assert text in out, out


def test_cost_curve_times_every_table_size_and_draws_the_picture(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``make bench``: a row per table size, rummikub-solver beside rummikub, and a PNG."""
    out = tmp_path / "curve.png"
    assert curve.main(["--n", "1", "--rulesets", "rummikub", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    for label in ("rummikub      10", "rummikub     100", "rummikub    full"):
        assert label in printed, printed
    assert out.read_bytes().startswith(b"\x89PNG")


def test_solve_parts_times_each_part_of_a_call(capsys: pytest.CaptureFixture[str]) -> None:
    from bench import solve_parts

    argv = ["--n", "2", "--sizes", "mid", "--rounds", "1", "--profile", "3"]
    assert solve_parts.main(argv) == 0
    out = capsys.readouterr().out
    for part in (*solve_parts.PARTS, "whole", "answers digest", "tottime"):
        assert part in out, out


def test_call_stages_times_each_stage_of_a_call(capsys: pytest.CaptureFixture[str]) -> None:
    from bench import call_stages

    argv = ["--n", "2", "--sizes", "mid,large", "--rounds", "1", "--gap-ms", "1"]
    assert call_stages.main(argv) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.startswith(("mid ", "large "))]
    assert [row[:2] for row in rows] == [["mid", "2"], ["large", "2"]], out
    for row in rows:
        stages = [float(ms) for ms in row[2:]]
        assert len(stages) == len(call_stages.STAGES) and min(stages) >= 0.0, out
        assert max(stages[:-1]) <= stages[-1], out  # no stage outlasts its whole call
    assert "Health/Check after the same client work" in out, out
    assert "a one-variable CP-SAT solve in this process" in out, out


def test_call_stages_times_validate_move_per_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    from bench import call_stages

    argv = ["--validate", "carrossel,rummikub", "--n", "1", "--rounds", "2", "--gap-ms", "0"]
    assert call_stages.main([*argv, "--serve-flag=--no-pin-calls"]) == 0
    out = capsys.readouterr().out
    floors = ("Health/Check", "a one-variable CP-SAT")  # the two lines after the rows
    rows = {
        line.split()[0]: line.split()[1:]
        for line in out.splitlines()[2:]
        if not line.startswith(floors)
    }
    assert set(rows) == {"carrossel", "rummikub", "all"}, out
    assert int(rows["all"][0]) == int(rows["carrossel"][0]) + int(rows["rummikub"][0]), out
    for row in rows.values():
        stages = [float(ms) for ms in row[1:]]
        assert len(stages) == len(call_stages.STAGES) and min(stages) >= 0.0, out


def test_call_pairs_compares_two_servers_call_by_call(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """This checkout against itself: every pair answers alike (the same tiles placed)."""
    from bench import call_pairs

    root = Path(call_pairs.__file__).resolve().parent.parent
    assert call_pairs.main([str(root), "--n", "2", "--sizes", "mid", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("mid: base p50 ") and "2 pairs, 2 placing the same tiles" in out, out
    assert call_pairs.median_interval([3.0, 1.0, 2.0, 5.0, 4.0]) == (1.0, 5.0)


def test_cpsat_replay_replays_the_recorded_solves(capsys: pytest.CaptureFixture[str]) -> None:
    from bench import cpsat_replay

    variants = ["{'hint': 'optimum'}", "{'objective': 'primary'}"]
    assert cpsat_replay.main(["--n", "2", "--sizes", "mid", "--repeat", "1", *variants]) == 0
    out = capsys.readouterr().out
    assert "2 models recorded" in out, out
    rows = out.splitlines()[2:]
    assert [row.split()[0] for row in rows] == ["shipped", "{'hint':", "{'objective':"], out
    # The shipped parameters, and the optimum as a hint, find the very same solutions.
    assert rows[0].endswith(" 0/0") and rows[1].endswith(" 0/0"), out


def test_bench_hard_positions_are_large_tables_and_seeded() -> None:
    """The ``hard`` family (#51): large tables, hands of 8-14 where the stock allows, the
    same positions for the same seed, and other positions than ``fit``'s."""
    hard = bench_positions("carrossel", "hard", 6, 7)
    assert [spec.describe() for spec in hard] == [
        spec.describe() for spec in bench_positions("carrossel", "hard", 6, 7)
    ]
    for spec in hard:
        spec.position()  # parses: every meld valid, the card counts within the deck
        assert 70 <= spec.table_size <= 100, spec.describe()
        assert len(spec.hand) <= 14, spec.describe()
    fit = bench_positions("carrossel", "fit", 6, 7)
    assert {(s.table, s.hand) for s in hard}.isdisjoint((s.table, s.hand) for s in fit)


def test_bench_times_in_cpu_time(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--n", "1", "--rulesets", "carrossel", "--sizes", "hard", "--no-reference"]
    out = _bench(capsys, *argv, "--cpu-time")
    assert "in-process CPU time" in out and "solve_move CPU time" in out, out
    assert "carrossel  hard" in out, out
