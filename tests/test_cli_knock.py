"""``carrossel knock``: CheckKnock (R10) from the command line, with the shared position options."""

from __future__ import annotations

import pytest

from service.cli import main

TABLE = ["--table", "7H 8S JK=9"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_knock_after_a_move_leaving_three_points(capsys: pytest.CaptureFixture[str]) -> None:
    # R10: a play that leaves 1-5 points (here 3S) may knock.
    code, out, _ = run(
        capsys, "knock", "carrossel", *TABLE, "--hand", "5C 9D 3S", "--after", "5C JK 7H 8S 9D"
    )
    assert code == 0
    assert out == "may knock: yes\nhand after: 3 points\n"


def test_no_knock_with_ten_points_left_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "knock", "carrossel", *TABLE, "--hand", "5C 9D KS", "--after", "5C JK 7H 8S 9D"
    )
    assert code == 1
    assert "may knock: no" in out
    assert "the hand left is worth 10 points; a knock needs 1-5 (R10)" in out


def test_no_knock_after_an_illegal_move(capsys: pytest.CaptureFixture[str]) -> None:
    # The default turn has drawn the card R8 asks for; --drawn 0 makes the same play illegal.
    code, out, _ = run(
        capsys,
        "knock",
        "carrossel",
        "--drawn",
        "0",
        *TABLE,
        "--hand",
        "5C 9D 3S",
        "--after",
        "5C JK 7H 8S 9D",
    )
    assert code == 1 and "the move is illegal" in out and "R8" in out


def test_reach_without_a_move_prints_the_witness(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "knock", "carrossel", *TABLE, "--hand", "5C 9D 3S")
    assert code == 0
    assert "hand now: 17 points; lowest reachable: 0 points" in out
    assert "knock reachable: yes; going out reachable: yes" in out
    assert "witness (the lowest total):" in out and "optimal" in out


def test_reach_when_nothing_can_be_played(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "knock", "carrossel", "--hand", "KS 2D")
    assert code == 1
    assert "knock reachable: no; going out reachable: no" in out
    assert "no legal play exists this turn, so no knock (R10)" in out
    assert "witness" not in out


def test_rulesets_without_a_knock_say_so(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "knock", "rummikub", "--table", "11H 12H 13H", "--hand", "10H 2C")
    assert code == 1 and "there is no knock in rummikub (R10)" in out
    assert "    10H JH QH KH" in out  # numbered tiles in, codes out


def test_carioca_refuses_the_question(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "knock", "carioca", "--deal", "2", "--hand", "5C")
    assert code == 2 and "position.ruleset: carioca has no knock" in err


def test_malformed_position_names_the_field(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "knock", "carrossel", "--hand", "5X")
    assert code == 2 and "position.hand[0]" in err
