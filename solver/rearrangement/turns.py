"""Turn rules (R8) and the knock (R10), read from the ruleset's parameters.

Shangai and manipulation's "play if able" and "adds must be maximal" need to know the
best play of the position, which only a search can tell: they ask an oracle
``max_placed(position, max_new_melds=k)`` (``search.validate_move`` hands the referee
``search.max_cards_placed``):
the largest number of hand cards any legal play with at most ``k`` net new melds places,
0 when there is none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from solver.core.cards import Card
from solver.core.rulesets import DrawRule, Ruleset
from solver.core.violations import Violation, ViolationCode
from solver.rearrangement.wilds import meld_text
from solver.rummy.melds import MeldKind, Reading, card_text
from solver.rummy.position import Meld, Position
from solver.rummy.table_change import TableChange

PlacedOracle = Callable[..., int]


def _draws_ending_turn(rule: DrawRule) -> int | None:
    """How many draws end the turn, so that no play may follow (None: drawing never does)."""
    if rule is DrawRule.ONE_TO_THREE:
        return 3
    if rule is DrawRule.DRAW_OR_PLAY:
        return 1
    return None


def draws_before_play(ruleset: Ruleset) -> int:
    """Cards the player must have drawn before a play (R8, the stock not empty): one where
    each turn starts with a draw (carrossel, mexe-mexe), none where drawing ends it."""
    return 1 if ruleset.draw_rule in (DrawRule.ONE_TO_THREE, DrawRule.EXACTLY_ONE) else 0


def _most_draws(rule: DrawRule) -> int | None:
    """The most cards a turn may draw under the rule (None: no limit)."""
    if rule is DrawRule.ONE_TO_THREE:
        return 3
    if rule in (DrawRule.EXACTLY_ONE, DrawRule.DRAW_OR_PLAY):
        return 1
    return None


def pass_draw_violations(position: Position) -> list[Violation]:
    """R8 for a pass: only a draw count the rule can never reach is wrong (the player then
    draws or ends the turn, which the referee does not see)."""
    ruleset = position.ruleset
    drawn = position.turn.cards_drawn
    most = _most_draws(ruleset.draw_rule)
    if most is None or drawn <= most:
        return []
    return [
        Violation(
            ViolationCode.DRAW_RULE,
            f"{ruleset.name}: {ruleset.draw_text}; {drawn} were drawn this turn (R8)",
            "R8",
        )
    ]


def draw_violations(position: Position) -> list[Violation]:
    """R8: may the player play at all, given the cards drawn this turn?"""
    ruleset = position.ruleset
    turn = position.turn
    drawn = turn.cards_drawn
    rule = ruleset.draw_rule
    out: list[Violation] = []
    ending = _draws_ending_turn(rule)
    if ending is not None and drawn >= ending:
        what = "a third card" if ending == 3 else "a card"
        out.append(
            Violation(
                ViolationCode.TURN_OVER,
                f"In {ruleset.name} drawing {what} ends the turn, and {drawn} were drawn: "
                "no play may follow (R8)",
                "R8",
            )
        )
        out.append(
            Violation(
                ViolationCode.DRAW_RULE,
                f"{ruleset.name}: {ruleset.draw_text}; {drawn} drawn this turn (R8)",
                "R8",
            )
        )
        return out
    if draws_before_play(ruleset) and drawn == 0 and not turn.stock_empty:
        out.append(
            Violation(
                ViolationCode.DRAW_RULE,
                f"{ruleset.name}: {ruleset.draw_text}; no card was drawn before this play (R8)",
                "R8",
            )
        )
    if rule is DrawRule.EXACTLY_ONE and drawn > 1:
        out.append(
            Violation(
                ViolationCode.DRAW_RULE,
                f"{ruleset.name}: {ruleset.draw_text}; {drawn} were drawn this turn (R8)",
                "R8",
            )
        )
    return out


def opening_violations(position: Position, change: TableChange) -> list[Violation]:
    """R8 (rummikub): before opening, table melds stay as they were."""
    ruleset = position.ruleset
    if ruleset.rearrangement.opening_points <= 0 or position.turn.has_opened or not change.gone:
        return []
    touched = [" ".join(key) for key in sorted(change.gone.elements())]
    return [
        Violation(
            ViolationCode.NOT_OPENED,
            f"Before opening, a player may only lay new melds from the hand; the play changes "
            f"the table's {'; '.join(touched)} (R8)",
            "R8",
            -1,
            tuple(code for key in sorted(change.gone.elements()) for code in key),
        )
    ]


def opening_value(
    ruleset: Ruleset, melds: Sequence[Meld], readings: Sequence[Reading | None], new: Sequence[int]
) -> int:
    """Points of the new melds, a wild counting as the value it stands for (R8)."""
    total = 0
    for j in new:
        reading = readings[j]
        for k, tc in enumerate(melds[j]):
            if reading is not None and reading.wild[k]:
                total += ruleset.points(Card(reading.values[k].rank, "S"))
            else:
                total += ruleset.points(tc.card)
    return total


def opening_value_violations(
    position: Position,
    melds: Sequence[Meld],
    readings: Sequence[Reading | None],
    change: TableChange,
    played: int,
) -> list[Violation]:
    """R8 (rummikub): the opening play's new melds are worth at least ``opening_points``."""
    ruleset = position.ruleset
    if (
        ruleset.rearrangement.opening_points <= 0
        or position.turn.has_opened
        or played == 0
        or change.gone
    ):
        return []
    value = opening_value(ruleset, melds, readings, change.new)
    if value >= ruleset.rearrangement.opening_points:
        return []
    cards = tuple(tc.card.code for j in change.new for tc in melds[j])
    return [
        Violation(
            ViolationCode.INITIAL_MELD_TOO_LOW,
            f"The opening play is worth {value} points; the first play must lay at least "
            f"{ruleset.rearrangement.opening_points} points from the hand (R8)",
            "R8",
            change.new[0] if len(change.new) == 1 else -1,
            cards,
        )
    ]


def first_meld_violations(
    position: Position,
    melds: Sequence[Meld],
    readings: Sequence[Reading | None],
    before_groups: int,
    change: TableChange,
) -> list[Violation]:
    """R7 (vatikan): until a player has laid a sequence, no play adds a group to the table."""
    ruleset = position.ruleset
    if not ruleset.rearrangement.first_meld_sequence or position.turn.has_melded_sequence:
        return []
    groups = [j for j, r in enumerate(readings) if r is not None and r.kind is MeldKind.GROUP]
    if len(groups) <= before_groups:
        return []
    fresh = [j for j in groups if j in change.new]
    j = fresh[0] if len(fresh) == 1 else -1
    cards = tuple(tc.card.code for tc in melds[j]) if j >= 0 else ()
    shown = meld_text(melds[j]) if j >= 0 else "a group"
    return [
        Violation(
            ViolationCode.FIRST_MELD_NOT_SEQUENCE,
            f"The play adds {shown} to the table ({len(groups)} groups after, {before_groups} "
            "before), but this player has not laid a sequence yet: in Vatikan the first new "
            "meld must be a sequence (R7)",
            "R7",
            j,
            cards,
        )
    ]


def search_violations(
    position: Position,
    is_pass: bool,
    is_add: bool,
    played_cards: Sequence[Card],
    oracle: PlacedOracle,
) -> list[Violation]:
    """R8 (shangai, manipulation): a pass needs no play to exist; an add must be maximal."""
    played = len(played_cards)
    ruleset = position.ruleset
    out: list[Violation] = []
    if is_pass and ruleset.rearrangement.must_play_if_able:
        best = oracle(position, max_new_melds=ruleset.rearrangement.max_new_melds)
        if best > 0:
            out.append(
                Violation(
                    ViolationCode.MUST_PLAY,
                    f"A play placing {best} hand card{'s' if best != 1 else ''} exists; in "
                    f"{ruleset.name} a player may pass (and draw) only when no play exists (R8)",
                    "R8",
                )
            )
    # An add placing the whole hand is maximal without a search.
    if is_add and ruleset.rearrangement.add_must_be_maximal and played < len(position.hand):
        best = oracle(position, max_new_melds=0)
        if played < best:
            out.append(
                Violation(
                    ViolationCode.ADD_NOT_MAXIMAL,
                    f"The add places {played} hand card{'s' if played != 1 else ''} "
                    f"({' '.join(card_text(c) for c in played_cards)}), but an add placing "
                    f"{best} exists; in {ruleset.name} an add must place as many cards as "
                    "possible (R8)",
                    "R8",
                    cards=tuple(c.code for c in played_cards),
                )
            )
    return out


def knock_eligible(ruleset: Ruleset, played: int, hand_points: int) -> bool:
    """R10: a play placed a hand card and left 1..threshold points (0 is going out)."""
    threshold = ruleset.knock_threshold
    return threshold > 0 and played > 0 and 1 <= hand_points <= threshold


def knock_violations(
    ruleset: Ruleset, knock: bool, played: int, hand_points: int
) -> list[Violation]:
    """R10: a knock the hand left by the play does not allow."""
    if not knock or knock_eligible(ruleset, played, hand_points):
        return []
    threshold = ruleset.knock_threshold
    if threshold <= 0:
        why = f"there is no knock in {ruleset.name}"
    elif played == 0:
        why = "a knock must follow a play that lays at least one hand card"
    elif hand_points == 0:
        why = "the hand is empty: the player went out, which is not a knock"
    else:
        why = f"the hand left is worth {hand_points} points, more than {threshold}"
    return [Violation(ViolationCode.KNOCK_NOT_ALLOWED, f"Knock not allowed: {why} (R10)", "R10")]
