"""One set of position options for ``hint``, ``validate`` and ``knock`` (issue #50): the same
position gets the same answer from each, and rummikub tiles may be written as numbers."""

from __future__ import annotations

import pytest

from service.cli import main
from service.cli.position_args import rummikub_code, split_cards, split_melds


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_validate_agrees_with_hint_on_the_default_turn(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Before: hint assumed the card drawn (R8) and validate did not, so hint's own move was
    # "illegal: DRAW_RULE" when checked with the same options.
    position = ["carrossel", "--table", "7H 8S JK=9", "--hand", "5C 9D KS"]
    code, out, _ = run(capsys, "hint", *position)
    assert code == 0 and "* 5C JK=6 7H 8S 9D" in out
    code, out, _ = run(capsys, "validate", *position, "--after", "5C JK 7H 8S 9D")
    assert code == 0 and out.startswith("legal\n")


def test_drawn_zero_still_judges_the_draw_rule(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "validate",
        "carrossel",
        "--drawn",
        "0",
        "--table",
        "7H 8S JK=9",
        "--hand",
        "5C 9D KS",
        "--after",
        "5C JK 7H 8S 9D",
    )
    assert code == 1 and "DRAW_RULE" in out


@pytest.mark.parametrize("command", ["hint", "validate"])
def test_rummikub_is_opened_by_default(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    after = ["--after", "5H 6H 7H 8H"] if command == "validate" else []
    position = ["rummikub", "--table", "5H 6H 7H", "--hand", "8H 2C", *after]
    code, out, _ = run(capsys, command, *position)
    assert code == 0 and "8H" in out
    # R8: before the 30-point opening, the table's melds may not be touched.
    code, out, _ = run(capsys, command, *position, "--not-opened")
    assert code == 1
    assert ("NOT_OPENED" if command == "validate" else "no legal play") in out


def test_opened_flags_are_exclusive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["hint", "rummikub", "--hand", "8H", "--opened", "--not-opened"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_carioca_is_not_opened_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    # C4: laying off on the table needs the contract first, so without --opened it is illegal.
    position = [
        "carioca",
        "--deal",
        "2",
        "--table",
        "8C 8D 8H | 4S 5S 6S 7S",
        "--hand",
        "8S QD",
        "--after",
        "8C 8D 8H | 4S 5S 6S 7S 8S",
        "--discard",
        "QD",
    ]
    assert run(capsys, "validate", *position)[0] == 1
    assert run(capsys, "validate", *position, "--opened")[0] == 0


def test_vatikan_sequence_laid_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    position = ["vatikan", "--hand", "5C 5D 5S 9H", "--after", "5C 5D 5S"]
    code, out, _ = run(capsys, "validate", *position)
    assert code == 0, out
    code, out, _ = run(capsys, "validate", *position, "--no-sequence-yet")
    assert code == 1 and "FIRST_MELD_NOT_SEQUENCE" in out  # R7


@pytest.mark.parametrize("command", ["hint", "validate", "knock"])
def test_every_position_command_documents_the_defaults(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    help_text = capsys.readouterr().out
    flat = " ".join(help_text.split())
    assert "Defaults describe the turn in which a play is allowed" in flat
    for option in ("--drawn", "--not-opened", "--opened", "--no-sequence-yet", "--deal"):
        assert option in help_text


@pytest.mark.parametrize(
    ("number", "code"),
    [
        ("13C", "KC"),
        ("1H", "AH"),
        ("11S", "JS"),
        ("12D", "QD"),
        ("10C", "10C"),
        ("7R", "7R"),
        ("JK=13C", "JK=KC"),
        ("JK", "JK"),
        ("KC", "KC"),
    ],
)
def test_rummikub_numbers_become_codes(number: str, code: str) -> None:
    assert rummikub_code(number) == code


def test_numbers_are_rummikub_only() -> None:
    assert split_cards("13C 1H", "rummikub") == ["KC", "AH"]
    assert split_cards("13C 1H", "carrossel") == ["13C", "1H"]
    assert split_melds("11H 12H 13H | 1S", "rummikub") == [["JH", "QH", "KH"], ["AS"]]


def test_rummikub_numbers_in_validate_print_codes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "validate",
        "rummikub",
        "--table",
        "11H 12H JK=13H",
        "--hand",
        "1S 1C 1D",
        "--after",
        "11H 12H JK=13H | 1S 1C 1D",
    )
    assert code == 0
    assert "table after: JH QH JK=KH | AS AC AD" in out


def test_rummikub_numbers_in_hint(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "hint", "rummikub", "--table", "11H 12H 13H", "--hand", "10H 2C")
    assert code == 0 and "* 10H JH QH KH" in out


def test_numbers_stay_an_error_outside_rummikub(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        capsys,
        "validate",
        "carrossel",
        "--table",
        "11H 12H 13H",
        "--hand",
        "10H",
        "--after",
        "10H 11H 12H 13H",
    )
    assert code == 2 and "unknown rank '11'" in err
