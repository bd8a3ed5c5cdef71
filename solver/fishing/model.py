"""The CP-SAT model of a capture: which hand card, and which disjoint groups of table items
summing to its value it takes (F2, F3, F5's obligation to take one's own build).

Data → variables (tuple-keyed dicts) → constraints → objective, one small function each.
Only J/Q/K captures and the broom's sweep, which leave no choice of groups, stay outside it.
The objective is SPEC §4's order as one weighted sum: the weights keep the priorities
apart (at most 57 cards and 14 prize-suit cards, so no lower term can outweigh a higher one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from solver.core.cards import Card
from solver.core.rulesets import FishingRules
from solver.fishing.items import Item, card_points, card_value, is_prize_suit

POINT_WEIGHT = 10_000
CARD_WEIGHT = 100


@dataclass(frozen=True)
class CaptureData:
    """The cards that capture by sums and, per value, the items a group of it may hold."""

    cards: tuple[Card, ...]
    value_of: dict[Card, int]
    values: tuple[int, ...]  # the distinct values of ``cards``
    eligible: dict[int, tuple[int, ...]]  # value -> table indices worth 1..value
    own_builds: frozenset[int]


@dataclass
class CaptureModel:
    model: cp_model.CpModel
    choose: dict[Card, cp_model.IntVar] = field(default_factory=dict)
    in_group: dict[tuple[int, int, int], cp_model.IntVar] = field(default_factory=dict)
    group_used: dict[tuple[int, int], cp_model.IntVar] = field(default_factory=dict)
    taken: dict[int, cp_model.IntVar] = field(default_factory=dict)


def capture_data(
    hand: Sequence[Card], table: Sequence[Item], own: frozenset[int], rules: FishingRules
) -> CaptureData:
    """The sum-capturing cards (numbered cards and numbered jokers) and their items."""
    value_of = {card: card_value(card, rules) for card in hand if card_value(card, rules) > 0}
    cards = tuple(value_of)
    values = tuple(sorted(set(value_of.values())))
    eligible = {
        value: tuple(i for i, item in enumerate(table) if 0 < item.value <= value)
        for value in values
    }
    return CaptureData(cards, value_of, values, eligible, own)


def has_choice(data: CaptureData, table: Sequence[Item]) -> bool:
    """Whether any value could form even one group (else there is nothing to model)."""
    return any(sum(table[i].value for i in data.eligible[value]) >= value for value in data.values)


def build_model(data: CaptureData, table: Sequence[Item], rules: FishingRules) -> CaptureModel:
    built = capture_rules(data, table)
    _objective(built, data, table, rules)
    return built


def capture_rules(data: CaptureData, table: Sequence[Item]) -> CaptureModel:
    """Every legal capture by sums, without an objective (the suggestion sets its own)."""
    built = CaptureModel(cp_model.CpModel())
    _card_choice(built, data)
    for value in data.values:
        _group_slots(built, data, table, value)
    _item_links(built, table)
    _own_builds_taken(built, data)
    return built


def _card_choice(built: CaptureModel, data: CaptureData) -> None:
    """Exactly one hand card is played."""
    for card in data.cards:
        built.choose[card] = built.model.new_bool_var(f"play[{card.code}]")
    built.model.add_exactly_one(built.choose.values())


def _group_slots(built: CaptureModel, data: CaptureData, table: Sequence[Item], value: int) -> None:
    """Groups of ``value``: each used slot holds items summing exactly to it (F3).

    Slot ``g`` may only hold the ``g``-th eligible item or later ones, and slots fill in
    order, so one grouping is not found again under renumbered slots."""
    model = built.model
    eligible = data.eligible[value]
    slots = min(len(eligible), sum(table[i].value for i in eligible) // value)
    value_played = sum(built.choose[c] for c in data.cards if data.value_of[c] == value)
    if slots == 0:
        model.add(value_played == 0)  # no group of this value can be made: no capture
    for slot in range(slots):
        used = model.new_bool_var(f"group_used[{value},{slot}]")
        built.group_used[value, slot] = used
        members = []
        for rank, index in enumerate(eligible):
            if rank < slot:
                continue
            member = model.new_bool_var(f"in_group[{value},{index},{slot}]")
            built.in_group[value, index, slot] = member
            model.add_implication(member, used)
            members.append((member, table[index].value))
        model.add(sum(v * m for m, v in members) == value * used)
        if slot == 0:
            model.add(used == value_played)  # the played card takes at least one group
        else:
            model.add_implication(used, built.group_used[value, slot - 1])


def _item_links(built: CaptureModel, table: Sequence[Item]) -> None:
    """An item is taken at most once, by the one group that holds it."""
    for index in range(len(table)):
        members = [var for (_, i, _), var in built.in_group.items() if i == index]
        if members:
            taken = built.model.new_bool_var(f"taken[{index}]")
            built.model.add(sum(members) == taken)
            built.taken[index] = taken


def _own_builds_taken(built: CaptureModel, data: CaptureData) -> None:
    """The owner of a build must capture it this turn (F5)."""
    for index in data.own_builds:
        if index in built.taken:
            built.model.add(built.taken[index] == 1)
        else:
            built.model.add_bool_or([])  # no group can reach it: no legal capture


def _objective(
    built: CaptureModel, data: CaptureData, table: Sequence[Item], rules: FishingRules
) -> None:
    """Deal points secured, then cards captured, then prize-suit cards (SPEC §4)."""
    built.model.maximize(play_value(built, table, rules))


def play_value(
    built: CaptureModel, table: Sequence[Item], rules: FishingRules
) -> cp_model.LinearExpr:
    """SPEC §4's order as one weighted sum of what the capture secures (see ``play_weight``)."""
    return cp_model.LinearExpr.weighted_sum(
        [*built.choose.values(), *built.taken.values()],
        [
            *(play_weight((card,), rules) for card in built.choose),
            *(play_weight(table[index].cards, rules) for index in built.taken),
        ],
    )


def play_weight(cards: Sequence[Card], rules: FishingRules) -> int:
    points = sum(card_points(card, rules) for card in cards)
    prize = sum(1 for card in cards if is_prize_suit(card, rules))
    return POINT_WEIGHT * points + CARD_WEIGHT * len(cards) + prize


def exclude(built: CaptureModel, card: Card, taken: frozenset[int]) -> None:
    """Forbid one capture already found: the same card taking exactly the same items."""
    differs = [built.choose[card].Not()]
    differs += [var.Not() if index in taken else var for index, var in built.taken.items()]
    built.model.add_bool_or(differs)


@dataclass(frozen=True)
class FoundCapture:
    card: Card
    groups: tuple[tuple[int, ...], ...]

    @property
    def taken(self) -> frozenset[int]:
        return frozenset(index for group in self.groups for index in group)


def read_capture(built: CaptureModel, solver: cp_model.CpSolver, data: CaptureData) -> FoundCapture:
    """The chosen card and its groups, each group's items in table order."""
    card = next(c for c, var in built.choose.items() if solver.boolean_value(var))
    value = data.value_of[card]
    groups = []
    for (group_value, slot), used in built.group_used.items():
        if group_value != value or not solver.boolean_value(used):
            continue
        groups.append(
            tuple(
                sorted(
                    index
                    for (v, index, s), var in built.in_group.items()
                    if v == value and s == slot and solver.boolean_value(var)
                )
            )
        )
    return FoundCapture(card, tuple(sorted(groups)))
