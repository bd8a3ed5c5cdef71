"""Is the game over after this round, and who won it (R12, R13, C7)?

Three ways a game ends (``GameEndKind``): a total reaches the target, the first player
out wins, or the last carioca deal is played. Bonuses and the direction of "best" come
from the ruleset (``game_target_bonus``, ``round_won_bonus``, ``highest_wins``).
"""

from __future__ import annotations

from collections.abc import Sequence

from solver.core.rulesets import Ruleset, TieRule
from solver.rummy.scoring.data import (
    GameEndKind,
    game_target,
    traits,
)
from solver.rummy.scoring.text import TIMES, seat, seats
from solver.rummy.scoring.types import GameEnd, RoundOutcome, RoundToScore, ScoreLine


def game_end(
    r: RoundToScore,
    outcome: RoundOutcome,
    totals_after: Sequence[int],
    rounds_won_after: Sequence[int],
) -> GameEnd:
    """The game-end check after the round has been added to the totals."""
    shape = traits(r.ruleset)
    assert shape is not None  # checked before settling
    rule = shape.game_rule
    if shape.game_end is GameEndKind.FIRST_OUT:
        if not outcome.winners:
            return GameEnd(False)
        text = f"{seats(outcome.winners)} went out first and wins the game"
        return GameEnd(True, tuple(totals_after), outcome.winners, lines=(_line(text, rule),))
    if shape.game_end is GameEndKind.LAST_DEAL:
        top = r.ruleset.last_deal
        if outcome.void_deal or r.deal_number != top:
            return GameEnd(False)
        head = _line(f"deal {top} was the last deal: the game is over", rule)
        return _standings(r.ruleset, totals_after, [head], rule)
    return _target_end(r, totals_after, rounds_won_after, rule)


def _target_end(
    r: RoundToScore, totals_after: Sequence[int], rounds_won_after: Sequence[int], rule: str
) -> GameEnd:
    """A total at or past the target ends the game; then the end-of-game bonuses (R12)."""
    ruleset = r.ruleset
    target = game_target(ruleset, r.game_limit)
    reached = [i for i, t in enumerate(totals_after) if target is not None and t >= target]
    if target is None or not reached:
        return GameEnd(False)
    verb = "reaches" if len(reached) == 1 else "reach"
    lines = [_line(f"{seats(reached)} {verb} {target} or more: the game ends", rule)]
    final = list(totals_after)
    for i in reached:
        if ruleset.scoring.game_target_bonus:
            bonus = ruleset.scoring.game_target_bonus
            text = f"{seat(i)}: {totals_after[i]} ≥ {target}, game bonus +{bonus}"
            lines.append(ScoreLine(i, text, bonus, rule))
            final[i] += bonus
    for i, won in enumerate(rounds_won_after):
        if ruleset.scoring.round_won_bonus and won:
            bonus = won * ruleset.scoring.round_won_bonus
            noun = "round" if won == 1 else "rounds"
            text = (
                f"{seat(i)}: {won} {noun} won {TIMES} {ruleset.scoring.round_won_bonus} = {bonus}"
            )
            lines.append(ScoreLine(i, text, bonus, rule))
            final[i] += bonus
    return _standings(ruleset, final, lines, rule)


def _standings(
    ruleset: Ruleset, final: Sequence[int], lines: list[ScoreLine], rule: str
) -> GameEnd:
    """Best final score wins; a tie shares the win, or (manipulation) plays another hand."""
    best = max(final) if ruleset.scoring.highest_wins else min(final)
    leaders = tuple(i for i, score in enumerate(final) if score == best)
    scores = ", ".join(f"{seat(i)} {score}" for i, score in enumerate(final))
    direction = "highest" if ruleset.scoring.highest_wins else "lowest"
    lines.append(_line(f"final scores: {scores}; the {direction} wins", rule))
    if len(leaders) > 1 and ruleset.scoring.game_end_tie is TieRule.ANOTHER_HAND:
        text = (
            f"{seats(leaders)} tie for the {direction} total, {best}: another hand is played, "
            "no winner yet"
        )
        lines.append(_line(text, rule))
        return GameEnd(False, another_hand=True, lines=tuple(lines))
    verb = "wins" if len(leaders) == 1 else "share the win"
    lines.append(_line(f"{seats(leaders)} {verb} with {best}", rule))
    return GameEnd(True, tuple(final), leaders, lines=tuple(lines))


def _line(text: str, rule: str) -> ScoreLine:
    return ScoreLine(-1, text, 0, rule)
