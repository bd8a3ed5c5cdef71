"""Fishing messages to and from the solver's plain values; proto types stop here."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from carrossel.v1 import fishing_pb2
from service.limits import MAX_CODE_LENGTH, MAX_CODES_PER_REQUEST
from solver.core.cards import Card
from solver.core.errors import InvalidRequest, ProblemCollector
from solver.fishing.items import Item
from solver.fishing.plays import Action, Play
from solver.fishing.position import Position, RawItem, RawPosition, parse_position
from solver.fishing.referee import FishingViolation, RawPlay, parse_play


def _codes_of(position: fishing_pb2.FishingPosition) -> Iterable[str]:
    yield from position.hand
    for item in position.table:
        yield from item.cards
    for pile in position.piles:
        yield from pile.cards
    for hand in position.other_hands:
        yield from hand.cards


def check_size(codes: Iterable[str], path: str) -> None:
    """SPEC §5's bounds: a request never carries more codes than any deck could need."""
    problems = ProblemCollector()
    listed = list(codes)
    if len(listed) > MAX_CODES_PER_REQUEST:
        problems.add(
            path, f"{len(listed)} card codes: a request carries at most {MAX_CODES_PER_REQUEST}"
        )
    if any(len(code) > MAX_CODE_LENGTH for code in listed):
        problems.add(path, f"a card code is longer than {MAX_CODE_LENGTH} characters")
    problems.raise_if_any()


def position_from_proto(message: fishing_pb2.FishingPosition) -> Position:
    """The checked position; field paths are placed under ``position``."""
    try:
        check_size(_codes_of(message), "")
        return parse_position(
            RawPosition(
                ruleset=message.ruleset,
                table=[RawItem(list(i.cards), i.value, i.owner) for i in message.table],
                hand=list(message.hand),
                deck_size=message.deck_size,
                player=message.player,
                players=message.players,
                piles=[list(pile.cards) for pile in message.piles],
                last_capturer=message.last_capturer if message.HasField("last_capturer") else None,
                other_hands=[(hand.player, list(hand.cards)) for hand in message.other_hands],
                omit_broom=message.omit_broom,
            )
        )
    except InvalidRequest as error:
        raise error.prefixed("position") from None


def play_from_proto(message: fishing_pb2.FishingPlay, table_size: int) -> Play:
    """The play; field paths are placed under ``play``."""
    action = message.WhichOneof("action") or ""
    raw = RawPlay(
        card=message.card,
        action=action,
        groups=[list(group.items) for group in message.capture.groups],
        items=list(message.build.items),
        value=message.build.value,
    )
    try:
        return parse_play(raw, table_size)
    except InvalidRequest as error:
        raise error.prefixed("play") from None


def play_to_proto(play: Play) -> fishing_pb2.FishingPlay:
    message = fishing_pb2.FishingPlay(card=play.card.code)
    if play.action is Action.CAPTURE:
        message.capture.groups.extend(
            fishing_pb2.CaptureGroup(items=list(group)) for group in play.groups
        )
    elif play.action is Action.BUILD:
        message.build.items.extend(play.items)
        message.build.value = play.value
    elif play.action is Action.TRAIL:
        message.trail.SetInParent()
    else:
        message.broom.SetInParent()
    return message


def codes(cards: Iterable[Card]) -> list[str]:
    return [card.code for card in cards]


def table_to_proto(table: Sequence[Item]) -> list[fishing_pb2.TableItem]:
    return [
        fishing_pb2.TableItem(
            cards=codes(item.cards),
            value=item.value if item.is_build else 0,
            owner=item.owner if item.is_build else 0,
        )
        for item in table
    ]


def violation_to_proto(violation: FishingViolation) -> fishing_pb2.FishingViolation:
    code = fishing_pb2.FishingViolationCode.Value(f"FISHING_VIOLATION_CODE_{violation.code.name}")
    return fishing_pb2.FishingViolation(
        code=code,
        message=violation.message,
        items=list(violation.items),
        cards=list(violation.cards),
        rule=violation.rule,
    )
