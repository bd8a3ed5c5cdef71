"""Protobuf <-> domain conversion. The proto types never travel below ``service/``.

Parsing goes through the solver's own parse functions; their ``InvalidRequest`` field paths
(relative to a position or a move) are placed under the request field they came from
(``position.hand[3]``, ``move.table[0].cards[2]``), so a client sees the exact path.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, TypeVar

from carrossel.v1 import rulesets_pb2, rummy_pb2
from service import limits
from solver import rulesets as domain
from solver.cards import Card, TableCard, rank_name
from solver.errors import FieldProblem, InvalidRequest, ProblemCollector
from solver.position import (
    Meld,
    Move,
    Position,
    Turn,
    parse_move,
    parse_position,
)
from solver.violations import Violation

if TYPE_CHECKING:
    from google.protobuf.internal.enum_type_wrapper import _EnumTypeWrapper

V = TypeVar("V", bound=int)

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


# --- enums --------------------------------------------------------------------------------


def enum_to_proto(wrapper: _EnumTypeWrapper[V], prefix: str, member: Enum) -> V:
    """The proto enum value named ``PREFIX_MEMBER`` for a domain enum member."""
    return wrapper.Value(f"{prefix}_{member.name}")


# --- rulesets ----------------------------------------------------------------------------

_GAME_END_TEXT = {
    domain.Settlement.CARROSSEL: (
        "After a round that brings a player to {target} or more the game ends: "
        "+{target_bonus} to each player at {target} or more, +{round_bonus} per round won; "
        "the highest total wins{tie}."
    ),
    domain.Settlement.FIRST_OUT_WINS: "No points are kept: the first player to go out wins.",
    domain.Settlement.PENALTY: (
        "The game ends when a player reaches {target} penalty points; the lowest total "
        "wins{tie}."
    ),
    domain.Settlement.WINNER_TAKES_HANDS: (
        "Each round is settled on its own: the winner gains the others' hand values "
        "and each other player loses their own."
    ),
    domain.Settlement.CARIOCA: (
        "The game ends after deal {deals}; the lowest total wins{tie}."
    ),
    domain.Settlement.FISHING: (
        "The first side to reach the target ({targets} points by deck size) wins; if several "
        "reach it in one deal the highest total wins, and a tie at the top means another deal."
    ),
}


_TIE_TEXT = {
    domain.TieRule.SHARE: " (ties share the win)",
    domain.TieRule.ANOTHER_HAND: "; a tie for the lowest means another hand, no winner yet",
}


def game_end_text(ruleset: domain.Ruleset) -> str:
    """How the game ends, in one line, from the ruleset's data."""
    targets = " / ".join(str(d.target) for d in ruleset.fishing.decks) if ruleset.fishing else ""
    return _GAME_END_TEXT[ruleset.settlement].format(
        target=ruleset.game_target or 0,
        target_bonus=ruleset.game_target_bonus,
        round_bonus=ruleset.round_won_bonus,
        deals=len(ruleset.contracts),
        targets=targets,
        tie=_TIE_TEXT[ruleset.game_end_tie],
    )


def _deal_prizes(rules: domain.FishingRules) -> list[rulesets_pb2.DealPrize]:
    prizes = [
        rulesets_pb2.DealPrize(code=card, description=f"the numbered joker {card}", points=pts)
        for card, pts in rules.special_points.items()
    ]
    suit = SUIT_NAMES[rules.prize_suit]
    prizes += [
        rulesets_pb2.DealPrize(
            code="10D", description="the ten of diamonds", points=rules.ten_of_diamonds_points
        ),
        rulesets_pb2.DealPrize(
            code=f"2{rules.prize_suit}", description=f"the two of {suit}", points=rules.deuce_points
        ),
        rulesets_pb2.DealPrize(
            code="MOST_SUIT", description=f"most cards of {suit}", points=rules.most_suit_points
        ),
        rulesets_pb2.DealPrize(
            code="MOST_CARDS", description="most cards", points=rules.most_cards_points
        ),
        rulesets_pb2.DealPrize(code="ACE", description="each ace", points=rules.ace_points),
    ]
    return prizes


def _fishing_rules(rules: domain.FishingRules) -> rulesets_pb2.FishingRules:
    return rulesets_pb2.FishingRules(
        decks=[
            rulesets_pb2.FishingDeck(
                size=d.size,
                specials=list(d.specials),
                table_cards=d.table_cards,
                game_target=d.target,
            )
            for d in rules.decks
        ],
        prize_suit=rules.prize_suit,
        special_values=[
            rulesets_pb2.SpecialValue(card=card, value=value)
            for card, value in rules.special_values.items()
        ],
        deal_prizes=_deal_prizes(rules),
    )


def ruleset_to_proto(ruleset: domain.Ruleset) -> rulesets_pb2.Ruleset:
    """Every parameter of a ruleset, as ListRulesets serves it."""
    message = rulesets_pb2.Ruleset(
        id=ruleset.id,
        name=ruleset.name,
        family=enum_to_proto(rulesets_pb2.Family, "FAMILY", ruleset.family),
        source=ruleset.source,
        description=ruleset.description,
        min_players=ruleset.min_players,
        max_players=ruleset.max_players,
        decks=[
            rulesets_pb2.DeckComposition(
                min_players=d.min_players,
                max_players=d.max_players,
                decks=d.decks,
                jokers=d.jokers,
                total_cards=d.size,
            )
            for d in ruleset.decks
            if ruleset.fishing is None  # fishing decks are described by deck size instead
        ],
        hand_size=ruleset.hand_size,
        last_deal_hand_size=ruleset.last_deal_hand_size or 0,
        wild_kind=enum_to_proto(rulesets_pb2.WildKind, "WILD_KIND", ruleset.wild),
        sequence_suit_rule=enum_to_proto(
            rulesets_pb2.SequenceSuitRule, "SEQUENCE_SUIT_RULE", ruleset.sequence_suits
        ),
        ace_rule=enum_to_proto(rulesets_pb2.AceRule, "ACE_RULE", ruleset.ace),
        group_min_size=ruleset.group_min,
        group_max_size=ruleset.group_max,
        group_suits_distinct=ruleset.group_suits_distinct,
        min_sequence_length=ruleset.min_sequence,
        max_sequence_length=ruleset.max_sequence,
        draw_rule=enum_to_proto(rulesets_pb2.DrawRule, "DRAW_RULE", ruleset.draw_rule),
        draw_rule_text=ruleset.draw_text,
        max_new_melds_per_turn=ruleset.max_new_melds or 0,
        unlimited_new_melds=ruleset.max_new_melds is None,
        opening_min_points=ruleset.opening_points,
        first_meld_must_be_sequence=ruleset.first_meld_sequence,
        released_wild_to_hand=ruleset.released_wild_to_hand,
        wild_stays_in_its_meld=ruleset.wild_lineage,
        add_must_be_maximal=ruleset.add_must_be_maximal,
        must_play_if_able=ruleset.must_play_if_able,
        knock_threshold=ruleset.knock_threshold,
        going_out_bonus=ruleset.going_out_bonus,
        knock_bonus=ruleset.knock_bonus,
        card_points=[
            rulesets_pb2.CardPoints(rank=rank_name(rank), points=points)
            for rank, points in enumerate(ruleset.card_points, start=1)
        ],
        joker_points=ruleset.joker_points,
        hands_score=ruleset.hands_score,
        settlement=enum_to_proto(rulesets_pb2.Settlement, "SETTLEMENT", ruleset.settlement),
        game_target=ruleset.game_target or 0,
        game_end_rule=game_end_text(ruleset),
        game_target_bonus=ruleset.game_target_bonus,
        round_won_bonus=ruleset.round_won_bonus,
        highest_total_wins=ruleset.highest_wins,
        contracts=[
            rulesets_pb2.Contract(
                deal=c.deal,
                trios=c.trios,
                sequences=c.sequences,
                cards_dealt=c.cards_dealt,
                cards_laid=c.cards,
            )
            for c in ruleset.contracts
        ],
        colours=[
            rulesets_pb2.Colour(name=name, suit=suit) for name, suit in ruleset.colours.items()
        ],
    )
    if ruleset.fishing is not None:
        message.fishing.CopyFrom(_fishing_rules(ruleset.fishing))
    return message


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


def _position_code_count(position: rummy_pb2.RummyPosition) -> int:
    return len(position.hand) + sum(len(m.cards) for m in position.table)


def _move_code_count(move: rummy_pb2.RummyMove) -> int:
    return len(move.to_hand) + sum(len(m.cards) for m in move.table) + 1


# --- rummy positions and moves -------------------------------------------------------------


def turn_from_proto(turn: rummy_pb2.Turn) -> Turn:
    return Turn(
        cards_drawn=turn.cards_drawn,
        stock_empty=turn.stock_empty,
        has_melded_sequence=turn.has_melded_sequence,
        has_opened=turn.has_opened,
        deal_number=turn.deal_number,
    )


def position_from_proto(
    position: rummy_pb2.RummyPosition, field: str = "position"
) -> Position:
    """Parse a RummyPosition, or raise InvalidRequest with paths under ``field``."""
    check_code_count(_position_code_count(position), field)
    try:
        return parse_position(
            position.ruleset,
            position.players,
            [list(m.cards) for m in position.table],
            list(position.hand),
            turn_from_proto(position.turn),
        )
    except InvalidRequest as error:
        raise error.prefixed(field) from error


def move_from_proto(
    position: Position, move: rummy_pb2.RummyMove, field: str = "move"
) -> Move:
    """Parse a RummyMove against its position, or raise InvalidRequest under ``field``."""
    check_code_count(_move_code_count(move), field)
    try:
        return parse_move(
            position,
            [list(m.cards) for m in move.table],
            list(move.to_hand),
            move.knock,
            move.discard,
        )
    except InvalidRequest as error:
        raise error.prefixed(field) from error


def codes(cards: Iterable[Card | TableCard]) -> list[str]:
    """Canonical codes of cards, in order."""
    return [c.code for c in cards]


def meld_to_proto(meld: Sequence[TableCard]) -> rummy_pb2.Meld:
    return rummy_pb2.Meld(cards=codes(meld))


def table_to_proto(table: Iterable[Meld]) -> list[rummy_pb2.Meld]:
    return [meld_to_proto(m) for m in table]


def move_to_proto(move: Move) -> rummy_pb2.RummyMove:
    return rummy_pb2.RummyMove(
        table=table_to_proto(move.table),
        to_hand=codes(move.to_hand),
        knock=move.knock,
        discard=move.discard.code if move.discard is not None else "",
    )


def violation_to_proto(violation: Violation) -> rummy_pb2.Violation:
    return rummy_pb2.Violation(
        code=enum_to_proto(rummy_pb2.ViolationCode, "VIOLATION_CODE", violation.code),
        message=violation.message,
        meld=violation.meld,
        cards=list(violation.cards),
        rule=violation.rule,
    )


# --- request checks done before dispatch ---------------------------------------------------


@dataclass(frozen=True)
class RummyCall:
    """A parsed RummyService request: the position, and the move when the request has one."""

    position: Position
    move: Move | None


def _require(message_has_field: bool, field: str) -> None:
    if not message_has_field:
        raise InvalidRequest([FieldProblem(field, f"{field} is required")])


def validate_move_call(request: rummy_pb2.ValidateMoveRequest) -> RummyCall:
    """Parse a ValidateMove request (position and move are both required)."""
    _require(request.HasField("position"), "position")
    # An unset move is a client's mistake; it would otherwise read as an empty table and
    # come back as "every table card removed". An empty move that is set is judged as sent.
    _require(request.HasField("move"), "move")
    position = position_from_proto(request.position)
    return RummyCall(position, move_from_proto(position, request.move))


MAX_SOLVED_MOVES = 20
"""The most moves one SolveMove request may ask for."""


def solve_move_call(request: rummy_pb2.SolveMoveRequest) -> RummyCall:
    """Parse a SolveMove request and check its numbers."""
    _require(request.HasField("position"), "position")
    errors = ProblemCollector()
    if not 0 <= request.max_moves <= MAX_SOLVED_MOVES:
        errors.add("max_moves", f"max_moves must be 0-{MAX_SOLVED_MOVES}, not {request.max_moves}")
    if request.time_limit_ms < 0:
        errors.add("time_limit_ms", f"time_limit_ms must be 0 or more, not {request.time_limit_ms}")
    if request.objective not in rummy_pb2.Objective.values():
        errors.add("objective", f"unknown objective {request.objective}")
    try:
        position = position_from_proto(request.position)
    except InvalidRequest as error:
        errors.extend(error)
    errors.raise_if_any()
    return RummyCall(position, None)


def check_knock_call(request: rummy_pb2.CheckKnockRequest) -> RummyCall:
    """Parse a CheckKnock request (the move is optional)."""
    _require(request.HasField("position"), "position")
    if request.time_limit_ms < 0:
        raise InvalidRequest(
            [FieldProblem("time_limit_ms", "time_limit_ms must be 0 or more")]
        )
    position = position_from_proto(request.position)
    move = move_from_proto(position, request.move) if request.HasField("move") else None
    return RummyCall(position, move)
