"""F5: builds toward a kept card, owned until captured; others may take or extend them.

Vectors: tests/vectors/fishing/plays.toml, judged by the referee.
"""

from __future__ import annotations

import pytest

from tests.fishing_checks import check_play_case
from tests.fishing_vectors import Case, params


@pytest.mark.parametrize("case", params("plays", "F5"))
def test_f5_builds_vectors(case: Case) -> None:
    check_play_case(case)
