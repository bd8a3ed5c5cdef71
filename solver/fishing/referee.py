"""ValidatePlay: is one play legal, every reason why not, and what it does (F1-F7).

Index checks (an item that is not on the table) belong to parsing: ``parse_play`` raises
``InvalidRequest``. Everything here is a rule of the game, reported as a violation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from solver.core.cards import Card, format_cards, parse_card
from solver.core.errors import NotationError, ProblemCollector
from solver.fishing.items import Item, card_value, is_broom, is_court
from solver.fishing.plays import (
    Action,
    Outcome,
    Play,
    first_non_trail,
    kept_values,
    outcome,
    own_builds,
)
from solver.fishing.position import Position


class FishingCode(Enum):
    """Stable violation codes; the proto enum ``FishingViolationCode`` mirrors these."""

    CARD_NOT_IN_HAND = 1
    CAPTURE_VALUE_MISMATCH = 2
    CAPTURE_GROUPS = 3
    COURT_CAPTURE = 4
    BUILD_VALUE = 5
    COURT_BUILD = 6
    OWN_BUILD_NOT_CAPTURED = 7
    TRAIL_NOT_ALLOWED = 8
    BROOM_RULE = 9


@dataclass(frozen=True, slots=True)
class FishingViolation:
    code: FishingCode
    message: str
    rule: str
    items: tuple[int, ...] = ()
    cards: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Verdict:
    """The referee's answer: ``outcome`` is None for an illegal play."""

    violations: tuple[FishingViolation, ...]
    outcome: Outcome | None

    @property
    def legal(self) -> bool:
        return not self.violations


@dataclass(frozen=True)
class RawPlay:
    """A play as a client writes it; ``action`` is one of capture, build, trail, broom."""

    card: str
    action: str
    groups: Sequence[Sequence[int]] = ()
    items: Sequence[int] = ()
    value: int = 0


def parse_play(raw: RawPlay, table_size: int) -> Play:
    """The play, or ``InvalidRequest`` naming bad fields (paths relative to the play)."""
    problems = ProblemCollector()
    card: Card | None = None
    try:
        card = parse_card(raw.card)
    except NotationError as error:
        problems.add("card", str(error))
    actions = {a.value: a for a in Action}
    action = actions.get(raw.action)
    if action is None:
        problems.add("action", "a play is one of capture, build, trail or broom")
    for g, group in enumerate(raw.groups):
        _check_indices(group, f"capture.groups[{g}].items", table_size, problems)
    _check_indices(raw.items, "build.items", table_size, problems)
    problems.raise_if_any()
    assert card is not None and action is not None
    groups = tuple(tuple(group) for group in raw.groups)
    return Play(card, action, groups, tuple(raw.items), raw.value)


def _check_indices(
    indices: Sequence[int], path: str, table_size: int, problems: ProblemCollector
) -> None:
    for k, index in enumerate(indices):
        if not 0 <= index < table_size:
            problems.add(
                f"{path}[{k}]", f"item {index} is not on the table (items 0-{table_size - 1})"
            )


def judge(position: Position, play: Play) -> Verdict:
    """Every violation of the play, and its effects when it is legal."""
    violations = [*_hand_rule(position, play), *_action_rules(position, play)]
    violations.extend(_own_build_rule(position, play))
    if violations:
        return Verdict(tuple(violations), None)
    return Verdict((), outcome(play, position.table, position.player, position.rules))


def _codes(table: Sequence[Item], indices: Sequence[int]) -> tuple[str, ...]:
    return tuple(card.code for index in indices for card in table[index].cards)


def _text(table: Sequence[Item], indices: Sequence[int]) -> str:
    return " + ".join(table[index].text for index in indices) or "nothing"


def _hand_rule(position: Position, play: Play) -> list[FishingViolation]:
    if play.card in position.hand:
        return []
    held = format_cards(position.hand)
    return [
        FishingViolation(
            FishingCode.CARD_NOT_IN_HAND,
            f"{play.card.code} is not in the hand ({held}).",
            "F1",
            cards=(play.card.code,),
        )
    ]


def _action_rules(position: Position, play: Play) -> list[FishingViolation]:
    broom_played = is_broom(play.card)
    if (play.action is Action.BROOM) != broom_played:
        message = (
            f"The broom is always played as a broom, never to {play.action.value} (F6)."
            if broom_played
            else f"{play.card.code} is not the broom: only the broom sweeps the table (F6)."
        )
        return [FishingViolation(FishingCode.BROOM_RULE, message, "F6", cards=(play.card.code,))]
    if play.action is Action.CAPTURE:
        return _capture_rules(position, play)
    if play.action is Action.BUILD:
        return _build_rules(position, play)
    if play.action is Action.TRAIL:
        return _trail_rule(position, play)
    return []


def _capture_rules(position: Position, play: Play) -> list[FishingViolation]:
    table = position.table
    if not play.groups or not all(play.groups):
        return [
            FishingViolation(
                FishingCode.CAPTURE_GROUPS,
                f"A capture with {play.card.code} takes at least one group, and no group is empty "
                "(F3).",
                "F3",
                cards=(play.card.code,),
            )
        ]
    indices = [index for group in play.groups for index in group]
    repeated = sorted({index for index in indices if indices.count(index) > 1})
    if repeated:
        return [
            FishingViolation(
                FishingCode.CAPTURE_GROUPS,
                f"{_text(table, repeated)} appears in more than one place: the groups a capture "
                "takes are disjoint (F3).",
                "F3",
                tuple(repeated),
                _codes(table, repeated),
            )
        ]
    if is_court(play.card):
        return _court_rules(position, play, indices)
    return [
        violation
        for group in play.groups
        if (violation := _group_rule(position, play.card, group)) is not None
    ]


def _group_rule(position: Position, card: Card, group: tuple[int, ...]) -> FishingViolation | None:
    table = position.table
    value = card_value(card, position.rules)
    courts = [index for index in group if table[index].court_rank]
    total = sum(table[index].value for index in group)
    if not courts and total == value:
        return None
    if courts:
        reason = f"{_text(table, courts)} has no value for sums (F2, F4)"
    else:
        reason = f"{_text(table, group)} makes {total}"
    return FishingViolation(
        FishingCode.CAPTURE_VALUE_MISMATCH,
        f"{card.code} (value {value}) cannot take {_text(table, group)}: {reason}; a group is "
        f"one item of value {value} or items summing to {value} (F3).",
        "F3",
        group,
        _codes(table, group),
    )


def _court_rules(position: Position, play: Play, indices: list[int]) -> list[FishingViolation]:
    table = position.table
    rank = play.card.rank
    matching = [index for index, item in enumerate(table) if item.court_rank == rank]
    # Court cards make no sums, so how the taken cards are grouped says nothing: only which
    # cards are taken counts (one of the rank, or all three when three lie there).
    same_rank = all(table[index].court_rank == rank for index in indices)
    count_ok = len(indices) == 1 or (len(indices) == 3 and len(matching) == 3)
    if same_rank and count_ok:
        return []
    name = play.card.code
    return [
        FishingViolation(
            FishingCode.COURT_CAPTURE,
            f"{name} takes only one card of its own rank, or all three when three lie on the "
            f"table, not {_text(table, sorted(indices))} (F4).",
            "F4",
            tuple(sorted(indices)),
            _codes(table, sorted(indices)),
        )
    ]


def _build_rules(position: Position, play: Play) -> list[FishingViolation]:
    table = position.table
    items = sorted(set(play.items))
    courts = [index for index in items if table[index].court_rank]
    name = play.card.code
    if is_court(play.card) or courts:
        what = name if is_court(play.card) else _text(table, courts)
        return [
            FishingViolation(
                FishingCode.COURT_BUILD,
                f"{what}: J, Q and K never build (F5).",
                "F5",
                tuple(courts),
                (name, *_codes(table, courts)),
            )
        ]
    problems: list[str] = []
    if not items or len(items) != len(play.items):
        problems.append("a build puts the card onto one or more distinct table items")
    total = card_value(play.card, position.rules) + sum(table[i].value for i in items)
    if items and total != play.value:
        problems.append(f"{name} + {_text(table, items)} makes {total}, not {play.value}")
    if play.card in position.hand and play.value not in kept_values(
        position.hand, play.card, position.rules
    ):
        problems.append(f"no card of value {play.value} stays in the hand to capture it")
    if not problems:
        return []
    return [
        FishingViolation(
            FishingCode.BUILD_VALUE,
            f"Build with {name}: " + "; ".join(problems) + " (F5).",
            "F5",
            tuple(items),
            (name, *_codes(table, items)),
        )
    ]


def _trail_rule(position: Position, play: Play) -> list[FishingViolation]:
    if own_builds(position.table, position.player):
        return []  # the own-build rule already says what this play should have done
    hand = position.hand
    other = first_non_trail(hand, position.table, position.player, position.rules)
    if other is None:
        return []
    if other.action is Action.BROOM:
        could = "the broom in hand can sweep the table"
    elif other.action is Action.CAPTURE:
        could = f"{other.card.code} can take {_text(position.table, sorted(other.taken))}"
    else:
        could = f"{other.card.code} can build {other.value} on {_text(position.table, other.items)}"
    return [
        FishingViolation(
            FishingCode.TRAIL_NOT_ALLOWED,
            f"{play.card.code} cannot be laid on the table: {could}; a trail is allowed only "
            "when no card in hand can capture or build (F7).",
            "F7",
            cards=(play.card.code,),
        )
    ]


def _own_build_rule(position: Position, play: Play) -> list[FishingViolation]:
    if play.action is Action.BROOM:
        return []
    taken = play.taken if play.action is Action.CAPTURE else frozenset()
    return [
        FishingViolation(
            FishingCode.OWN_BUILD_NOT_CAPTURED,
            f"Player {position.player} built {position.table[index].text} and must capture it "
            f"this turn (with a card of value {position.table[index].value}); no other play is "
            "allowed while it lies there (F5).",
            "F5",
            (index,),
            _codes(position.table, (index,)),
        )
        for index in sorted(own_builds(position.table, position.player) - taken)
    ]
