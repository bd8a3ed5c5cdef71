"""The cheap paths of a ValidateMove call (issue #51) decide as the plain ones did.

SPEC §5 bounds every card code's length before the request is parsed: the size shortcut of
``service.bounds`` (a meld's codes told from the meld's size) must refuse exactly the melds
the per-code check refuses, whatever the codes' lengths and characters.
"""

from __future__ import annotations

import random

import pytest

from carrossel.v1 import rummy_pb2
from service import bounds, limits
from solver.core.errors import InvalidRequest

LONGEST = limits.MAX_CODE_LENGTH
ALPHABET = "AKQJT0123456789HSDC=♠♥♦♣ſ"  # multi-byte characters too: bytes ≠ characters


def _request(melds: list[list[str]]) -> rummy_pb2.ValidateMoveRequest:
    return rummy_pb2.ValidateMoveRequest(
        position=rummy_pb2.RummyPosition(ruleset="carrossel", players=3),
        move=rummy_pb2.RummyMove(table=[rummy_pb2.Meld(cards=meld) for meld in melds]),
    )


def _refused_paths(request: rummy_pb2.ValidateMoveRequest) -> list[str]:
    try:
        bounds.check(request)
    except InvalidRequest as error:
        return [problem.field for problem in error.problems]
    return []


@pytest.mark.parametrize("seed", range(5))
def test_code_lengths_are_refused_exactly_where_a_code_is_too_long(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(300):
        melds = [
            [
                "".join(rng.choices(ALPHABET, k=rng.choice((1, 2, 3, 5, 8, LONGEST, LONGEST + 1))))
                for _ in range(rng.randint(0, 6))
            ]
            for _ in range(rng.randint(1, 4))
        ]
        too_long = [
            f"move.table[{m}].cards[{c}]"
            for m, meld in enumerate(melds)
            for c, code in enumerate(meld)
            if len(code) > LONGEST
        ]
        assert _refused_paths(_request(melds)) == too_long[: bounds.MAX_PROBLEMS]


def test_a_meld_of_short_codes_whose_sum_is_long_is_within_bounds() -> None:
    meld = ["10H", "JK=10S", "10D", "10C", "JK=10"]  # 21 characters, none beyond the bound
    assert _refused_paths(_request([meld])) == []


def test_one_code_past_the_bound_in_a_short_meld_is_refused() -> None:
    assert _refused_paths(_request([["7H", "7" * (LONGEST + 1)]])) == ["move.table[0].cards[1]"]
