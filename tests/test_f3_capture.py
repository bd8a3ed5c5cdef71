"""F3: a capture takes disjoint groups, each one item of the card's value or items summing to it.

Vectors: tests/vectors/fishing/plays.toml, judged by the referee.
"""

from __future__ import annotations

import pytest

from tests.fishing_checks import check_play_case
from tests.fishing_vectors import Case, params


@pytest.mark.parametrize("case", params("plays", "F3"))
def test_f3_capture_vectors(case: Case) -> None:
    check_play_case(case)
