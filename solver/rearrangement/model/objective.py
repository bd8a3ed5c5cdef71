"""What a play measures (cards played, hand points left, going out, melds changed) and the
turn's rules on those measures (R6's new melds, R7's groups, R8's adds and opening)."""

from __future__ import annotations

from dataclasses import dataclass

from ortools.sat.python import cp_model

from solver.core.cards import Card
from solver.core.rulesets import rank_of_position
from solver.rearrangement.model.constraints import KeptMelds, LinkedMelds
from solver.rearrangement.model.cp import sum_of
from solver.rearrangement.model.data import NO_ADD, TurnData
from solver.rearrangement.model.pool import PoolVariables
from solver.rearrangement.model.slots import MeldSlot
from solver.rummy.melds import MeldKind


@dataclass(frozen=True)
class TurnMeasures:
    """The expressions the search optimises."""

    played: cp_model.LinearExpr  # hand cards laid, a swap counted as none
    hand_points_after: cp_model.LinearExpr
    went_out: cp_model.IntVar
    changed: cp_model.LinearExpr  # melds before not kept (an upper bound where D4 applies)


def build_turn_rules(
    m: cp_model.CpModel,
    data: TurnData,
    kept: KeptMelds,
    links: LinkedMelds,
    hand_used: dict[Card, cp_model.IntVar],
    to_hand: dict[int, cp_model.IntVar],
    pool: PoolVariables,
    slots: tuple[MeldSlot, ...],
) -> TurnMeasures:
    """What a play measures, and the turn's rules on it: a hand card laid (R6), new melds
    (R6), vatikan's groups (R7), R8's adds and rummikub's opening."""
    opts = data.options
    played = _played(m, data, hand_used, to_hand)
    m.add(played >= 1)
    n_before = len(data.position.table)
    kept_off_pool = [k for k, out in zip(kept.held, links.leaves_pool, strict=True) if out]
    n_after = sum_of(
        [
            *kept_off_pool,
            *pool.runs.values(),
            *(pool.run_flow.starts if pool.run_flow else ()),
            *pool.groups.values(),
            *pool.group_sets.values(),
            *(s.active for s in slots),
        ]
    )
    if opts.max_new_melds is not None:
        m.add(n_after - n_before <= opts.max_new_melds)
    if not opts.groups_may_grow:
        _build_no_new_group(m, data, kept, links, pool, slots)
    if opts.add_size == NO_ADD:
        m.add(n_after >= n_before + 1)
    elif opts.add_size is not None:
        # R8: a play that adds no meld must place as many cards as any add can.
        is_add = m.new_bool_var("is_add")
        m.add(n_after <= n_before).only_enforce_if(is_add)
        m.add(n_after >= n_before + 1).only_enforce_if(~is_add)
        m.add(played == opts.add_size).only_enforce_if(is_add)
    if opts.opening_points:
        m.add(_laid_value(hand_used, pool, slots) >= opts.opening_points)
    hand_points_after = points_left(data, hand_used, to_hand)
    went_out = m.new_bool_var("went_out")
    m.add(played == sum(data.hand_count.values())).only_enforce_if(went_out)
    for v in to_hand.values():
        m.add(v == 0).only_enforce_if(went_out)
    changed = len(kept.keep) - sum_of(kept.keep)
    return TurnMeasures(played, hand_points_after, went_out, changed)


def _build_no_new_group(
    m: cp_model.CpModel,
    data: TurnData,
    kept: KeptMelds,
    links: LinkedMelds,
    pool: PoolVariables,
    slots: tuple[MeldSlot, ...],
) -> None:
    """R7 (vatikan before a sequence): no more groups on the table than before."""
    groups_before = sum(1 for r in data.before if r.kind is MeldKind.GROUP)
    kept_groups = [
        k
        for k, r, out in zip(kept.held, data.before, links.leaves_pool, strict=True)
        if r.kind is MeldKind.GROUP and out
    ]
    groups_after = [
        *kept_groups,
        *pool.groups.values(),
        *pool.group_sets.values(),
        *(s.is_group for s in slots),
    ]
    m.add(sum_of(groups_after) <= groups_before)


def points_left(
    data: TurnData, hand_used: dict[Card, cp_model.IntVar], to_hand: dict[int, cp_model.IntVar]
) -> cp_model.LinearExpr:
    """Hand points left: every card's points, less those played, plus wilds taken back."""
    rs = data.ruleset
    hand_total = sum(rs.points(c) * k for c, k in data.hand_count.items())
    terms = [*hand_used.values(), *to_hand.values()]
    weights = [-rs.points(c) for c in hand_used]
    weights += [rs.points(data.wilds[i].card) for i in to_hand]
    return cp_model.LinearExpr.weighted_sum(terms, weights) + hand_total


def _played(
    m: cp_model.CpModel,
    data: TurnData,
    hand_used: dict[Card, cp_model.IntVar],
    to_hand: dict[int, cp_model.IntVar],
) -> cp_model.LinearExpr:
    """Hand cards laid. A hand card laid while a released wild of the same code goes back
    to the hand is a swap: table and hand end as they were, so the pair lays nothing
    (docs/rules.md, "What counts as laid"; ``CardFlow.swapped``). Counted net, as the
    referee does."""
    back_by_card: dict[Card, list[cp_model.IntVar]] = {}
    for i, v in to_hand.items():
        back_by_card.setdefault(data.wilds[i].card, []).append(v)
    swaps: list[cp_model.IntVar] = []
    for card, back in back_by_card.items():
        if card in hand_used:
            swap = m.new_int_var(0, min(data.hand_count[card], len(back)), "swap")
            m.add_min_equality(swap, [hand_used[card], sum_of(back)])
            swaps.append(swap)
    return sum_of(hand_used.values()) - sum_of(swaps)


def _laid_value(
    hand_used: dict[Card, cp_model.IntVar], pool: PoolVariables, slots: tuple[MeldSlot, ...]
) -> cp_model.LinearExprT:
    """The value of everything laid this turn (rummikub's opening; jokers at their value)."""
    natural = sum(c.rank * v for c, v in hand_used.items() if c.is_ordinary)
    wild_runs = sum(rank_of_position(p) * (v) for s in slots for p, v in s.run_free_wild.items())
    wild_groups = sum(r * v for s in slots for r, v in s.group_free_wilds.items())
    pool_wilds = cp_model.LinearExpr.weighted_sum(
        [*pool.run_free_wilds.values(), *pool.group_free_wilds.values(), *pool.stand_ins.values()],
        [rank_of_position(p) for p, _ in pool.run_free_wilds]
        + list(pool.group_free_wilds)
        + [rank for rank, _ in pool.stand_ins],
    )
    return natural + wild_runs + wild_groups + pool_wilds
