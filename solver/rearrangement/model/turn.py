"""The turn model: its build steps in order, and the one record of the turn's variables."""

from __future__ import annotations

from dataclasses import dataclass

from ortools.sat.python import cp_model

from solver.core.cards import Card
from solver.rearrangement.model.constraints import (
    KeptMelds,
    LinkedMelds,
    Releases,
    WildsInSlots,
    build_conservation,
    build_kept_melds,
    build_matches,
    build_released,
    build_releases,
    build_wild_fates,
    link_melds,
)
from solver.rearrangement.model.data import TurnData
from solver.rearrangement.model.objective import build_turn_rules
from solver.rearrangement.model.pool import PoolVariables, build_pool, with_run_naturals
from solver.rearrangement.model.slots import MeldSlot, build_slots


@dataclass(frozen=True)
class TurnVariables:
    """Every variable of the turn's model, as the build steps made them."""

    hand_used: dict[Card, cp_model.IntVar]  # hand cards laid, per card
    kept: KeptMelds
    released: dict[int, cp_model.IntVar]  # per releasable wild: released (R5)
    to_hand: dict[int, cp_model.IntVar]  # per releasable wild: back to the hand
    pool: PoolVariables
    links: LinkedMelds
    slots: tuple[MeldSlot, ...]
    wilds_in_slots: WildsInSlots
    releases: Releases
    free_wilds: dict[Card, cp_model.IntVar]  # per wild card: laid anywhere with any value
    played: cp_model.LinearExpr  # hand cards laid, a swap counted as none
    hand_points_after: cp_model.LinearExpr
    went_out: cp_model.IntVar
    changed: cp_model.LinearExpr  # melds before not kept (an upper bound where D4 applies)


def build_turn(
    m: cp_model.CpModel, data: TurnData, pool: PoolVariables | None = None
) -> TurnVariables:
    """The build steps in order: each adds one family of constraints and returns the
    variables it made (the order fixes the variables' indices, and so the search).
    ``pool``: the pool already in ``m`` (a copy of the deck's, ``pool_deck``)."""
    hand_used = {c: m.new_int_var(0, k, "hand") for c, k in sorted(data.hand_count.items())}
    kept = build_kept_melds(m, data)
    released, to_hand = build_released(m, data)
    if pool is None:
        pool = build_pool(m, data, kept.held)
    else:
        pool = with_run_naturals(m, data, pool, kept.held)
    links = link_melds(m, data, kept, pool)
    slots = build_slots(m, data)
    wilds = build_wild_fates(m, data, kept, released, pool, slots)
    build_matches(m, data, kept, slots, wilds)
    releases = build_releases(m, data, kept, hand_used, released, slots, wilds)
    free_wilds = build_conservation(m, data, kept, links, hand_used, to_hand, pool, slots, wilds)
    measures = build_turn_rules(m, data, kept, links, hand_used, to_hand, pool, slots)
    return TurnVariables(
        hand_used=hand_used,
        kept=kept,
        released=released,
        to_hand=to_hand,
        pool=pool,
        links=links,
        slots=slots,
        wilds_in_slots=wilds,
        releases=releases,
        free_wilds=free_wilds,
        played=measures.played,
        hand_points_after=measures.hand_points_after,
        went_out=measures.went_out,
        changed=measures.changed,
    )


def structural_vars(variables: TurnVariables) -> list[cp_model.IntVar]:
    """The variables that determine the table after (for excluding a found solution).

    Not the keep flag of a linked meld: kept or rebuilt from the pool, the table is the
    same, and excluding only one of the two would find the same table again."""
    v = variables
    pool = v.pool
    kept = [k for k, out in zip(v.kept.held, v.links.leaves_pool, strict=True) if out]
    out: list[cp_model.IntVar] = [*v.hand_used.values(), *kept, *v.released.values()]
    out += [*v.to_hand.values(), *pool.runs.values(), *pool.groups.values()]
    if pool.run_flow is not None:  # its runs' ends, as ``rebuild`` pairs them
        out += pool.run_flow.variables()
    out += [x for x in pool.group_suits.values() if isinstance(x, cp_model.IntVar)]
    out += [*pool.group_sets.values()]
    # A fill without a variable is a sum of runs, which are already here.
    out += [x for x in pool.run_fill.values() if isinstance(x, cp_model.IntVar)]
    for slot in v.slots:
        out += [slot.active, slot.is_run, *slot.occupied.values(), *slot.run_suit.values()]
        out += [*slot.run_natural.values(), *slot.run_wild.values(), *slot.group_rank.values()]
        out += [*slot.group_natural.values(), *slot.group_free_wilds.values()]
    out += [*v.wilds_in_slots.in_run.values(), *v.wilds_in_slots.in_group.values()]
    out += [*pool.run_free_wilds.values(), *pool.run_table_wilds.values()]
    out += [*pool.group_free_wilds.values(), *pool.group_table_wilds.values()]
    out += pool.stand_ins.values()
    return out
