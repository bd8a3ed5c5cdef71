"""The fishing suggestion's search (issue #53) under its clock: a caller that gives up stops
it (solver/core/cancel.py), and the tightest time limit still answers with a legal play."""

from __future__ import annotations

import pytest

from solver.core import cancel
from solver.fishing.notation import parse_table_text
from solver.fishing.position import Position, RawPosition, parse_position
from solver.fishing.referee import RawPlay, judge, parse_play
from solver.fishing.suggest import suggest_play


def position_and_play() -> tuple[Position, RawPlay]:
    """004's «más combinaciones» with two groups merged: the capture model must run (F3)."""
    raw = RawPosition("carrusel", parse_table_text("3C 4D 7H 2C 5S KD"), ["7S", "6H"])
    return parse_position(raw), RawPlay("7S", "capture", groups=[[0, 1, 2], [3, 4]])


def test_f3_a_cancelled_caller_stops_the_suggestion() -> None:
    position, raw = position_and_play()
    play = parse_play(raw, len(position.table))
    token = cancel.CancelToken()
    token.cancel()
    with cancel.scope(token), pytest.raises(cancel.Cancelled):
        suggest_play(position, play)


def test_f3_the_tightest_time_limit_still_answers_legally() -> None:
    position, raw = position_and_play()
    play = parse_play(raw, len(position.table))
    suggestion = suggest_play(position, play, time_limit_ms=1)
    assert suggestion.note
    if suggestion.play is not None:
        assert judge(position, suggestion.play.solved.play).legal
    again = suggest_play(position, play, time_limit_ms=1)
    if again.optimal and suggestion.optimal:  # proved twice: the same answer (SPEC §5)
        assert (again.play, again.note) == (suggestion.play, suggestion.note)
