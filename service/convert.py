"""Protobuf <-> domain conversion shared by every service. The proto types never travel
below ``service/``; each family's own conversions live in its package (``service/rummy``).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import TYPE_CHECKING, TypeVar

from service import limits
from solver.core.cards import Card, TableCard
from solver.core.errors import FieldProblem, InvalidRequest

if TYPE_CHECKING:
    from google.protobuf.internal.enum_type_wrapper import _EnumTypeWrapper

V = TypeVar("V", bound=int)

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


# --- enums --------------------------------------------------------------------------------


def enum_to_proto(wrapper: _EnumTypeWrapper[V], prefix: str, member: Enum) -> V:
    """The proto enum value named ``PREFIX_MEMBER`` for a domain enum member."""
    return wrapper.Value(f"{prefix}_{member.name}")


# --- request bounds ------------------------------------------------------------------------


def check_code_count(count: int, field: str) -> None:
    """Refuse a request with absurdly many card codes before parsing any of them (SPEC §5)."""
    if count > limits.MAX_CODES_PER_REQUEST:
        raise InvalidRequest(
            [
                FieldProblem(
                    field,
                    f"{count} card codes in one request; at most "
                    f"{limits.MAX_CODES_PER_REQUEST} are accepted",
                )
            ]
        )


def codes(cards: Iterable[Card | TableCard]) -> list[str]:
    """Canonical codes of cards, in order."""
    return [c.code for c in cards]
