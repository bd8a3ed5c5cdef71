"""The draw decision (C6): take the top of the discard pile, or draw from the stock?

With ``discard_top`` and no card drawn yet, SolveMove compares two turns:

* taking the top discard: the best turn of the hand plus that card (play, then discard one
  card of the hand — the taken card too, which is allowed);
* drawing from the stock instead: the stock card is unseen, so it is counted as useless and
  discarded at once; the hand plays what it can by itself (an opening needs no card kept,
  the stock card being the discard).

Taking is advised when it leaves strictly fewer penalty points (C7): that is when the card
makes an opening possible, or a lay-off, or a better one. The move returned is the best turn
after taking it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from solver.contract.search import (
    ContractSolveResult,
    fewest_points_left,
    solve_contract_move,
    with_card,
)
from solver.core.cards import Card, parse_card
from solver.core.errors import FieldProblem, InvalidRequest, NotationError, ProblemCollector
from solver.rummy.position import Position, check_counts


@dataclass(frozen=True)
class DrawDecision:
    """Whether to take the top discard, and the points either choice leaves."""

    card: Card
    take: bool
    points_after_taking: int  # the fewest points left after taking it (the best move's)
    points_without: int  # the fewest points left drawing from the stock (its card discarded)
    proved: bool  # both figures are proved optimal


@dataclass(frozen=True)
class DrawResult:
    """The best turns after taking the card, and the decision."""

    solved: ContractSolveResult
    decision: DrawDecision


def parse_discard_top(position: Position, text: str) -> Card:
    """The top discard of a position, or InvalidRequest with paths relative to the position
    (``discard_top``): a card code of this deck, sent before the draw (``cards_drawn = 0``),
    and no more copies of it in play than the deck holds (C1)."""
    path = "discard_top"
    try:
        card = parse_card(text)
    except NotationError as error:
        raise InvalidRequest([FieldProblem(path, str(error))]) from error
    problems: list[FieldProblem] = []
    if card.special and not card.is_joker:
        problems.append(FieldProblem(path, f"{card.code} is not a card of {position.ruleset.id}"))
    if position.turn.cards_drawn != 0:
        problems.append(
            FieldProblem(
                path,
                "discard_top asks which pile to draw from: send it before the draw, with "
                f"turn.cards_drawn = 0 (not {position.turn.cards_drawn})",
            )
        )
    if problems:
        raise InvalidRequest(problems)
    counts = Counter(position.hand) + position.table_cards()
    counts[card] += 1
    errors = ProblemCollector()
    check_counts(position.ruleset, position.players, Counter({card: counts[card]}), path, errors)
    errors.raise_if_any()
    return card


def decide_draw(
    position: Position,
    card: Card,
    max_moves: int = 1,
    time_limit_ms: int = 1000,
    most_cards: bool = False,
) -> DrawResult:
    """Solve the turn after taking ``card``, and compare it with drawing from the stock."""
    half = max(1, time_limit_ms // 2)
    without, without_proved = fewest_points_left(position, half)
    solved = solve_contract_move(with_card(position, card), max_moves, half, most_cards)
    best = solved.moves[0].verdict.hand_points_after if solved.moves else without
    decision = DrawDecision(
        card=card,
        take=bool(solved.moves) and best < without,
        points_after_taking=best,
        points_without=without,
        proved=without_proved and solved.optimal,
    )
    return DrawResult(solved, decision)
