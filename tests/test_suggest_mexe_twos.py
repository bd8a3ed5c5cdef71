"""Mexe-mexe's 2s in a suggestion (issue #53, R5): key 2 keeps a proposed meld only with
its very cards, so the model must tell a natural 2♥ (or the table's ``2H=2H``) from a wild
2♠, and one 2♥ cannot fill two proposed melds. Both cases were misses of the 1,000-per-
ruleset differential (``python -m bench.suggest_differential mexe-mexe``, positions of seed
53000 on); each suggestion must equal the brute-force reference key by key."""

from __future__ import annotations

import subprocess
import sys

import pytest

from solver.rearrangement.suggest import suggest_move
from solver.rummy.position import Turn, parse_move, parse_position
from tests.reference.suggest_oracle import Oracle, keys_of


def melds(text: str) -> list[list[str]]:
    return [meld.split() for meld in text.split("|")]


CASES = [
    pytest.param(
        2,
        # The table's 2H=2H stands for itself: the proposal's run 2S=AH 2H 3H..6H keeps it
        # (a new meld, so counted through the pool, where that 2♥ is a table wild).
        "2H=2H 3H 4H 5H 6H | QD KD AD",
        "2S AH JD",
        "JD QD | 2S=AH 2H=2H 3H 4H 5H 6H | KD AD",
        (2, 1, -2),
        (1,),
        id="r5-table-2-standing-for-itself",
    ),
    pytest.param(
        5,  # two decks: the proposal shows the hand's 2♥ twice
        # One 2♥ in the proposal's two melds: only one can keep it; the 2♠ released by the
        # hand's A♦ goes back to the hand, so the hearts run stays as it was (key 3).
        "JH QH KH | JD QD KD 2S=AD",
        "2H JS JC AD",
        "QD KD AD | JD JS 2H=J | JH QH KH 2H",
        (3, 2, -1),
        (0, 1),
        id="r5-one-wild-2-for-one-meld",
    ),
]


@pytest.mark.parametrize(("players", "table", "hand", "proposed", "keys", "kept"), CASES)
def test_r5_mexe_mexe_twos_are_told_apart(
    players: int,
    table: str,
    hand: str,
    proposed: str,
    keys: tuple[int, int, int],
    kept: tuple[int, ...],
) -> None:
    position = parse_position("mexe-mexe", players, melds(table), hand.split(), Turn(cards_drawn=1))
    proposal = parse_move(position, melds(proposed))
    expected = Oracle(position).nearest(proposal)
    assert expected.keys == keys  # the reference's own answer, as the campaign printed it
    found = suggest_move(position, proposal)
    assert found.move is not None and found.optimal
    solved = found.move.solved
    assert solved.verdict.legal
    got = keys_of(position, proposal, solved.move.table, len(solved.verdict.played))
    assert got == keys
    assert found.move.kept == kept  # the proposal's melds it names as kept


def test_the_references_import_no_cp_sat() -> None:
    # The oracles are the evidence the model is right: they use the referee only.
    code = (
        "import sys; import tests.reference.suggest_oracle, tests.reference.bruteforce; "
        "bad = [m for m in sys.modules if m.startswith('ortools') "
        "or m == 'solver.rearrangement.search']; print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
