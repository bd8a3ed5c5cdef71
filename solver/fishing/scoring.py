"""ScoreDeal: the points of every side's pile (F9) and the game's state (F10).

Card points (numbered jokers, 10♦, the prize deuce, aces) belong to the pile that holds the
card; the two "most" prizes go to the side with the most cards, or most prize-suit cards:
two sides tied share them (1 each), three or more tied get nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from solver.core.cards import Card, rank_name
from solver.core.errors import ProblemCollector
from solver.core.rulesets import FishingRules, get_ruleset
from solver.fishing.items import (
    Deck,
    card_points,
    deck_cards,
    deck_for,
    is_prize_suit,
)
from solver.fishing.position import DEFAULT_DECK, SeenCards

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


@dataclass(frozen=True, slots=True)
class Line:
    side: int
    text: str
    points: int
    rule: str


@dataclass(frozen=True)
class DealScore:
    points: tuple[int, ...]
    lines: tuple[Line, ...]
    totals_after: tuple[int, ...]
    game_over: bool
    winner: int  # -1 while the game goes on or a tie at the top means another deal
    another_deal: bool


def most_prize(counts: Sequence[int], prize: int) -> tuple[int, ...]:
    """F9's "most" prize: the one leader takes it, two tied leaders 1 each, more nobody."""
    best = max(counts)
    leaders = [side for side, count in enumerate(counts) if count == best]
    share = {1: prize, 2: prize // 2}.get(len(leaders), 0)
    return tuple(share if side in leaders else 0 for side in range(len(counts)))


def deal_points(
    card_points_by_side: Sequence[int],
    cards: Sequence[int],
    prize_cards: Sequence[int],
    rules: FishingRules,
) -> tuple[int, ...]:
    """Every side's deal points from what its pile holds (F9); the endgame search uses it."""
    most_cards = most_prize(cards, rules.most_cards_points)
    most_suit = most_prize(prize_cards, rules.most_suit_points)
    return tuple(
        points + most_cards[side] + most_suit[side]
        for side, points in enumerate(card_points_by_side)
    )


def parse_deal(
    ruleset_id: str,
    deck_size: int,
    piles: Sequence[Sequence[str]],
    totals_before: Sequence[int],
    omit_broom: bool = False,
) -> tuple[FishingRules, Deck, tuple[tuple[Card, ...], ...]]:
    """The rules, deck and piles, or ``InvalidRequest`` naming every bad field.

    A card outside the deck or in two piles is impossible; piles holding fewer cards than
    the deck are scored as given (a client may leave out cards that score nothing), and the
    cards left out count for nobody."""
    problems = ProblemCollector()
    ruleset = get_ruleset(ruleset_id)
    rules = ruleset.fishing if ruleset is not None else None
    if rules is None:
        problems.add(
            "ruleset", f"{ruleset_id!r} is not a fishing ruleset (carosello, carrusel, karusele)"
        )
        problems.raise_if_any()
    assert rules is not None
    deck = deck_for(rules, deck_size or DEFAULT_DECK, omit_broom)
    if deck is None:
        problems.add("deck_size", f"a fishing deck has 56, 55 or 54 cards, not {deck_size}")
        problems.raise_if_any()
    assert deck is not None
    if len(piles) not in (2, 3):
        problems.add("piles", f"{len(piles)} piles: a deal has 2 or 3 sides (partners share one)")
    if totals_before and len(totals_before) != len(piles):
        problems.add("totals_before", f"{len(totals_before)} totals for {len(piles)} sides")
    seen = SeenCards(deck_cards(deck), problems, deck.size)
    parsed = tuple(
        tuple(c for i, code in enumerate(pile) if (c := seen.card(code, f"piles[{s}].cards[{i}]")))
        for s, pile in enumerate(piles)
    )
    problems.raise_if_any()
    return rules, deck, parsed


def score_deal(
    rules: FishingRules,
    deck: Deck,
    piles: Sequence[Sequence[Card]],
    totals_before: Sequence[int],
) -> DealScore:
    """Points per side with the line items behind them, new totals and the game's state."""
    lines = [*_card_lines(piles, rules), *_most_lines(piles, rules)]
    points = tuple(sum(line.points for line in lines if line.side == s) for s in range(len(piles)))
    before = tuple(totals_before) or (0,) * len(piles)
    after = tuple(b + p for b, p in zip(before, points, strict=True))
    game_over, winner, another = game_state(after, deck.target)
    return DealScore(points, tuple(lines), after, game_over, winner, another)


def game_state(totals: Sequence[int], target: int) -> tuple[bool, int, bool]:
    """F10: (game over, winner or -1, another deal needed)."""
    reached = [side for side, total in enumerate(totals) if total >= target]
    if not reached:
        return False, -1, False
    best = max(totals[side] for side in reached)
    top = [side for side in reached if totals[side] == best]
    if len(top) > 1:
        return False, -1, True
    return True, top[0], False


def _card_name(card: Card) -> str:
    if card.special:
        return card.special
    return f"{rank_name(card.rank)}{card.suit}"


def _card_lines(piles: Sequence[Sequence[Card]], rules: FishingRules) -> list[Line]:
    lines = []
    for side, pile in enumerate(piles):
        for card in sorted(pile, key=lambda c: (-card_points(c, rules), c.special, c.rank, c.suit)):
            points = card_points(card, rules)
            if points:
                lines.append(Line(side, f"{_card_name(card)} is worth {points}.", points, "F9"))
    return lines


def _most_lines(piles: Sequence[Sequence[Card]], rules: FishingRules) -> list[Line]:
    suit = SUIT_NAMES[rules.prize_suit]
    cards = [len(pile) for pile in piles]
    prize_cards = [sum(1 for c in pile if is_prize_suit(c, rules)) for pile in piles]
    lines = []
    for counts, prize, what in (
        (cards, rules.most_cards_points, "cards"),
        (prize_cards, rules.most_suit_points, suit),
    ):
        awarded = most_prize(counts, prize)
        leaders = [side for side, count in enumerate(counts) if count == max(counts)]
        for side, count in enumerate(counts):
            lines.append(
                Line(
                    side,
                    _most_text(what, count, len(leaders), side in leaders, awarded[side]),
                    awarded[side],
                    "F9",
                )
            )
    return lines


def _most_text(what: str, count: int, leaders: int, leads: bool, points: int) -> str:
    if not leads:
        return f"{count} {what}: not the most."
    if leaders == 1:
        return f"{count} {what}: the most, worth {points}."
    if leaders == 2:
        return f"{count} {what}: tied for the most with one other side, 1 each."
    return f"{count} {what}: tied for the most with {leaders - 1} other sides, so nobody scores."
