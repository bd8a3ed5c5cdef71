"""F7: a trail only when no capture and no build is possible with any hand card.

Vectors: tests/vectors/fishing/plays.toml, judged by the referee.
"""

from __future__ import annotations

import pytest

from tests.fishing_checks import check_play_case
from tests.fishing_vectors import Case, params


@pytest.mark.parametrize("case", params("plays", "F7"))
def test_f7_trail_vectors(case: Case) -> None:
    check_play_case(case)
