"""Key 2 (SPEC §4 ValidateMove ``suggest``; issue #53) where a proposal repeats a meld:
the copies beyond the melds before of its kind can only be laid new, and the model counts
them so (``suggest._proposal_melds_kept``); the table read back is dealt with as many
copies as proposed (``suggest_melds.deal_as_proposed``).

The position is ``bench.suggest_deferred``'s ``mexe-mexe-large-1-3``: the proposal lays the
hand's A♥ 3♥…K♥ and 10♦, the 10♦ releasing the table's 2♥ (R5), as a second ``AH 2H … KH``
beside the table's own. Before, the model did not count that second copy, so a search could
prove a table with the 2♥ back in the hand (8 melds kept) while another keeps 9: which one
it found changed with the model's rows.
"""

from __future__ import annotations

import pytest

from solver.rearrangement import suggest
from solver.rummy.position import Move, Turn, parse_position
from tests.test_suggest_mexe_twos import melds, proposed

TABLE = (
    "AS 2S 3S 4S 5S | AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC | 2D 3D 4D 5D 6D"
    " | AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH | AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"
    " | 7D 8D 9D 2H=10D JD QD KD AD | 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC"
    " | 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD | 9S 10S JS QS KS | 6S 7S 8S"
)
HAND = "AH 3H 4H 5H 6H 7H 8H 9H 10D 10H JH QH KH"
PROPOSAL = (
    "AS 2S 3S 4S 5S | AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC 3D QC KC | 2D 3D 4D 5D 6D"
    " | AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH | AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"
    " | 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC | 2D 4D | 9S 10S JS QS KS | 6S 7S 8S"
    " | 7D 8D 9D 10D JD QD KD AD | AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"
    " | 5D 6D 7D 8D 9D 10D JD QD KD AD"
)
# Every hand card laid, 9 of the 12 proposed melds kept, 1 meld before changed (the one
# whose 2♥ the 10♦ releases).
KEYS = (13, 9, 1)


def _keys(found: suggest.Suggestion) -> tuple[int, int, int]:
    assert found.move is not None
    solved = found.move.solved
    assert solved.verdict.legal
    return len(solved.verdict.played), len(found.move.kept), solved.melds_changed


@pytest.mark.parametrize(
    ("shortcuts", "from_deck"),
    [(True, True), (True, False), (False, False)],
    ids=["shortcuts-deck-pool", "shortcuts-built-pool", "whole-model"],
)
def test_a_copy_of_a_meld_before_laid_new_counts_for_key_2(
    shortcuts: bool, from_deck: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(suggest, "DEFER_RUN_NATURALS", shortcuts)
    monkeypatch.setattr(suggest, "RELAX_NEW_MELDS", shortcuts)
    monkeypatch.setattr(suggest, "POOL_FROM_DECK", from_deck)
    position = parse_position("mexe-mexe", 3, melds(TABLE), HAND.split(), Turn(cards_drawn=1))
    move: Move = proposed(PROPOSAL)
    found = suggest.suggest_move(position, move, time_limit_ms=30_000)
    assert _keys(found) == KEYS
    assert found.optimal


def test_a_proposed_meld_twice_is_dealt_twice() -> None:
    """``differential`` seed 553109 (carrossel): the proposal lays ``AD AH AS`` twice, new
    melds both; the model counts two groups of those aces, but the table read back dealt
    them ``AC AH JK=A | AD AS JK=A``, showing one. The deal as proposed used to skip a
    proposed meld already on the table once, so the answer kept 1 and was marked not
    proved nearest; the reference keeps 2 (one joker trade: ``AC JK=A JK=A``)."""
    position = parse_position(
        "carrossel",
        5,
        melds("JK AS AD | AH AS AD AC"),
        ["AC", "AH", "JK"],
        Turn(cards_drawn=2, has_opened=False),
    )
    found = suggest.suggest_move(position, proposed("JK=Q JK=J AC | AD AH AS | AD AH AS"))
    assert _keys(found) == (2, 2, 2)
    assert found.optimal
