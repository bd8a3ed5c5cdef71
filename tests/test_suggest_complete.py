"""The suggestion found by completing the proposal (``suggest_complete``, issue #53, SPEC
§4 ValidateMove ``suggest``): where the nearest legal move keeps every proposed meld that is
a meld, it is found without the model, proved, and its keys are the model's (shangai and
manipulation's tables judged with R8's largest add, asked once per question). The
brute-force differential (``tests/test_suggest_vs_bruteforce.py``) runs through it too."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from bench.suggest_bench import judged_proposals
from solver.rearrangement import suggest, suggest_complete
from solver.rearrangement.budget import Budget
from solver.rummy.position import Turn, parse_move, parse_position


def _no_search(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the model was searched")


def test_two_broken_runs_relaid_keep_every_meld_without_a_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """R2 (a run is one suit in Rummikub): `7H 8H 9H 10C` and `JC QC` are no melds, and
    their cards make `7H 8H 9H` and `10C JC QC`; the meld before stays (R6: none changed)."""
    position = parse_position(
        "rummikub",
        2,
        [["4S", "5S", "6S"]],
        ["7H", "8H", "9H", "10C", "JC", "QC", "KD"],
        Turn(has_opened=True),
    )
    proposal = parse_move(position, [["4S", "5S", "6S"], ["7H", "8H", "9H", "10C"], ["JC", "QC"]])
    monkeypatch.setattr(Budget, "solver", _no_search)
    answer = suggest.suggest_move(position, proposal)
    assert answer.optimal and answer.move is not None
    assert answer.move.same_cards and answer.move.kept == (0,)
    tables = {" ".join(tc.code for tc in meld) for meld in answer.move.solved.move.table}
    assert tables == {"4S 5S 6S", "7H 8H 9H", "10C JC QC"}
    assert answer.move.solved.melds_changed == 0


def test_a_wild_whose_value_changed_is_left_to_the_model() -> None:
    """R5: the joker stood for 9 and may not stand for 6. Both proposed melds are melds, so
    the completion lists only the proposal's own table, which is illegal: the model then
    finds the nearest move (it lays 9C 9D 9H and keeps that group, docs/validate.md)."""
    position = parse_position(
        "carrossel", 2, [["7H", "8S", "JK=9"]], ["5C", "9D", "9C", "9H"], Turn(cards_drawn=1)
    )
    proposal = parse_move(position, [["5C", "JK=6", "7H", "8S"], ["9D", "9C", "9H"]])
    wanted = suggest.proposal_hand_cards(position, proposal)
    written = suggest.written_out(position.ruleset, proposal)
    assert suggest_complete.completed_move(position, written, wanted) is None
    answer = suggest.suggest_move(position, proposal)
    assert answer.optimal and answer.move is not None
    assert answer.move.kept == (1,) and not answer.move.same_cards


@pytest.mark.parametrize(
    "ruleset_id", ["carrossel", "mexe-mexe", "rummikub", "vatikan", "shangai", "manipulation"]
)
def test_the_completed_suggestions_keys_are_the_models(
    ruleset_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the bench's mid proposals, keys (cards laid, melds kept, melds changed) and proof
    with the completion first and with the model alone are the same, and the completion
    answers most of them."""
    completed = 0
    compared = 0
    for _, position, proposal in judged_proposals(ruleset_id, "mid", 12, 41):
        answers = {}
        for first in (True, False):
            monkeypatch.setattr(suggest, "COMPLETE_PROPOSAL", first)
            answer = suggest.suggest_move(position, proposal, 20_000)
            move = answer.move
            keys = None
            if move is not None:
                played = Counter(move.solved.verdict.played)
                keys = (sum(played.values()), len(move.kept), move.solved.melds_changed)
            answers[first] = (keys, answer.optimal)
        if not answers[False][1]:
            continue  # the model did not prove its answer: nothing to compare with
        compared += 1
        assert answers[True] == answers[False], position
        wanted = suggest.proposal_hand_cards(position, proposal)
        written = suggest.written_out(position.ruleset, proposal)
        completed += suggest_complete.completed_move(position, written, wanted) is not None
    assert compared >= 6
    assert completed * 2 >= compared  # the completion is the common way, not a rare one
