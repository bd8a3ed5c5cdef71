"""F4: J, Q, K take one card of their rank, or all three when three lie there.

Vectors: tests/vectors/fishing/plays.toml, judged by the referee.
"""

from __future__ import annotations

import pytest

from tests.fishing_checks import check_play_case
from tests.fishing_vectors import Case, params


@pytest.mark.parametrize("case", params("plays", "F4"))
def test_f4_court_vectors(case: Case) -> None:
    check_play_case(case)
