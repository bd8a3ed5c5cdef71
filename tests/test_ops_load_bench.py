"""bench/load.py's operations checks (issue 51): RSS per server process over the run, the
server's CPU time, and a comparison of CPU sets and worker processes, one row each."""

from __future__ import annotations

import re

import pytest

from bench import load


def test_a_run_samples_each_server_process_and_its_cpu_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--clients", "2", "--duration", "2", "--n", "2", "--rulesets", "rummikub"]
    assert load.main([*argv, "--workers", "2", "--rss-every", "1"]) == 0
    out = capsys.readouterr().out
    assert "errors: none" in out, out
    header = re.search(r"server RSS MB by process, (.*)", out)
    assert header is not None, out
    assert header.group(1).startswith("t=0s") and len(header.group(1).split(", ")) >= 3
    # The parent and its two workers (multiprocessing may add a helper process).
    processes = re.findall(r"^  (parent|pid \d+) ", out, flags=re.MULTILINE)
    assert processes.count("parent") == 1 and len(processes) >= 3, out
    assert re.search(r"server CPU: [\d.]+ s, \d+ OK calls per CPU second", out), out


def test_compare_prints_one_row_per_setting(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--clients", "2", "--duration", "1", "--n", "2", "--rulesets", "rummikub"]
    assert load.main([*argv, "--compare", "0:1;0,1:2"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("cpus ")]
    assert [row.split("  ")[0] for row in rows] == ["cpus 0, workers 1", "cpus 0,1, workers 2"]
    for row in rows:
        assert re.search(r" \d+ +\d+ +\d+->\d+$", row), row  # errors, OK per CPU s, RSS


def test_a_setting_is_cpus_then_workers() -> None:
    assert load.Setting.parse("0,1:2") == load.Setting("0,1", 2)
    assert load.Setting.parse(":3") == load.Setting(None, 3)
    assert load.Setting.parse("0") == load.Setting("0", None)
