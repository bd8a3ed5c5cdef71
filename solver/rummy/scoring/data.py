"""Scoring facts per settlement kind, kept as data.

``SETTLEMENTS`` says, per settlement kind, which round ends it accepts, how its game ends
and which rulings it applies. What a tie at the top means is the ruleset's own
(``Ruleset.game_end_tie``: manipulation plays another hand, R13).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType

from solver.core.rulesets import Ruleset, Settlement
from solver.rummy.scoring.types import RoundEnd


class GameEndKind(Enum):
    """What ends a game."""

    TARGET = "target"  # a total reaches the game target (or the request's game_limit)
    FIRST_OUT = "first_out"  # the first player to go out wins the game (R13)
    LAST_DEAL = "last_deal"  # carioca: after the last contract's deal (C7)


@dataclass(frozen=True)
class SettlementTraits:
    """The shape of one settlement kind."""

    ends: frozenset[RoundEnd]  # round ends it can score (a knock also needs a threshold)
    game_end: GameEndKind
    round_rule: str  # ruling id cited by round lines
    game_rule: str  # ruling id cited by game-end lines
    negative_points: bool = False  # rummikub losers lose points, so totals may be < 0
    exhausted_voids_deal: bool = False  # carioca: nothing to recycle voids the deal (C8)


_ALL_ENDS = frozenset(RoundEnd)
_NO_KNOCK = frozenset({RoundEnd.WENT_OUT, RoundEnd.STOCK_EXHAUSTED})

SETTLEMENTS: Mapping[Settlement, SettlementTraits] = MappingProxyType(
    {
        Settlement.CARROSSEL: SettlementTraits(_ALL_ENDS, GameEndKind.TARGET, "R11", "R12"),
        Settlement.FIRST_OUT_WINS: SettlementTraits(_NO_KNOCK, GameEndKind.FIRST_OUT, "R13", "R13"),
        Settlement.PENALTY: SettlementTraits(_NO_KNOCK, GameEndKind.TARGET, "R13", "R13"),
        Settlement.WINNER_TAKES_HANDS: SettlementTraits(
            _NO_KNOCK, GameEndKind.TARGET, "R13", "R13", negative_points=True
        ),
        Settlement.CARIOCA: SettlementTraits(
            _NO_KNOCK, GameEndKind.LAST_DEAL, "C7", "C7", exhausted_voids_deal=True
        ),
    }
)


def traits(ruleset: Ruleset) -> SettlementTraits | None:
    """The settlement traits of a ruleset; None for fishing games (they use ScoreDeal)."""
    return SETTLEMENTS.get(ruleset.scoring.settlement)


def can_knock(ruleset: Ruleset) -> bool:
    """Only a ruleset with a knock threshold knows the knock (R10)."""
    return ruleset.knock_threshold > 0


def game_target(ruleset: Ruleset, game_limit: int | None) -> int | None:
    """The request's agreed limit, else the ruleset's own target (None: no target)."""
    return game_limit if game_limit is not None else ruleset.scoring.game_target


def reads_hands(ruleset: Ruleset, end: RoundEnd) -> bool:
    """Whether the settlement counts the hands (not in mexe-mexe, vatikan or a void deal)."""
    shape = traits(ruleset)
    voids = shape is not None and shape.exhausted_voids_deal and end is RoundEnd.STOCK_EXHAUSTED
    return ruleset.scoring.hands_score and not voids
