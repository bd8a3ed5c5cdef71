"""The records of ScoreRound (R11-R13, C7-C8): what a round's end looks like, and its settlement.

Kept apart from the arithmetic so that the settlement modules and the entry point
(``solver.rummy.scoring``) can share them without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from solver.core.cards import Card
from solver.core.rulesets import Ruleset


class RoundEnd(Enum):
    """How a round ended."""

    WENT_OUT = "went_out"  # a player emptied the hand (R9; carioca: the last discard, C6)
    KNOCK = "knock"  # a player knocked (R10)
    STOCK_EXHAUSTED = "stock_exhausted"  # the stock ran out (R11; carioca: a void deal, C8)


ROUND_END_NAMES = {
    "went_out": RoundEnd.WENT_OUT,
    "went-out": RoundEnd.WENT_OUT,
    "out": RoundEnd.WENT_OUT,
    "knock": RoundEnd.KNOCK,
    "stock_exhausted": RoundEnd.STOCK_EXHAUSTED,
    "stock-exhausted": RoundEnd.STOCK_EXHAUSTED,
    "exhausted": RoundEnd.STOCK_EXHAUSTED,
    "stock": RoundEnd.STOCK_EXHAUSTED,
}


def parse_round_end(text: str) -> RoundEnd | None:
    """``went-out``, ``knock`` or ``stock-exhausted`` (a few spellings); None when unknown."""
    return ROUND_END_NAMES.get(text.strip().lower())


@dataclass(frozen=True)
class RoundToScore:
    """The end of one round, as ScoreRound receives it (cards already parsed).

    ``totals_before`` and ``rounds_won_before`` are empty or one entry per player (empty
    means all 0). ``ender`` is ignored for an exhausted stock. ``deal_number`` is read by
    carioca only; ``game_limit`` overrides the ruleset's game target (shangai's agreed limit).
    """

    ruleset: Ruleset
    players: int
    end: RoundEnd
    ender: int
    hands: tuple[tuple[Card, ...], ...]
    totals_before: tuple[int, ...] = ()
    rounds_won_before: tuple[int, ...] = ()
    deal_number: int = 0
    game_limit: int | None = None

    @property
    def totals(self) -> tuple[int, ...]:
        """``totals_before`` with the empty default filled in."""
        return self.totals_before or (0,) * self.players

    @property
    def rounds_won(self) -> tuple[int, ...]:
        """``rounds_won_before`` with the empty default filled in."""
        return self.rounds_won_before or (0,) * self.players


@dataclass(frozen=True)
class ScoreLine:
    """One line of the explanation: whose figure, a sentence, what it adds, the ruling.

    ``player`` is -1 for lines about the whole round (the contract, the game winner).
    The points of a player's lines add up to their round points plus, when the game is
    over, their end-of-game bonuses; a line that only shows a count adds 0.
    """

    player: int
    text: str
    points: int
    rule: str


@dataclass(frozen=True)
class RoundOutcome:
    """What one round settles, before the game-end check."""

    round_points: tuple[int, ...]
    winners: tuple[int, ...]
    lines: tuple[ScoreLine, ...]
    void_deal: bool = False


@dataclass(frozen=True)
class GameEnd:
    """Whether the game is over after the round, and its final standings."""

    game_over: bool
    final_scores: tuple[int, ...] = ()  # empty unless game_over
    game_winners: tuple[int, ...] = ()
    another_hand: bool = False  # manipulation: a tie for lowest plays another hand (R13)
    lines: tuple[ScoreLine, ...] = ()


@dataclass(frozen=True)
class RoundScore:
    """The settlement of a round: ScoreRound's answer.

    ``round_points`` is what each total gains this round (points won in carrossel and
    rummikub, which may be negative in rummikub; penalty points in shangai, manipulation
    and carioca). ``totals_after`` are the totals before any end-of-game bonus;
    ``final_scores`` adds those bonuses and is empty unless ``game_over``.
    """

    round_points: tuple[int, ...]
    winners: tuple[int, ...]
    totals_after: tuple[int, ...]
    rounds_won_after: tuple[int, ...]
    game_over: bool
    final_scores: tuple[int, ...]
    game_winners: tuple[int, ...]
    lines: tuple[ScoreLine, ...]
    another_hand: bool = False
    void_deal: bool = False
