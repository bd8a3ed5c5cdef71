"""bench/served_profile.py (issue 51's profile of a served call, py-spy): reading py-spy's
raw stacks, and one short run against a server it starts where py-spy may attach."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import pytest

from bench import served_profile
from bench.served_profile import Frame, part_of, read_raw

SOLVE = (
    "Thread.run (threading.py:982);_worker (concurrent/futures/thread.py:83);"
    "handle (service/rummy/solve_move.py:69);solve_move (solver/rearrangement/search.py:269);"
    "CpSolver.solve (ortools/sat/python/cp_model.py:1771)"
)
REBUILD = (
    "Thread.run (threading.py:982);handle (service/rummy/solve_move.py:69);"
    "rebuild_move (solver/rearrangement/rebuild.py:100)"
)
IDLE = "Thread.run (threading.py:982);_worker (concurrent/futures/thread.py:81)"
SEND = 'process 42:"python -m service.cli serve";_status (grpc/_server.py:766)'


def test_raw_stacks_are_read_by_part_own_and_inclusive_samples_without_waiting_ones() -> None:
    profile = read_raw([f"{SOLVE} 6", f"{REBUILD} 3", f"{IDLE} 50", f"{SEND} 1", ""])
    assert profile.busy == 10 and profile.waiting == 50
    assert profile.parts == {"CP-SAT solve": 6, "solver (Python)": 3, "grpcio": 1}
    assert profile.own.most_common(1) == [("CpSolver.solve (ortools/sat/python/cp_model.py)", 6)]
    # A function on several stacks counts each sample once; the process frame is dropped.
    assert profile.inclusive["handle (service/rummy/solve_move.py)"] == 9
    assert not [label for label in profile.inclusive if label.startswith("process ")]
    lines = served_profile.lines_of(profile, top=2)
    assert "  CP-SAT solve          60.0%" in lines
    assert "   60.0%  CpSolver.solve (ortools/sat/python/cp_model.py)" in lines


def test_a_frame_is_its_function_and_file_and_the_part_is_the_running_frames() -> None:
    frame = Frame.parse("Solution.value (solver/rearrangement/rebuild.py:37)")
    assert frame == Frame("Solution.value", "solver/rearrangement/rebuild.py")
    assert part_of(Frame("add", "ortools/sat/python/cp_model.py")) == "OR-Tools model API"
    assert part_of(Frame("move_to_proto", "service/rummy/convert.py")) == "service (Python)"
    assert part_of(Frame("<module>", "<string>")) == "other"


def _py_spy_attaches() -> str | None:
    """None where py-spy can sample a process of ours here, else why not."""
    try:
        spy = served_profile.py_spy()
    except SystemExit as missing:
        return str(missing)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        time.sleep(0.3)
        probe = subprocess.run(
            [spy, "dump", "--pid", str(child.pid)], capture_output=True, text=True, timeout=30
        )
    finally:
        child.kill()
        child.wait()
    if probe.returncode != 0:
        return f"py-spy cannot sample a process here: {(probe.stderr or probe.stdout).strip()}"
    return None


def test_a_short_run_prints_the_load_and_the_profile(capsys: pytest.CaptureFixture[str]) -> None:
    why_not = _py_spy_attaches()
    if why_not is not None:
        pytest.skip(why_not)
    argv = ["--clients", "2", "--duration", "2", "--n", "2", "--rulesets", "rummikub"]
    assert served_profile.main([*argv, "--mix", "0.5", "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert "errors: none" in out, out
    assert re.search(r"^\d+ samples of running threads", out, flags=re.MULTILINE), out
    shares = re.findall(r"^  (.+?) +(\d+\.\d)%$", out, flags=re.MULTILINE)
    assert [part for part, _ in shares] == list(served_profile.PARTS), out
    assert 99.0 <= sum(float(share) for _, share in shares) <= 101.0, out
    assert "top 3 functions by own samples:" in out
