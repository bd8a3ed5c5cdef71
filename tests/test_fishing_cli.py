"""`carrossel fish` and `carrossel score-deal`: the issue's CLI examples (F3-F10)."""

from __future__ import annotations

import pytest

from service.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_f5_fish_the_issue_example(capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's example: the 6 takes player 1's build of 6 (2H 3S AC) before 7S takes 3+4."""
    code, out, _ = run(
        capsys, "fish", "carosello", "--table", "3C 4D [2H 3S AC=6 @1]", "--hand", "7S 6H"
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "1. 6H takes [2H 3S AC =6 @1]: 3 points, 4 cards, 2 of the prize suit"
    assert lines[1] == "2. 7S takes 3C + 4D: 0 points, 3 cards, 0 of the prize suit"
    assert lines[-1] == "optimal"


def test_f8_fish_to_the_deal_end(capsys: pytest.CaptureFixture[str]) -> None:
    """«proteggere la fine»: 2C keeps the last capture, 8C's bigger capture loses it."""
    code, out, _ = run(
        capsys,
        "fish",
        "karusele",
        "--table",
        "2D 6H",
        "--hand",
        "8C 2C",
        "--deal-end",
        "--hands",
        "1: 9D JK11",
        "--last-capturer",
        "1",
        "--piles",
        "KH AC 4H BROOM 8S KS QS 8H KC 3S JD 5H 2H 6S 8D 5S 9S 10D 7D 6D 7C QC | JS 10C 7S AS "
        "4D 6C 9C 2S 4S AD JK15 JH 3D 7H 5C JC 4C 10S 5D QH 9H 3C 3H 10H AH KD JK20 QD",
    )
    assert code == 0
    assert out.splitlines()[0].startswith("1. 2C takes 2D")
    assert "deal end: 9 / 21 (margin -12)" in out


def test_fish_reports_a_bad_code(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "fish", "carosello", "--table", "3C ZZ", "--hand", "7S")
    assert code == 2
    assert "table[1].cards[0]" in err


def test_f9_score_deal_thirty_points(capsys: pytest.CaptureFixture[str]) -> None:
    """003: 30 points in a 56-card deal; 110 + 28 reaches 120 and wins (F10)."""
    code, out, _ = run(
        capsys,
        "score-deal",
        "carosello",
        "--totals",
        "110,60",
        "--piles",
        "JK20 JK15 JK11 10D AC AD AS AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH | rest",
    )
    assert code == 0
    assert "deal points:  side 0 28, side 1 2" in out
    assert "game over: side 0 wins (F10)" in out


def test_score_deal_reports_a_card_outside_the_deck(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(capsys, "score-deal", "carosello", "--deck", "54", "--piles", "JK20 | 7H")
    assert code == 2
    assert "piles[0].cards[0]" in err


def test_f3_fish_play_suggest_marks_the_kept_group(capsys: pytest.CaptureFixture[str]) -> None:
    """004's «más combinaciones»: the merged 3 + 4 + 7 is split again, 2 + 5 kept (#53)."""
    code, out, _ = run(
        capsys,
        "fish",
        "carosello",
        "--table",
        "3C 4D 7H 2C 5S KD",
        "--hand",
        "7S 6H",
        "--play",
        "7S takes 0+1+2 3+4",
        "--suggest",
    )
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "illegal"
    assert "(F3)" in lines[1]
    assert lines[2] == (
        "nearest legal: 7S takes 3C + 4D, 7H, 2C + 5S: 0 points, 6 cards, 1 of the prize suit"
    )
    assert lines[3] == "  proposed groups: (0 1 2) *(3 4) (* = kept as proposed)"
    assert lines[4].startswith("  Nearest legal play with 7S: keeps 1 of the 2 proposed groups")


def test_f5_fish_play_suggest_another_card(capsys: pytest.CaptureFixture[str]) -> None:
    """003: the own build must be taken next turn, so only the 6 may play (#53)."""
    code, out, _ = run(
        capsys,
        "fish",
        "carosello",
        "--table",
        "[2H 3S AC =6 @0] 4D 2C",
        "--hand",
        "6D 4S",
        "--play",
        "4S takes 1",
        "--suggest",
    )
    assert code == 1
    assert "nearest legal: 6D takes [2H 3S AC =6 @0], 4D + 2C" in out
    assert "No legal play uses 4S; nearest legal play with 6D" in out


def test_fish_play_legal_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "fish",
        "carosello",
        "--table",
        "3C 4D",
        "--hand",
        "7S",
        "--play",
        "7S takes (0 1)",
        "--suggest",
    )
    assert (code, out.splitlines()[0]) == (
        0,
        "legal: 7S takes 3C + 4D: 0 points, 3 cards, 0 of the prize suit",
    )
    code, out, _ = run(
        capsys,
        "fish",
        "carosello",
        "--table",
        "3C 4D",
        "--hand",
        "7S",
        "--play",
        "7S takes 0 1",
        "--suggest",
        "--json",
    )
    assert code == 1
    assert '"nearest_kept_groups"' not in out and '"suggestion_optimal": true' in out


def test_fish_suggest_needs_a_play_and_a_readable_one(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "fish", "carosello", "--table", "3C", "--hand", "7S", "--suggest")
    assert code == 2 and "--suggest needs --play" in err
    code, _, err = run(
        capsys, "fish", "carosello", "--table", "3C", "--hand", "7S", "--play", "7S eats 0"
    )
    assert code == 2 and "write a play as" in err
    code, _, err = run(
        capsys,
        "fish",
        "carosello",
        "--table",
        "3C",
        "--hand",
        "7S",
        "--play",
        "7S takes 4",
        "--suggest",
    )
    assert code == 2 and "play.capture.groups[0].items[0]" in err
