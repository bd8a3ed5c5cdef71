"""The generated code matches proto/ and runs on the installed protobuf runtime."""

from __future__ import annotations

import filecmp
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PROTO_DIR = REPO / "proto"
GENERATED = REPO / "carrossel" / "v1"
PROTOS = sorted((PROTO_DIR / "carrossel" / "v1").glob("*.proto"))
MODULES = [p.stem for p in PROTOS]


def generate(out: Path) -> None:
    bin_dir = Path(sys.executable).parent
    args = [
        sys.executable,
        "-m",
        "grpc_tools.protoc",
        f"-I{PROTO_DIR}",
        f"--plugin=protoc-gen-mypy={bin_dir / 'protoc-gen-mypy'}",
        f"--plugin=protoc-gen-mypy_grpc={bin_dir / 'protoc-gen-mypy_grpc'}",
        f"--python_out={out}",
        f"--grpc_python_out={out}",
        f"--mypy_out={out}",
        f"--mypy_grpc_out={out}",
        *map(str, PROTOS),
    ]
    subprocess.run(args, check=True, capture_output=True, text=True, timeout=120)


def test_generated_code_is_fresh(tmp_path: Path) -> None:
    """Fails when proto/ changed without `make proto` (or generated code was hand-edited)."""
    generate(tmp_path)
    fresh = tmp_path / "carrossel" / "v1"
    names = sorted(p.name for p in fresh.iterdir())
    assert names, "protoc generated nothing"
    stale = [
        n
        for n in names
        if not (GENERATED / n).exists() or not filecmp.cmp(fresh / n, GENERATED / n, shallow=False)
    ]
    assert not stale, f"stale generated code, run `make proto`: {stale}"
    leftovers = sorted(
        p.name
        for p in GENERATED.glob("*_pb2*")
        if p.suffix in (".py", ".pyi") and not (fresh / p.name).exists()
    )
    assert not leftovers, f"generated files with no .proto left, run `make proto`: {leftovers}"


@pytest.mark.parametrize("module", MODULES)
def test_generated_code_imports_with_the_installed_runtime(module: str) -> None:
    pb2 = importlib.import_module(f"carrossel.v1.{module}_pb2")
    importlib.import_module(f"carrossel.v1.{module}_pb2_grpc")
    assert pb2.DESCRIPTOR.package == "carrossel.v1"


def test_protobuf_runtime_matches_the_generator() -> None:
    """grpcio-tools bundles a protoc; its generated code states the runtime it needs."""
    import google.protobuf

    text = (GENERATED / "rummy_pb2.py").read_text()
    marker = "# Protobuf Python Version: "
    line = next(line for line in text.splitlines() if line.startswith(marker))
    generated_major = int(line[len(marker) :].split(".")[0])
    runtime_major = int(google.protobuf.__version__.split(".")[0])
    assert generated_major == runtime_major, (line, google.protobuf.__version__)


def test_buf_lint_is_clean() -> None:
    buf = Path(sys.executable).with_name("buf")
    if not buf.exists():
        pytest.skip("buf (the buf-bin package) is not installed")
    done = subprocess.run([str(buf), "lint"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
