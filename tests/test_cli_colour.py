"""Cards in colour on a terminal (suit symbols, red ♥ ♦), plain codes when piped or NO_COLOR."""

from __future__ import annotations

import sys

import pytest

from service.cli import main
from service.cli.display import count, show_card, show_cards

RED = "\x1b[31m"
RESET = "\x1b[0m"
VALIDATE = [
    "validate",
    "carrossel",
    "--table",
    "7H 8S JK=9",
    "--hand",
    "5C 9D KS",
    "--after",
    "5C JK 7H 8S 9D",
]


def on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)


def test_red_suits_are_red_and_black_suits_plain() -> None:
    assert show_card("7H", colour=True) == f"{RED}7♥{RESET}"
    assert show_card("10D", colour=True) == f"{RED}10♦{RESET}"
    assert show_card("KS", colour=True) == "K♠"
    assert show_card("5C", colour=True) == "5♣"


def test_wilds_keep_their_value_and_colour_it() -> None:
    assert show_card("JK", colour=True) == "JK"
    assert show_card("JK=6", colour=True) == "JK=6"
    assert show_card("JK=6H", colour=True) == f"JK={RED}6♥{RESET}"
    assert show_card("2H=6S", colour=True) == f"{RED}2♥{RESET}=6♠"


def test_plain_when_not_a_terminal() -> None:
    assert show_cards(["7H", "JK=6", "10D"], colour=False) == "7H JK=6 10D"


def test_validate_on_a_terminal_prints_symbols(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    on_a_terminal(monkeypatch)
    assert main(VALIDATE) == 0
    out = capsys.readouterr().out
    assert f"table after: 5♣ JK=6 {RED}7♥{RESET} 8♠ {RED}9♦{RESET}" in out
    assert "hand after: K♠ (10 points)" in out


def test_no_color_keeps_the_codes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    on_a_terminal(monkeypatch)
    monkeypatch.setenv("NO_COLOR", "1")
    assert main(VALIDATE) == 0
    out = capsys.readouterr().out
    assert "table after: 5C JK=6 7H 8S 9D" in out and "\x1b[" not in out


def test_piped_output_is_plain(capsys: pytest.CaptureFixture[str]) -> None:
    # capsys's stdout is no terminal, like a pipe.
    assert main(VALIDATE) == 0
    out = capsys.readouterr().out
    assert "table after: 5C JK=6 7H 8S 9D" in out and "♥" not in out


def test_hint_and_knock_colour_their_cards(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    on_a_terminal(monkeypatch)
    assert main(["hint", "carrossel", "--table", "7H 8S JK=9", "--hand", "5C 9D"]) == 0
    assert f"* 5♣ JK=6 {RED}7♥{RESET} 8♠ {RED}9♦{RESET}" in capsys.readouterr().out
    assert main(["knock", "carrossel", "--table", "7H 8S JK=9", "--hand", "5C 9D 3S"]) == 0
    assert f"{RED}7♥{RESET} 8♠ {RED}9♦{RESET}" in capsys.readouterr().out


def test_json_is_never_coloured(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    on_a_terminal(monkeypatch)
    assert main([*VALIDATE, "--json"]) == 0
    out = capsys.readouterr().out
    assert '"7H"' in out and "\x1b[" not in out


def test_counts_take_the_noun_in_the_right_number() -> None:
    # "1 points" and "1 melds changed" read wrongly in the CLI's answers.
    assert count(1, "point") == "1 point"
    assert count(0, "point") == "0 points"
    assert count(3, "meld") == "3 melds"
