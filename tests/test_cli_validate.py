"""``carrossel validate``: the verdict and every reason, with exit status 0 / 1 / 2."""

from __future__ import annotations

import pytest

from service.cli import main


def test_cli_validate_legal(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "validate",
            "carrossel",
            "--drawn",
            "1",
            "--table",
            "7H 8S JK=9",
            "--hand",
            "5C 9D KS",
            "--after",
            "5C JK 7H 8S 9D",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("legal\n")
    assert "table after: 5C JK=6 7H 8S 9D" in out
    assert "hand after: KS (10 points)" in out


def test_cli_validate_illegal_lists_every_reason(capsys: pytest.CaptureFixture[str]) -> None:
    # --drawn 0: the default is the 1 card a carrossel play needs, which would drop DRAW_RULE.
    code = main(
        [
            "validate",
            "carrossel",
            "--drawn",
            "0",
            "--table",
            "7H 8S JK=9 | 5C 5D 5S",
            "--hand",
            "5H",
            "--after",
            "5C JK 7H 8S | 5D 5S",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("illegal\n")
    for code_name in ("WILD_VALUE_CHANGED", "INVALID_MELD", "NO_HAND_CARD_PLAYED", "DRAW_RULE"):
        assert code_name in out


def test_cli_validate_mexe_mexe_to_hand(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "validate",
            "mexe-mexe",
            "--drawn",
            "1",
            "--table",
            "4H 5H 6H 2C 8H",
            "--hand",
            "7H",
            "--after",
            "4H 5H 6H 7H 8H",
            "--to-hand",
            "2C",
        ]
    )
    assert code == 0
    assert "hand after: 2C (2 points)" in capsys.readouterr().out


def test_cli_validate_malformed(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["validate", "carrossel", "--table", "7H 8S JK=9", "--hand", "5X", "--after", "7H 8S JK=9"]
    )
    assert code == 2
    assert "position.hand[0]" in capsys.readouterr().err


def test_cli_validate_suggest_marks_the_kept_meld(capsys: pytest.CaptureFixture[str]) -> None:
    # Issue #53, R5's seed: 5-Jk(6)-7-8 cannot be made without a 9 in the joker's place, so
    # three of the four cards are the most; the proposed group of 9s is kept (marked *).
    code = main(
        [
            "validate",
            "carrossel",
            "--drawn",
            "1",
            "--table",
            "7H 8S JK=9",
            "--hand",
            "5C 9D 9C 9H",
            "--after",
            "5C JK=6 7H 8S | 9D 9C 9H",
            "--suggest",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("illegal\n")
    assert "nearest legal: 7H 8S JK=9 | *9C 9D 9H" in out
    assert "played: 9C 9D 9H" in out


def test_cli_validate_suggest_none(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "validate",
            "carrossel",
            "--drawn",
            "1",
            "--table",
            "7H 8S JK=9",
            "--hand",
            "5C 9D",
            "--after",
            "5C JK=6 7H 8S",
            "--suggest",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "nearest legal: none. No legal play lays any of the proposal's hand cards (5C)." in out
