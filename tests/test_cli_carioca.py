"""``carrossel validate carioca`` and ``carrossel hint carioca`` (C2-C6): the flags --deal,
--opened, --discard and --discard-top, with the exit statuses of the other games."""

from __future__ import annotations

import pytest

from service.cli import main

SEED_HAND = "8C 8D 8H 4S 5S 6S 7S 8S KD"


def test_validate_the_seed_opening(capsys: pytest.CaptureFixture[str]) -> None:
    # Seed 002 §10: deal 2, 8♣ 8♦ 8♥ + 4♠ 5♠ 6♠ 7♠ opens (C4).
    code = main(
        [
            "validate",
            "carioca",
            "--deal",
            "2",
            "--drawn",
            "1",
            "--hand",
            SEED_HAND,
            "--after",
            "8C 8D 8H | 4S 5S 6S 7S",
            "--discard",
            "KD",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("legal\n")
    assert "hand after: 8S (8 points)" in out


def test_validate_the_extra_8s_is_contract_not_met(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "validate",
            "carioca",
            "--deal",
            "2",
            "--hand",
            SEED_HAND,
            "--after",
            "8C 8D 8H | 4S 5S 6S 7S 8S",
            "--discard",
            "KD",
        ]
    )
    assert code == 1
    assert "CONTRACT_NOT_MET" in capsys.readouterr().out


def test_validate_lay_off_after_opening(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "validate",
            "carioca",
            "--deal",
            "2",
            "--opened",
            "--table",
            "8C 8D 8H | 4S 5S 6S 7S",
            "--hand",
            "8S QD",
            "--after",
            "8C 8D 8H | 4S 5S 6S 7S 8S",
            "--discard",
            "QD",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "went out: yes" in out


def test_validate_a_bad_discard_is_malformed(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "validate",
            "carioca",
            "--deal",
            "2",
            "--hand",
            SEED_HAND,
            "--after",
            "",
            "--discard",
            "KX",
        ]
    )
    assert code == 2
    assert "move.discard" in capsys.readouterr().err


def test_hint_opens(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["hint", "carioca", "--deal", "2", "--hand", SEED_HAND + " 2C 3C"])
    out = capsys.readouterr().out
    assert code == 0
    assert "discard KD -> hand 9 points" in out and "* 5S 6S 7S 8S" in out


def test_hint_draw_decision(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "hint",
            "carioca",
            "--deal",
            "2",
            "--hand",
            "8C 8D 4S 5S 6S 7S KD 2C 3C 9H 10C",
            "--discard-top",
            "8H",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("take 8H: 24 points left at best, 72 drawing from the stock")


def test_hint_bad_discard_top_is_malformed(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["hint", "carioca", "--deal", "2", "--hand", "8C", "--discard-top", "ZZ"])
    assert code == 2
    assert "position.discard_top" in capsys.readouterr().err


def test_hint_deal_out_of_range_is_malformed(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["hint", "carioca", "--deal", "8", "--hand", "8C"])
    assert code == 2
    assert "position.turn.deal_number" in capsys.readouterr().err
