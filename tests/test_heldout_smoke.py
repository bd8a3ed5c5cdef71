"""bench/heldout.py runs every family on a couple of held-out seeds, and a disagreement (or a
crash) on a position is reported with its reproduction and fails the run. The campaign itself
(thousands of positions) is a bench run, recorded in bench/HISTORY.md."""

from __future__ import annotations

import pytest

from bench import heldout
from tests.reference import fishing_bruteforce


def test_every_family_runs_and_agrees(capsys: pytest.CaptureFixture[str]) -> None:
    families = ",".join(heldout.FAMILIES)
    assert heldout.main(["--n", "2", "--n", "mip=1", "--families", families]) == 0
    out = capsys.readouterr().out
    for line in (
        "rearrangement carrossel: 2 compared, 2 agree, 0 disagree",
        "carioca deal 7: 2 compared, 2 agree, 0 disagree",
        "fishing-solve: 2 compared, 2 agree",
        "fishing-referee: 2 compared, 2 agree",
        "fishing-endgame: 2 compared, 2 agree",
        "suggest rummikub: 2 compared, 2 agree",
        "carioca-suggest: 2 compared, 2 agree",
        "fishing-suggest karusele: 2 compared, 2 agree",
        "mip shangai: 1 compared, 1 agree",
        "rummikub opening: 2 compared, 2 agree",
        "mexe-twos (a wild 2 standing for a 2): 2 compared, 2 agree",
    ):
        assert line in out, out
    assert "0 disagree; " in out.splitlines()[-1]


def test_a_disagreement_is_reported_with_its_seed_and_fails(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reference that ranks differently (here: one made-up key) must show up."""
    monkeypatch.setattr(fishing_bruteforce, "best_keys", lambda *_: [(99, 0, 0)])
    assert heldout.main(["--n", "1", "--families", "fishing-solve", "--base", "11"]) == 1
    out = capsys.readouterr().out
    assert "DISAGREE fishing-solve: seed 11 " in out
    assert "reference [(99, 0, 0)]" in out
    assert "[play_sample(11)]" in out


def test_a_crash_on_a_position_is_a_disagreement_not_the_end(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(fishing_bruteforce, "legal_plays", broken)
    assert heldout.main(["--n", "2", "--families", "fishing-referee"]) == 1
    out = capsys.readouterr().out
    assert "fishing-referee: 2 compared, 0 agree, 2 disagree" in out
    assert out.count("raised RuntimeError: boom") == 2


def test_counts_per_family() -> None:
    assert heldout._counts(["5", "carioca=7"]) == (5, {"carioca": 7})
    with pytest.raises(ValueError, match="unknown family"):
        heldout._counts(["cards=3"])
