"""Two formulations of the turn model that must hold the same tables, compared by answer."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from bench.positions import PositionSpec
from solver.rearrangement import search
from solver.rearrangement.search import solve_move


def variants_agree(
    specs: Sequence[PositionSpec],
    monkeypatch: pytest.MonkeyPatch,
    constant: str,
    values: tuple[object, object],
    module: object = search,
) -> int:
    """``solve_move`` with ``<module>.<constant>`` (by default ``search``'s) at each of
    ``values``: where both prove
    their answer, the primary value is the same, and so are the melds changed where both
    tie-breaks are proved. Returns how many positions were compared."""
    compared = 0
    for spec in specs:
        position = spec.position()
        answers = []
        for value in values:
            monkeypatch.setattr(module, constant, value)
            answers.append(solve_move(position))
        one, other = answers
        if not (one.optimal and other.optimal):
            continue
        compared += 1
        assert one.stats.objective_value == other.stats.objective_value, spec.name
        if one.stats.tie_break_proved and other.stats.tie_break_proved and other.moves:
            changed = (one.moves[0].melds_changed, other.moves[0].melds_changed)
            assert changed[0] == changed[1], spec.name
    return compared
