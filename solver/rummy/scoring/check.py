"""Is this round's end possible? Every problem is recorded with its field path (SPEC §5).

Paths are relative to the ScoreRound request: ``players``, ``end``, ``ender``,
``hands[2].cards[1]``, ``totals_before[0]``, ``deal_number``, ``game_limit``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence

from solver.core.cards import Card, format_cards
from solver.core.errors import ProblemCollector
from solver.core.rulesets import Ruleset, TieRule
from solver.rummy.position import check_counts, check_deal_number, check_playable
from solver.rummy.scoring.data import (
    GameEndKind,
    can_knock,
    game_target,
    reads_hands,
    traits,
)
from solver.rummy.scoring.text import seat
from solver.rummy.scoring.types import RoundEnd, RoundToScore

# Bounds that keep every figure far inside int32 (SPEC §5: out-of-range numbers).
MAX_TOTAL = 1_000_000
MAX_ROUNDS_WON = 10_000

_END_TEXT = {
    RoundEnd.WENT_OUT: "went out",
    RoundEnd.KNOCK: "knock",
    RoundEnd.STOCK_EXHAUSTED: "stock exhausted",
}


def check_round(
    round_: RoundToScore,
    errors: ProblemCollector,
    unreadable: Collection[int] = (),
    end_known: bool = True,
) -> None:
    """Record every problem of ``round_``.

    ``unreadable`` hands had bad codes (already reported); with ``end_known`` false the
    request did not say how the round ended, so the checks that depend on it are skipped.
    """
    ruleset = round_.ruleset
    shape = traits(ruleset)
    if shape is None:
        errors.add("ruleset", f"{ruleset.id} is a fishing game: use FishingService.ScoreDeal")
        return
    _check_players(round_, errors)
    if end_known:
        _check_end(round_, errors)
    _check_numbers(round_, errors)
    check_deal_number(ruleset, round_.deal_number, "deal_number", errors)
    _check_limit(round_, shape.game_end, errors)
    _check_hands(round_, errors, unreadable, end_known)


def _check_players(round_: RoundToScore, errors: ProblemCollector) -> None:
    ruleset, players = round_.ruleset, round_.players
    if not ruleset.min_players <= players <= ruleset.max_players:
        errors.add(
            "players",
            f"{ruleset.id} is for {ruleset.min_players}-{ruleset.max_players} players, "
            f"not {players}",
        )
    if len(round_.hands) != players:
        errors.add("hands", f"one hand per player: {players} players, {len(round_.hands)} hands")


def _check_end(round_: RoundToScore, errors: ProblemCollector) -> None:
    ruleset, end = round_.ruleset, round_.end
    shape = traits(ruleset)
    if end is RoundEnd.KNOCK and not can_knock(ruleset):
        errors.add("end", f"{ruleset.id} has no knock (R10); a round ends by going out")
    elif shape is not None and end not in shape.ends:
        errors.add("end", f"a {ruleset.id} round cannot end by {_END_TEXT[end]}")
    if round_.players < 1:
        return  # reported on ``players``; no index could be right
    if end is not RoundEnd.STOCK_EXHAUSTED and not 0 <= round_.ender < round_.players:
        verb = "knocked" if end is RoundEnd.KNOCK else "went out"
        errors.add(
            "ender",
            f"the player who {verb} is counted from 0 and must be 0-{round_.players - 1}, "
            f"not {round_.ender}",
        )


def _check_numbers(round_: RoundToScore, errors: ProblemCollector) -> None:
    shape = traits(round_.ruleset)
    low = -MAX_TOTAL if shape is not None and shape.negative_points else 0
    _check_list(round_.totals_before, "totals_before", round_.players, low, MAX_TOTAL, errors)
    _check_list(
        round_.rounds_won_before, "rounds_won_before", round_.players, 0, MAX_ROUNDS_WON, errors
    )


def _check_list(
    values: Sequence[int], path: str, players: int, low: int, high: int, errors: ProblemCollector
) -> None:
    if values and len(values) != players:
        errors.add(path, f"one entry per player ({players}) or none, not {len(values)}")
    for i, value in enumerate(values):
        if not low <= value <= high:
            errors.add(f"{path}[{i}]", f"must be {low}-{high}, not {value}")


def _check_limit(round_: RoundToScore, game_end: GameEndKind, errors: ProblemCollector) -> None:
    ruleset, limit = round_.ruleset, round_.game_limit
    if limit is not None and game_end is not GameEndKind.TARGET:
        how = "after its last deal" if game_end is GameEndKind.LAST_DEAL else "by going out"
        errors.add("game_limit", f"{ruleset.id} has no points limit: its game ends {how}")
        return
    if limit is not None and not 1 <= limit <= MAX_TOTAL:
        errors.add("game_limit", f"must be 1-{MAX_TOTAL}, not {limit}")
        return
    target = game_target(ruleset, limit)
    if target is None or ruleset.scoring.game_end_tie is TieRule.ANOTHER_HAND:
        return  # manipulation's supplementary hands start with a total already past 200
    for i, total in enumerate(round_.totals_before):
        if total >= target:
            errors.add(
                f"totals_before[{i}]",
                f"{seat(i)} already had {total} ≥ {target}: the game ended before this round",
            )


def _check_hands(
    round_: RoundToScore, errors: ProblemCollector, unreadable: Collection[int], end_known: bool
) -> None:
    ruleset = round_.ruleset
    for h, hand in enumerate(round_.hands):
        check_playable(
            ruleset, ((f"hands[{h}].cards[{c}]", card) for c, card in enumerate(hand)), errors
        )
    counts: Counter[Card] = Counter(card for hand in round_.hands for card in hand)
    check_counts(ruleset, round_.players, counts, "hands", errors)
    # Carioca: a turn draws one card and discards one (C6), so between turns no hand holds
    # more than the deal dealt (C2).
    rules = ruleset.contract_rules
    contract = rules.for_deal(round_.deal_number) if rules is not None else None
    for h, hand in enumerate(round_.hands):
        if contract is not None and h not in unreadable and len(hand) > contract.cards_dealt:
            errors.add(
                f"hands[{h}]",
                f"{seat(h)} holds {len(hand)} cards, but deal {contract.deal} deals "
                f"{contract.cards_dealt} and every turn draws one and discards one (C2, C6)",
            )
    if len(round_.hands) != round_.players or not end_known:
        return
    ender = round_.ender if round_.end is not RoundEnd.STOCK_EXHAUSTED else -1
    if 0 <= ender < round_.players and ender not in unreadable:
        _check_ender_hand(ruleset, round_.end, ender, round_.hands[ender], errors)
    if not reads_hands(ruleset, round_.end):
        return
    for h, hand in enumerate(round_.hands):
        if h != ender and h not in unreadable and not hand:
            errors.add(
                f"hands[{h}]",
                f"{seat(h)}'s hand is empty, but only the player who went out ends a round "
                "with no cards",
            )


def _check_ender_hand(
    ruleset: Ruleset, end: RoundEnd, ender: int, hand: Sequence[Card], errors: ProblemCollector
) -> None:
    path, who = f"hands[{ender}]", seat(ender)
    if end is RoundEnd.WENT_OUT and hand:
        errors.add(path, f"{who} went out, so the hand must be empty, not {format_cards(hand)}")
    if end is RoundEnd.KNOCK and can_knock(ruleset):
        points = ruleset.hand_points(hand)
        if not hand:
            errors.add(path, f"{who}'s hand is empty: that is going out, not a knock (R9, R10)")
        elif not 1 <= points <= ruleset.knock_threshold:
            errors.add(
                path,
                f"{who} knocked holding {format_cards(hand)} = {points} points; a knock needs "
                f"1-{ruleset.knock_threshold} points in hand (R10)",
            )
