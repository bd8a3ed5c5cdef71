"""A Node.js client (@grpc/grpc-js + @grpc/proto-loader, straight from proto/) talks to us."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.spec_rulesets import SPEC_IDS

CLIENT_DIR = Path(__file__).resolve().parent / "node_client"


def _install(npm: str) -> None:
    """`npm ci` into tests/node_client/node_modules (gitignored) when it is missing or stale."""
    modules = CLIENT_DIR / "node_modules"
    marker = modules / ".package-lock.json"
    lock = CLIENT_DIR / "package-lock.json"
    if marker.exists() and marker.stat().st_mtime >= lock.stat().st_mtime:
        return
    subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=CLIENT_DIR,
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_node_client_lists_rulesets_and_sees_invalid_argument(server_port: int) -> None:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("Node.js (node and npm) is not installed on this machine")
    _install(npm)
    done = subprocess.run(
        [node, str(CLIENT_DIR / "client.js"), f"127.0.0.1:{server_port}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["ids"] == SPEC_IDS
    assert seen["carrossel_knock_threshold"] == 5
    assert seen["carrossel_wild_kind"] == "WILD_KIND_JOKERS"
    assert seen["bad_request_code"] == 3  # INVALID_ARGUMENT
    assert seen["bad_request_has_details"]
    # What the README says it prints is what it prints.
    readme = (CLIENT_DIR.parent.parent / "README.md").read_text()
    shown = next(line for line in readme.splitlines() if line.startswith('{"ids":'))
    assert seen == json.loads(shown)
