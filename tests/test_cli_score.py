"""`carrossel score`: settle a round from the command line and print every line item."""

from __future__ import annotations

import pytest

from service.cli import main
from service.cli.commands.score import round_end, split_hands


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_r11_seed_four_player_knock(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "score",
        "carrossel",
        "--end",
        "knock",
        "--ender",
        "0",
        "--hands",
        "3C AH | 10H | 10S 6C | KH QS AS",
    )
    assert code == 0
    assert "B: 10 − A: 4 = 6" in out and "D: 21 − A: 4 = 17" in out
    assert "round points:  A +35, B +0, C +0, D +0" in out
    assert "game over: no" in out


def test_r12_game_end_with_totals_and_rounds_won(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "score",
        "carrossel",
        "--end",
        "knock",
        "--ender",
        "0",
        "--hands",
        "4H | KH QS 5C",
        "--totals",
        "130,120",
        "--rounds-won",
        "3,2",
    )
    assert code == 0
    assert "A: 151 ≥ 150, game bonus +100" in out
    assert "A: 4 rounds won × 25 = 100" in out
    assert "final scores:  A 351, B 170" in out
    assert "game over: A won" in out


def test_c8_void_deal(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "score",
        "carioca",
        "--end",
        "stock-exhausted",
        "--deal",
        "3",
        "--hands",
        "AS 2S | 5H JK",
    )
    assert code == 0
    assert "void deal: replay the same contract (C8)" in out


def test_malformed_round_exits_2_naming_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys,
        "score",
        "shangai",
        "--end",
        "went-out",
        "--ender",
        "1",
        "--hands",
        "3H | 4C | -",
        "--totals",
        "1,2",
        "--limit",
        "0",
    )
    assert code == 2 and out == ""
    assert "error: --totals: one entry per player (3) or none, not 2" in err
    assert "error: --limit: must be 1-1000000, not 0" in err
    assert "error: --hands hands[1]: B went out" in err
    assert "error: --hands hands[2]: C's hand is empty" in err


def test_r13_negative_totals_need_no_equals_sign(capsys: pytest.CaptureFixture[str]) -> None:
    # R13: rummikub's totals go below zero ("each other player loses their own"), and
    # `--totals -25,90` used to be taken for an unknown option.
    code, out, _ = run(
        capsys,
        "score",
        "rummikub",
        "--end",
        "went-out",
        "--ender",
        "1",
        "--hands",
        "KS | -",
        "--totals",
        "-25,90",
    )
    assert code == 0
    assert "totals after:  A -38, B 103" in out
    code, _, err = run(
        capsys,
        "score",
        "carrossel",
        "--end",
        "knock",
        "--ender",
        "0",
        "--hands",
        "4H | 5H",
        "--totals",
        "-5,0",
    )
    assert code == 2
    assert "--totals[0]: must be 0-1000000, not -5" in err


def test_split_hands() -> None:
    assert split_hands("3H 2C | KD,9S | - |") == [["3H", "2C"], ["KD", "9S"], [], []]


@pytest.mark.parametrize(
    ("spelling", "end"),
    [
        ("went out", "went_out"),
        ("went-out", "went_out"),
        ("went_out", "went_out"),
        ("WENT_OUT", "went_out"),
        ("Went Out", "went_out"),
        ("ROUND_END_WENT_OUT", "went_out"),
        ("knock", "knock"),
        ("knocked", "knock"),
        ("KNOCK", "knock"),
        ("stock exhausted", "stock_exhausted"),
        ("stock-exhausted", "stock_exhausted"),
        ("STOCK_EXHAUSTED", "stock_exhausted"),
    ],
)
def test_score_end_accepts_every_suggested_spelling(spelling: str, end: str) -> None:
    # The error message says "went out, knock or stock exhausted": each must be accepted.
    parsed = round_end(spelling)
    assert parsed is not None and parsed.value == end


def test_score_end_with_spaces_settles_the_round(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "carrossel", "--end", "went out", "--hands", "- | 9S 7C"]) == 0
    assert "round winners: A" in capsys.readouterr().out


def test_score_end_unknown_is_still_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "carrossel", "--end", "quit", "--hands", "- | 9S"]) == 2
    assert "went out, knock or stock exhausted" in capsys.readouterr().err
