"""F6: the broom sweeps the whole table, and only the broom sweeps.

Vectors: tests/vectors/fishing/plays.toml, judged by the referee.
"""

from __future__ import annotations

import pytest

from tests.fishing_checks import check_play_case
from tests.fishing_vectors import Case, params


@pytest.mark.parametrize("case", params("plays", "F6"))
def test_f6_broom_vectors(case: Case) -> None:
    check_play_case(case)
