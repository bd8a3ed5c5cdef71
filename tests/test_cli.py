"""The `carrossel` command: rulesets and meld (serve is covered by test_service_shutdown)."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from service.cli import main
from tests.spec_rulesets import SPEC_IDS


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


def test_rulesets_prints_ten_lines(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "rulesets")
    lines = out.splitlines()
    assert code == 0
    assert [line.split()[0] for line in lines] == SPEC_IDS
    assert "2-5 players" in lines[0] and "dealt 10" in lines[0]


def test_version_is_the_installed_package_s(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"carrossel {metadata.version('carrossel')}"


def test_meld_sequence_with_a_joker(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "meld", "carrossel", "5H", "JK", "7H")
    assert code == 0
    assert out.strip() == "sequence: 5H JK=6 7H"


def test_meld_same_suit_sequence_writes_the_suit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "meld", "rummikub", "5H", "JK", "7H")
    assert code == 0
    assert out.strip() == "sequence: 5H JK=6H 7H"


def test_meld_group(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "meld", "shangai", "9C", "9D", "9S")
    assert (code, out.strip()) == (0, "group: 9C 9D 9S")


def test_meld_invalid_prints_the_reason(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "meld", "shangai", "QH", "KS", "AS")
    assert code == 1
    assert out.startswith("invalid: ")
    assert "QH KS AS" in out


def test_meld_ambiguous(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "meld", "carrossel", "JK", "7H", "JK")
    assert code == 1
    assert out.startswith("ambiguous: ")


def test_meld_bad_code_is_quoted(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "meld", "carrossel", "5H", "6X", "7H")
    assert code == 1
    assert "'6X'" in out


def test_meld_unknown_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["meld", "canasta", "5H", "6H", "7H"])
    assert code == 2
    assert "unknown ruleset 'canasta'" in capsys.readouterr().err


def test_installed_entry_point() -> None:
    script = Path(sys.executable).with_name("carrossel")
    if not script.exists():
        pytest.skip("the package is not installed in this interpreter's environment")
    done = subprocess.run(
        [str(script), "meld", "mexe-mexe", "4S", "5S", "2H", "7S"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "sequence: 4S 5S 2H=6S 7S"


def test_help_lists_the_subcommands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for name in ("serve", "rulesets", "meld"):
        assert name in out
