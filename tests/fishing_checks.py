"""Checks shared by the fishing ruling tests: one vector case against the solver's answer."""

from __future__ import annotations

from solver.fishing.notation import parse_table_text
from solver.fishing.position import parse_position
from solver.fishing.referee import judge as referee_judge
from solver.fishing.referee import parse_play
from tests.fishing_vectors import Case, raw_play, raw_position


def check_play_case(case: Case) -> None:
    """Validate the case's play with the solver's referee and compare every expected fact."""
    position = parse_position(raw_position(case))
    play = parse_play(raw_play(case), len(position.table))
    verdict = referee_judge(position, play)
    expect = case["expect"]
    assert verdict.legal is expect["legal"]
    assert [v.code.name for v in verdict.violations] == expect["violations"]
    for violation in verdict.violations:
        assert violation.rule.startswith("F") and violation.message
    if not expect["legal"]:
        assert verdict.outcome is None
        return
    assert verdict.outcome is not None
    assert [c.code for c in verdict.outcome.captured] == expect["captured"].split()
    assert [item.text for item in verdict.outcome.table_after] == expect["table_after"]
    assert verdict.outcome.deal_points == expect["deal_points"]
    # The table after, written out, reads back as the same items (notation round trip).
    written = " ".join(item.text for item in verdict.outcome.table_after)
    assert len(parse_table_text(written)) == len(verdict.outcome.table_after)
