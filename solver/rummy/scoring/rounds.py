"""One round's settlement per ``Settlement`` kind (R11, R13, C7-C8), explained line by line.

Each function takes a validated ``RoundToScore`` and returns the points every total gains
this round, the round's winners and the lines. Parameters (bonuses, point tables) come
from the ruleset; which function runs comes from its ``settlement`` kind only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

from solver.core.rulesets import Contract, Settlement
from solver.rummy.scoring.text import MINUS, hand_sum, seat, seats
from solver.rummy.scoring.types import RoundEnd, RoundOutcome, RoundToScore, ScoreLine


def _outcome(
    points: Sequence[int], winners: Sequence[int], lines: Sequence[ScoreLine], void: bool = False
) -> RoundOutcome:
    return RoundOutcome(tuple(points), tuple(sorted(winners)), tuple(lines), void)


# --- carrossel (R11) -----------------------------------------------------------------------


def _carrossel(r: RoundToScore) -> RoundOutcome:
    if r.end is RoundEnd.WENT_OUT:
        return _going_out(r)
    return _lowest_hand_wins(r)


def _going_out(r: RoundToScore) -> RoundOutcome:
    """The player who went out scores every other hand, plus the going-out bonus."""
    ruleset, e = r.ruleset, r.ender
    lines = [ScoreLine(e, f"{seat(e)} went out and scores every other hand", 0, "R11")]
    points = [0] * r.players
    for i, hand in enumerate(r.hands):
        if i != e:
            value = ruleset.hand_points(hand)
            lines.append(ScoreLine(e, f"{seat(i)}: {hand_sum(ruleset, hand)}", value, "R11"))
            points[e] += value
    if ruleset.scoring.going_out_bonus:
        bonus = ruleset.scoring.going_out_bonus
        lines.append(ScoreLine(e, f"going out bonus +{bonus}", bonus, "R11"))
        points[e] += bonus
    return _outcome(points, [e], lines)


def _lowest_hand_wins(r: RoundToScore) -> RoundOutcome:
    """Knock or exhausted stock: the lowest hand wins its differences to the losers.

    A knocker who is not strictly lowest hands the win to every other player on the
    lowest total (also when tied with them), and each of those gets the knock bonus.
    """
    ruleset = r.ruleset
    values = [ruleset.hand_points(hand) for hand in r.hands]
    lines = [
        ScoreLine(i, f"{seat(i)}: {hand_sum(ruleset, hand)} points in hand", 0, "R11")
        for i, hand in enumerate(r.hands)
    ]
    low = min(values)
    lowest = [i for i, v in enumerate(values) if v == low]
    bonus = 0
    if r.end is RoundEnd.KNOCK and lowest != [r.ender]:
        winners = [i for i in lowest if i != r.ender]
        bonus = ruleset.scoring.knock_bonus
        lines.append(ScoreLine(r.ender, _knocker_beaten(r.ender, values, winners), 0, "R11"))
    elif r.end is RoundEnd.KNOCK:
        winners = lowest
        text = f"{seat(r.ender)} knocked and is strictly lowest with {low}"
        lines.append(ScoreLine(r.ender, text, 0, "R11"))
    else:
        winners = lowest
        verb = "is" if len(winners) == 1 else "are"
        text = f"stock exhausted: {seats(winners)} {verb} lowest with {low}; no knock bonus"
        lines.append(ScoreLine(-1, text, 0, "R11"))
    losers = [i for i in range(r.players) if i not in winners]
    points = [0] * r.players
    for w in winners:
        for loser in losers:
            diff = values[loser] - values[w]
            text = f"{seat(loser)}: {values[loser]} {MINUS} {seat(w)}: {values[w]} = {diff}"
            lines.append(ScoreLine(w, text, diff, "R11"))
            points[w] += diff
        if bonus:
            lines.append(ScoreLine(w, f"knock bonus +{bonus}", bonus, "R11"))
            points[w] += bonus
    return _outcome(points, winners, lines)


def _knocker_beaten(knocker: int, values: Sequence[int], winners: Sequence[int]) -> str:
    k = seat(knocker)
    if values[knocker] == values[winners[0]]:
        return (
            f"{k} knocked with {values[knocker]} and ties with {seats(winners)}: "
            f"the knocker loses the tie"
        )
    verb = "has" if len(winners) == 1 else "have"
    return f"{k} knocked with {values[knocker]}, but {seats(winners)} {verb} {values[winners[0]]}"


# --- mexe-mexe, vatikan (R13) ---------------------------------------------------------------


def _first_out(r: RoundToScore) -> RoundOutcome:
    points = [0] * r.players
    if r.end is RoundEnd.WENT_OUT:
        text = f"{seat(r.ender)} went out first and wins; no points are counted"
        return _outcome(points, [r.ender], [ScoreLine(r.ender, text, 0, "R13")])
    text = "the stock ran out and nobody went out: no winner, no points"
    return _outcome(points, [], [ScoreLine(-1, text, 0, "R13")])


# --- shangai, manipulation (R13) and carioca (C7) -------------------------------------------


def _penalties(r: RoundToScore, rule: str) -> RoundOutcome:
    """Every player but the one who went out takes their hand as penalty points."""
    ruleset = r.ruleset
    points = [0] * r.players
    if r.end is RoundEnd.WENT_OUT:
        winners = [r.ender]
        lines = [ScoreLine(r.ender, f"{seat(r.ender)} went out: 0 penalty points", 0, rule)]
    else:
        winners = []
        text = "the stock ran out and nobody went out: every hand is a penalty"
        lines = [ScoreLine(-1, text, 0, rule)]
    for i, hand in enumerate(r.hands):
        if i not in winners:
            points[i] = ruleset.hand_points(hand)
            noun = "point" if points[i] == 1 else "points"
            text = f"{seat(i)}: {hand_sum(ruleset, hand)} penalty {noun}"
            lines.append(ScoreLine(i, text, points[i], rule))
    return _outcome(points, winners, lines)


def _penalty_round(r: RoundToScore) -> RoundOutcome:
    return _penalties(r, "R13")


def _carioca(r: RoundToScore) -> RoundOutcome:
    contract = r.ruleset.contract.for_deal(r.deal_number)
    head = ScoreLine(-1, _contract_text(contract), 0, "C2") if contract else None
    if r.end is RoundEnd.STOCK_EXHAUSTED:
        text = (
            f"the stock is empty with nothing to recycle: deal {r.deal_number} is void, "
            "no points; replay it with the same contract"
        )
        lines = [line for line in (head, ScoreLine(-1, text, 0, "C8")) if line]
        return _outcome([0] * r.players, [], lines, void=True)
    scored = _penalties(r, "C7")
    lines = [head, *scored.lines] if head else list(scored.lines)
    return _outcome(scored.round_points, scored.winners, lines)


def _contract_text(contract: Contract) -> str:
    parts = [
        f"{n} {word}{'s' if n > 1 else ''}"
        for n, word in ((contract.trios, "trio"), (contract.sequences, "sequence"))
        if n
    ]
    return f"deal {contract.deal}: contract {' + '.join(parts)} ({contract.cards} cards)"


# --- rummikub (R13) -------------------------------------------------------------------------


def _winner_takes_hands(r: RoundToScore) -> RoundOutcome:
    """Each loser pays each winner the difference between their racks.

    Going out, the winner's rack is 0: the winner gets the sum of the other racks and each
    other player loses their own. An exhausted pool makes the lowest rack the winner
    (docs/scoring.md), with the same pairwise payments, so a round always sums to zero.
    """
    ruleset = r.ruleset
    values = [ruleset.hand_points(hand) for hand in r.hands]
    lines: list[ScoreLine] = []
    if r.end is RoundEnd.WENT_OUT:
        winners = [r.ender]
        lines.append(ScoreLine(r.ender, f"{seat(r.ender)} went out with an empty rack", 0, "R13"))
    else:
        low = min(values)
        winners = [i for i, v in enumerate(values) if v == low]
        text = f"the pool ran out: the lowest rack wins ({seats(winners)} with {low})"
        lines.append(ScoreLine(-1, text, 0, "R13"))
    points = [0] * r.players
    for loser, hand in enumerate(r.hands):
        if loser in winners:
            continue
        rack = hand_sum(ruleset, hand)
        for w in winners:
            diff = values[loser] - values[w]
            if r.end is RoundEnd.WENT_OUT:
                lose_text = f"{seat(loser)}: {rack} left on the rack"
                win_text = f"{seat(loser)}: {rack}"
            else:
                win_text = f"{seat(loser)}: {values[loser]} {MINUS} {seat(w)}: {values[w]} = {diff}"
                lose_text = f"{seat(loser)}: {rack}, pays {seat(w)} {diff}"
            lines.append(ScoreLine(loser, lose_text, -diff, "R13"))
            lines.append(ScoreLine(w, win_text, diff, "R13"))
            points[loser] -= diff
            points[w] += diff
    return _outcome(points, winners, lines)


SETTLE: Mapping[Settlement, Callable[[RoundToScore], RoundOutcome]] = MappingProxyType(
    {
        Settlement.CARROSSEL: _carrossel,
        Settlement.FIRST_OUT_WINS: _first_out,
        Settlement.PENALTY: _penalty_round,
        Settlement.WINNER_TAKES_HANDS: _winner_takes_hands,
        Settlement.CARIOCA: _carioca,
    }
)


def settle(r: RoundToScore) -> RoundOutcome:
    """The round's settlement, by the ruleset's settlement kind."""
    return SETTLE[r.ruleset.scoring.settlement](r)
