"""F2: A = 1, 2-10 face value, numbered jokers 11/15/20; J Q K have no value.

Vectors: tests/vectors/fishing/plays.toml, judged by the referee.
"""

from __future__ import annotations

import pytest

from tests.fishing_checks import check_play_case
from tests.fishing_vectors import Case, params


@pytest.mark.parametrize("case", params("plays", "F2"))
def test_f2_values_vectors(case: Case) -> None:
    check_play_case(case)
