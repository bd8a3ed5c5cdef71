"""Rummikub's turn model as a copy of the whole deck's model, built once.

Where new melds are unlimited and no wild is on the table (Rummikub after its opening, with
0-2 jokers on the rack), the pool, card conservation and the measures depend on the
position only through numbers: how many of each card the hand and the table hold. So the
model of a position whose hand holds the whole deck (and the rack's jokers) is built once
per joker count; each position writes its numbers on its thread's own copy of it
(``_Scratch``) and solves a copy of that (a C++ copy of the proto):

* each hand card's bound (``hand_used``; the deck's model holds them at 0);
* each table card's conservation row: the table's copies of it (the row's right-hand side);
* the hand's size in the went-out row;

then adds what belongs to its table: the keep flags of its melds, their links to the pool's
runs and groups of their shape, and the cards of kept melds the pool has no shape for (runs
longer than the pool's, ``pool._build_runs``) in their cards' conservation rows.

Cards not in play keep their variables, bound to 0 by conservation: the same tables as the
model built for the position alone (``turn.build_turn``), with a few more variables for
CP-SAT to load (bench/HISTORY.md, "2026-12-05: the model of the whole deck"). Building that
model took about 1.6 ms per Rummikub position; the copy and its numbers take 0.7 (CPU).
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass

from solver.core.cards import JOKER_CARD, Card
from solver.core.rulesets import DeckSpec
from solver.rearrangement.model.constraints import (
    KeptMelds,
    LinkedMelds,
    build_kept_melds,
    link_melds,
)
from solver.rearrangement.model.cp import CountsScratch, FastCpModel, sum_of, thread_scratch
from solver.rearrangement.model.data import ModelOptions, TurnData, collect_data
from solver.rearrangement.model.objective import points_left
from solver.rearrangement.model.turn import TurnVariables, build_turn
from solver.rummy.position import Position, Turn

# The rulesets whose positions may start from the deck's model: their new melds are
# unlimited after the opening, so the model has no count of melds that depends on the table.
DECK_RULESETS = frozenset({"rummikub"})


@dataclass(frozen=True)
class DeckModel:
    """The model of a hand holding the whole deck, and where a position writes its numbers."""

    model: FastCpModel
    variables: TurnVariables
    stand_in: bool  # its rack joker is a stand-in (``pool._build_stand_ins``)
    hand_vars: dict[Card, int]  # per card: the index of its hand count, bound to 0 here
    rows: dict[Card, int]  # per card: the index of its conservation row, 0 copies on the table
    went_out_row: int  # the row "went out: every hand card played"


# Per ruleset, deck (the player counts that share it), rack jokers and stand-in.
_DECK_MODELS: dict[tuple[str, DeckSpec | None, int, bool], DeckModel] = {}
_BUILDING = threading.Lock()


def from_deck(data: TurnData) -> tuple[FastCpModel, TurnVariables] | None:
    """The position's model as a copy of the deck's, or None where it does not apply."""
    rs = data.ruleset
    if (
        rs.id not in DECK_RULESETS
        or data.options != ModelOptions(max_new_melds=None)
        or data.wilds
        or data.n_slots
    ):
        return None
    deck = deck_model(data.position, data.hand_count[JOKER_CARD], data.stand_in)
    if deck is None or deck.stand_in != data.stand_in:
        return None
    model = _scratch(deck).write_data(data).clone()
    kept = build_kept_melds(model, data)
    links = link_melds(model, data, kept, deck.variables.pool)
    _keep_unlinked(model, deck, data, kept, links)
    base = deck.variables
    hand_used = {c: base.hand_used[c] for c in sorted(data.hand_count)}
    variables = TurnVariables(
        hand_used=hand_used,
        kept=kept,
        released={},
        to_hand={},
        pool=base.pool,
        links=links,
        slots=(),
        wilds_in_slots=base.wilds_in_slots,
        releases=base.releases,
        free_wilds=base.free_wilds,
        played=base.played,
        hand_points_after=points_left(data, hand_used, {}),
        went_out=base.went_out,
        changed=len(kept.keep) - sum_of(kept.keep),
    )
    return model, variables


def deck_model(position: Position, jokers: int, stand_in: bool) -> DeckModel | None:
    """The deck's model for this ruleset and number of jokers on the rack, built once (and
    once more if ``STAND_IN_WILDS`` has changed since: its tests change it)."""
    rs = position.ruleset
    key = (rs.id, rs.deck_spec(position.players), jokers, stand_in)
    deck = _DECK_MODELS.get(key)
    if deck is not None:
        return deck
    cards = rs.deck(position.players)
    if cards[JOKER_CARD] < jokers or not cards:
        return None
    with _BUILDING:
        deck = _DECK_MODELS.get(key)
        if deck is None:
            deck = _DECK_MODELS[key] = _build_deck_model(position, cards, jokers)
    return deck


def _build_deck_model(position: Position, cards: Counter[Card], jokers: int) -> DeckModel:
    hand = [c for c, n in sorted(cards.items()) if c.is_ordinary for _ in range(n)]
    whole = Position(
        position.ruleset,
        position.players,
        (),
        (*hand, *[JOKER_CARD] * jokers),
        Turn(has_opened=True),
    )
    data = collect_data(whole, ModelOptions(max_new_melds=None))
    model = FastCpModel()
    variables = build_turn(model, data)
    protos = model.proto.constraints
    rows: dict[Card, int] = {}
    for card, var in variables.hand_used.items():
        # The card's conservation row is the one row that subtracts its hand count.
        (rows[card],) = (
            j
            for j, ct in enumerate(protos)
            if not ct.enforcement_literal
            and any(
                v == var.index and c == -1
                for v, c in zip(ct.linear.vars, ct.linear.coeffs, strict=True)
            )
        )
    (went_out_row,) = (
        j
        for j, ct in enumerate(protos)
        if list(ct.enforcement_literal) == [variables.went_out.index]
    )
    # No card in the hand: a position writes the bounds of its own cards only.
    hand_vars = {card: var.index for card, var in variables.hand_used.items()}
    for index in hand_vars.values():
        model.proto.variables[index].domain[1] = 0
    return DeckModel(model, variables, data.stand_in, hand_vars, rows, went_out_row)


class _Scratch(CountsScratch[Card]):
    """A thread's own copy of a deck's model (``CountsScratch``): each hand card's bound,
    each table card's conservation row, and the hand's size in the went-out row."""

    def __init__(self, deck: DeckModel) -> None:
        super().__init__(deck.model, deck.hand_vars, deck.rows)
        self.went_out = self.model.proto.constraints[deck.went_out_row].linear.domain

    def write_data(self, data: TurnData) -> FastCpModel:
        """The position's hand bounds, the table's copies of each card and the hand's size."""
        model = self.write(data.hand_count, data.table_count)
        size = sum(data.hand_count.values())
        self.went_out[0] = self.went_out[1] = size
        return model


_SCRATCH = threading.local()


def _scratch(deck: DeckModel) -> _Scratch:
    """This thread's scratch copy of ``deck`` (made on its first position)."""
    return thread_scratch(_SCRATCH, deck, lambda: _Scratch(deck))


def _keep_unlinked(
    model: FastCpModel, deck: DeckModel, data: TurnData, kept: KeptMelds, links: LinkedMelds
) -> None:
    """A kept meld without a shape in the pool holds its cards: each card's row counts it."""
    constraints = model.proto.constraints
    for m, meld in enumerate(data.position.table):
        if not links.leaves_pool[m]:
            continue
        flag = kept.held[m].index
        for card, n in Counter(tc.card for tc in meld).items():
            row = constraints[deck.rows[card]].linear
            row.vars.extend([flag])
            row.coeffs.extend([n])
