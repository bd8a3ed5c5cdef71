"""Why a move is illegal: a stable code, a ruling id, the cards and meld, and a sentence."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class ViolationCode(Enum):
    """Stable violation codes (SPEC §4). The proto enum mirrors these names and order."""

    INVALID_MELD = 1
    CARD_NOT_IN_HAND = 2
    TABLE_CARD_REMOVED = 3
    NO_HAND_CARD_PLAYED = 4
    TOO_MANY_NEW_MELDS = 5
    WILD_VALUE_CHANGED = 6
    WILD_TO_HAND = 7
    WILD_MOVED = 8
    FIRST_MELD_NOT_SEQUENCE = 9
    ADD_NOT_MAXIMAL = 10
    MUST_PLAY = 11
    DRAW_RULE = 12
    KNOCK_NOT_ALLOWED = 13
    INITIAL_MELD_TOO_LOW = 14
    CONTRACT_NOT_MET = 15
    NOT_OPENED = 16
    DISCARD_RULE = 17
    AMBIGUOUS_MELD = 18
    TURN_OVER = 19


@dataclass(frozen=True)
class Violation:
    """One broken rule. ``meld`` indexes the move's table (-1 when no single meld)."""

    code: ViolationCode
    message: str
    rule: str
    meld: int = -1
    cards: tuple[str, ...] = ()

    def __str__(self) -> str:
        where = f" (meld {self.meld})" if self.meld >= 0 else ""
        return f"{self.code.name}{where} [{self.rule}]: {self.message}"
