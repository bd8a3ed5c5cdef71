"""Slots: a few fully modelled melds (places, suits, cards) for the melds that must
*continue* a meld before (R5 releases, R7 lineage), which need their identity. Each is a
run or a group only, as the wilds it may hold allow (``data._slot_kinds``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise

from ortools.sat.python import cp_model

from solver.core.cards import SUITS
from solver.core.rulesets import rank_of_position
from solver.rearrangement.model.data import Code, TurnData


@dataclass(frozen=True)
class MeldSlot:
    """The variables of one explicitly modelled meld."""

    active: cp_model.IntVar  # the slot holds a meld
    is_run: cp_model.IntVar
    is_group: cp_model.IntVar
    occupied: dict[int, cp_model.IntVar] = field(default_factory=dict)  # run position: a card
    run_suit: dict[str, cp_model.IntVar] = field(default_factory=dict)  # same-suit runs
    run_natural: dict[tuple[int, str], cp_model.IntVar] = field(default_factory=dict)
    run_wild: dict[int, cp_model.IntVar] = field(default_factory=dict)  # run position: a wild
    run_free_wild: dict[int, cp_model.IntVar] = field(default_factory=dict)  # ... a free one
    group_rank: dict[int, cp_model.IntVar] = field(default_factory=dict)
    group_natural: dict[Code, cp_model.IntVar] = field(default_factory=dict)
    group_free_wilds: dict[int, cp_model.IntVar] = field(default_factory=dict)  # by rank
    naturals: dict[Code, cp_model.LinearExprT] = field(default_factory=dict)  # by code


def build_slots(m: cp_model.CpModel, data: TurnData) -> tuple[MeldSlot, ...]:
    """``data.n_slots`` slots, the active ones first (they are interchangeable)."""
    slots = tuple(_build_slot(m, data) for _ in range(data.n_slots))
    for a, b in pairwise(slots):
        m.add(a.active >= b.active)
    return slots


def _build_slot(m: cp_model.CpModel, data: TurnData) -> MeldSlot:
    act = m.new_bool_var("slot_act")
    isrun = m.new_bool_var("slot_run")
    isgrp = m.new_bool_var("slot_group")
    m.add(act == isrun + isgrp)
    slot = MeldSlot(act, isrun, isgrp)
    if data.slot_runs:
        _build_slot_run(m, data, slot)
    else:
        m.add(isrun == 0)
    if data.slot_groups:
        _build_slot_group(m, data, slot)
    else:
        m.add(isgrp == 0)
    # Naturals per code.
    for code in data.codes:
        r, s = code
        terms = [
            v for (p, s2), v in slot.run_natural.items() if s2 == s and rank_of_position(p) == r
        ]
        if code in slot.group_natural:
            terms.append(slot.group_natural[code])
        if terms:
            slot.naturals[code] = sum(terms)
    naturals = sum(slot.run_natural.values()) + sum(slot.group_natural.values())
    m.add(naturals >= act)  # R4: at least one natural card
    return slot


def _build_slot_run(m: cp_model.CpModel, data: TurnData, slot: MeldSlot) -> None:
    rs = data.ruleset
    is_run = slot.is_run
    has_wilds = bool(data.wild_capable)
    starts = []
    prev: cp_model.IntVar | None = None
    for p in data.positions:
        occupied = m.new_bool_var("slot_occupied")
        start = m.new_bool_var("slot_start")
        m.add(start <= occupied)
        if prev is None:
            m.add(occupied <= start)
        else:
            m.add(occupied <= prev + start)
            m.add(start + prev <= 1)
        starts.append(start)
        slot.occupied[p] = occupied
        prev = occupied
    m.add(sum(starts) == is_run)
    length = sum(slot.occupied.values())
    m.add(length >= rs.melds.min_sequence * is_run)
    m.add(length <= rs.melds.max_sequence * is_run)
    if data.same_suit:
        for s in SUITS:
            slot.run_suit[s] = m.new_bool_var("slot_suit")
        m.add(sum(slot.run_suit.values()) == is_run)
    suits = _run_suits(data)
    for p in data.positions:
        r = rank_of_position(p)
        parts: list[cp_model.IntVar] = []
        for s in suits:
            if data.natural_supply[(r, s)]:
                v = m.new_bool_var("slot_natural")
                if data.same_suit:
                    m.add(v <= slot.run_suit[s])
                slot.run_natural[(p, s)] = v
                parts.append(v)
        if has_wilds:
            w = m.new_bool_var("slot_wild")
            slot.run_wild[p] = w
            slot.run_free_wild[p] = m.new_bool_var("slot_free")
            parts.append(w)
        m.add(sum(parts) == slot.occupied[p])


def _run_suits(data: TurnData) -> tuple[str, ...]:
    """The suits of a run slot's naturals. Where runs are of one suit and every wild a slot
    may release stands for a card of a suit, a slot's run is of one of those suits: it is
    active only where it releases a wild (``constraints._build_slot_releases``), so it
    holds the hand's natural of the wild's card (R5), which gives the run its suit. Else
    (R7's lineage slots in vatikan, a wild standing for a rank) any suit."""
    if not data.same_suit or data.ruleset.rearrangement.wild_lineage:
        return SUITS
    values = [data.wilds[i].value for i in data.releasable]
    if any(v.suit is None for v in values):
        return SUITS
    return tuple(s for s in SUITS if any(v.suit == s for v in values))


def _build_slot_group(m: cp_model.CpModel, data: TurnData, slot: MeldSlot) -> None:
    has_wilds = bool(data.wild_capable)
    for r in range(1, 14):
        g = m.new_bool_var("slot_group_rank")
        slot.group_rank[r] = g
        for s in SUITS:
            if data.natural_supply[(r, s)]:
                v = m.new_bool_var("slot_group_natural")
                m.add(v <= g)
                slot.group_natural[(r, s)] = v
        if has_wilds:
            slot.group_free_wilds[r] = m.new_int_var(0, 4, "slot_group_free")
            m.add(slot.group_free_wilds[r] <= 4 * g)
    m.add(sum(slot.group_rank.values()) == slot.is_group)
