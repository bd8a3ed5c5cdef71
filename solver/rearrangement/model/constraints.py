"""The melds kept, the wilds' fates and card conservation: the constraints that tie the
melds before, the pool and the slots together."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ortools.sat.python import cp_model

from solver.core.cards import SUITS, Card
from solver.core.rulesets import rank_of_position
from solver.rearrangement.model.cp import sum_of
from solver.rearrangement.model.data import Code, GroupKey, RunKey, Shape, TableWild, TurnData
from solver.rearrangement.model.pool import PoolVariables
from solver.rearrangement.model.slots import MeldSlot


@dataclass(frozen=True)
class KeptMelds:
    """Which melds before stay on the table unchanged."""

    keep: list[cp_model.IntVar]  # per meld before: on the table after, as it was
    # A meld a slot may rebuild is kept either way: with its own cards (or, linked, as one
    # of the pool's melds) — ``held`` — or as that slot (``in_slot``).
    held: list[cp_model.IntVar]
    in_slot: dict[int, cp_model.IntVar]


@dataclass(frozen=True)
class LinkedMelds:
    """Kept natural melds that are one of the pool's melds of their shape."""

    runs: dict[int, RunKey]
    groups: dict[int, GroupKey]
    leaves_pool: list[bool]  # per meld before: kept, its cards leave the pool (not linked)


@dataclass(frozen=True)
class WildsInSlots:
    """Table wilds keeping their value in a slot (R5, R7)."""

    in_run: dict[tuple[int, int, int], cp_model.IntVar]  # (wild, slot, position)
    in_group: dict[tuple[int, int], cp_model.IntVar]  # (wild, slot)
    in_slot: dict[tuple[int, int], cp_model.LinearExprT]  # (wild, slot): either
    placed: dict[int, list[cp_model.IntVar]]  # per wild: every place it may keep its value


@dataclass(frozen=True)
class Releases:
    """Which slot continues which meld, and the hand's naturals that release wilds (R5)."""

    from_meld: dict[tuple[int, int, Code], cp_model.IntVar]  # (slot, meld before, code)
    from_hand: dict[tuple[int, Code], cp_model.IntVar]  # (slot, code): releasing naturals
    released_by: dict[tuple[int, int], cp_model.IntVar]  # (wild, slot)


def build_kept_melds(m: cp_model.CpModel, data: TurnData) -> KeptMelds:
    keep = [m.new_bool_var("keep") for _ in range(len(data.position.table))]
    if data.options.keep_all:
        for k in keep:
            m.add(k == 1)
    else:
        _order_identical_melds(m, data, keep)
    held: list[cp_model.IntVar] = list(keep)
    in_slot: dict[int, cp_model.IntVar] = {}
    for i in data.match_shapes:
        held[i] = m.new_bool_var("held")
        in_slot[i] = m.new_bool_var("via")
        m.add(keep[i] == held[i] + in_slot[i])
    return KeptMelds(keep, held, in_slot)


def _order_identical_melds(
    m: cp_model.CpModel, data: TurnData, keep: list[cp_model.IntVar]
) -> None:
    """Two identical melds before (the same cards standing for the same values) are
    interchangeable: each of them is kept only if the one before it is. Without this,
    keeping one or the other is the same table, searched and found twice."""
    last: dict[tuple[object, ...], cp_model.IntVar] = {}
    for k, (meld, reading) in enumerate(zip(data.position.table, data.before, strict=True)):
        # Cards with what each stands for, in any order (cheaper than writing the
        # normalised meld out, on every model built).
        stands = zip(meld, reading.values, reading.wild, strict=True)
        key = (reading.kind, *sorted((tc.card, v.rank, v.suit or "", w) for tc, v, w in stands))
        if key in last:
            m.add(keep[k] <= last[key])
        last[key] = keep[k]


def build_released(
    m: cp_model.CpModel, data: TurnData
) -> tuple[dict[int, cp_model.IntVar], dict[int, cp_model.IntVar]]:
    """Per releasable wild: released (R5), and where released wilds go back to the hand,
    taken back."""
    released = {i: m.new_bool_var("rel") for i in data.releasable}
    to_hand: dict[int, cp_model.IntVar] = {}
    if data.ruleset.rearrangement.released_wild_to_hand:
        for i in data.releasable:
            to_hand[i] = m.new_bool_var("to_hand")
            m.add(to_hand[i] <= released[i])
    return released, to_hand


def link_melds(
    m: cp_model.CpModel, data: TurnData, kept: KeptMelds, pool: PoolVariables
) -> LinkedMelds:
    """A linked kept meld is one of the pool's melds of its shape, all natural. (The pool
    built for the position has every linkable run's shape; the deck's, ``deck``, has runs of
    up to five cards only: a longer kept run there holds its own cards.)"""
    linked_runs = {k: run for k, run in data.linkable_runs.items() if run in pool.runs}
    linked_groups = {k: key for k, key in data.linkable_groups.items() if key in pool.group_sets}
    leaves_pool = [k not in linked_runs and k not in linked_groups for k in range(len(kept.keep))]
    runs: dict[RunKey, list[cp_model.IntVar]] = {}
    for k, run in linked_runs.items():
        runs.setdefault(run, []).append(kept.held[k])
    for run, keeps in runs.items():
        m.add(sum_of(keeps) <= pool.runs[run])
    groups: dict[GroupKey, list[cp_model.IntVar]] = {}
    for k, group in linked_groups.items():
        groups.setdefault(group, []).append(kept.held[k])
    for group, keeps in groups.items():
        m.add(sum_of(keeps) <= pool.group_sets[group])
    # Where wilds may fill a run place too, the linked runs through it need naturals.
    by_suit: dict[str | None, list[tuple[int, int, int]]] = {}
    for k, (a, b, s) in linked_runs.items():
        by_suit.setdefault(s, []).append((a, b, k))
    for (p, suit), fill in pool.run_fill.items():
        if not isinstance(fill, cp_model.IntVar):
            continue
        through = [kept.held[k] for a, b, k in by_suit.get(suit, ()) if a <= p <= b]
        if through:
            m.add(sum_of(through) <= fill)
    return LinkedMelds(linked_runs, linked_groups, leaves_pool)


def build_wild_fates(
    m: cp_model.CpModel,
    data: TurnData,
    kept: KeptMelds,
    released: dict[int, cp_model.IntVar],
    pool: PoolVariables,
    slots: tuple[MeldSlot, ...],
) -> WildsInSlots:
    """Every table wild: kept, fixed in a slot or the pool with its value, or released
    (R5); and each slot's wild places and group sizes."""
    fates = WildsInSlots({}, {}, {}, {})
    for i, w in enumerate(data.wilds):
        placements = _wild_in_slots(m, data, i, w, slots, fates)
        placements += [v for (i2, _, _), v in pool.run_table_wilds.items() if i2 == i]
        if i in pool.group_table_wilds:
            placements.append(pool.group_table_wilds[i])
        fates.placed[i] = placements
        fate = [kept.keep[w.meld], *placements]
        if i in released:
            fate.append(released[i])
        m.add(sum(fate) == 1)
    for k, slot in enumerate(slots):
        _slot_wild_rows(m, data, k, slot, fates)
    return fates


def _wild_in_slots(
    m: cp_model.CpModel,
    data: TurnData,
    i: int,
    w: TableWild,
    slots: tuple[MeldSlot, ...],
    fates: WildsInSlots,
) -> list[cp_model.IntVar]:
    """Table wild ``i`` fixed in a slot with its value: a flag per run place of its rank
    and per slot's group; they are recorded in ``fates`` and returned."""
    placements: list[cp_model.IntVar] = []
    for k, slot in enumerate(slots):
        here = []
        for p in data.positions:
            if rank_of_position(p) != w.value.rank or p not in slot.run_wild:
                continue
            v = m.new_bool_var("fx")
            if data.same_suit and w.value.suit is not None:
                m.add(v <= slot.run_suit[w.value.suit])
            fates.in_run[(i, k, p)] = v
            here.append(v)
        if slot.group_rank:
            g = m.new_bool_var("fxg")
            m.add(g <= slot.group_rank[w.value.rank])
            fates.in_group[(i, k)] = g
            here.append(g)
        fates.in_slot[(i, k)] = sum(here)
        placements.extend(here)
    return placements


def _slot_wild_rows(
    m: cp_model.CpModel, data: TurnData, k: int, slot: MeldSlot, fates: WildsInSlots
) -> None:
    """Slot ``k``'s wild places (free wilds and table wilds fixed there) and its groups'
    sizes, with R4's missing suit for a suited wild."""
    rs = data.ruleset
    for p, wvar in slot.run_wild.items():
        fixed = [v for (i, k2, p2), v in fates.in_run.items() if k2 == k and p2 == p]
        m.add(wvar == slot.run_free_wild[p] + sum(fixed))
    for r in slot.group_rank:
        fixed_g = [fates.in_group[(i, k)] for i, w in enumerate(data.wilds) if w.value.rank == r]
        free_g = slot.group_free_wilds.get(r, 0)
        n_nat = sum(v for (r2, _), v in slot.group_natural.items() if r2 == r)
        size = n_nat + free_g + sum(fixed_g)
        g = slot.group_rank[r]
        m.add(size >= rs.melds.group_min * g)
        m.add(size <= rs.melds.group_max * g)
        if rs.melds.group_suits_distinct:
            # A suited wild stands for that very card: its suit must be missing (R4).
            for s in SUITS:
                suited = [
                    fates.in_group[(i, k)]
                    for i, w in enumerate(data.wilds)
                    if w.value.rank == r and w.value.suit == s
                ]
                if suited:
                    m.add(sum(suited) + slot.group_natural.get((r, s), 0) <= 1)


def build_matches(
    m: cp_model.CpModel,
    data: TurnData,
    kept: KeptMelds,
    slots: tuple[MeldSlot, ...],
    wilds: WildsInSlots,
) -> None:
    """A meld kept in a slot (``data._find_matchable``): the slot holds its very cards."""
    by_shape: dict[Shape, list[cp_model.IntVar]] = {}
    for k, shape in data.match_shapes.items():
        by_shape.setdefault(shape, []).append(kept.in_slot[k])
    for shape, vias in by_shape.items():
        same = [_slot_holds(m, data, slots, wilds, k, shape) for k in range(len(slots))]
        m.add(sum_of(vias) <= sum_of([v for v in same if v is not None]))


def _slot_holds(
    m: cp_model.CpModel,
    data: TurnData,
    slots: tuple[MeldSlot, ...],
    wilds: WildsInSlots,
    k: int,
    shape: Shape,
) -> cp_model.IntVar | None:
    """A boolean true only if slot ``k`` holds exactly ``shape``'s naturals and nothing
    else (None: it cannot)."""
    slot = slots[k]
    places, group = shape
    if places is not None:
        if any(place not in slot.run_natural for place in places):
            return None
        same = m.new_bool_var("same")
        for place in places:
            m.add(same <= slot.run_natural[place])  # a natural there: no wild, no other card
        first = data.positions.index(places[0][0])
        last = data.positions.index(places[-1][0])
        outside = data.positions[first - 1 : first] if first else []
        outside += data.positions[last + 1 : last + 2]
        for p in outside:
            m.add(same + slot.occupied[p] <= 1)
        return same
    assert group is not None
    rank, suits = group
    if rank not in slot.group_rank or any((rank, s) not in slot.group_natural for s in suits):
        return None
    same = m.new_bool_var("same")
    for s in SUITS:
        if s in suits:
            m.add(same <= slot.group_natural[(rank, s)])
        elif (rank, s) in slot.group_natural:
            m.add(same + slot.group_natural[(rank, s)] <= 1)
    in_group = [wilds.in_group[(i, k)] for i, w in enumerate(data.wilds) if w.value.rank == rank]
    if rank in slot.group_free_wilds:
        in_group.append(slot.group_free_wilds[rank])
    if in_group:
        m.add(sum_of(in_group) <= data.wild_supply * (1 - same))
    return same


def build_releases(
    m: cp_model.CpModel,
    data: TurnData,
    kept: KeptMelds,
    hand_used: dict[Card, cp_model.IntVar],
    released: dict[int, cp_model.IntVar],
    slots: tuple[MeldSlot, ...],
    wilds: WildsInSlots,
) -> Releases:
    """R5: a wild is released by a natural of its value from the hand, in a slot that
    continues its meld; R7: in vatikan an unreleased wild stays in its meld's line."""
    from_meld = _build_from_meld(m, data, kept, slots)
    from_hand = _build_from_hand(m, data, hand_used, slots)
    for k, slot in enumerate(slots):
        for code in data.codes:
            claims = [v for (k2, _, c2), v in from_meld.items() if k2 == k and c2 == code]
            if (k, code) in from_hand:
                claims.append(from_hand[(k, code)])
            if claims:
                m.add(sum(claims) <= slot.naturals.get(code, 0))
    released_by = _build_released_by(m, data, released, slots, from_meld)
    for k, slot in enumerate(slots):
        _build_slot_releases(m, data, slot, k, from_hand, released_by, wilds)
    if data.ruleset.rearrangement.wild_lineage:
        # R7: an unreleased wild ends in a meld that continues its original meld.
        for (i, k), fixed in wilds.in_slot.items():
            w = data.wilds[i]
            cont = [o for (k2, M, _), o in from_meld.items() if k2 == k and M == w.meld]
            m.add(fixed <= sum(cont))
    return Releases(from_meld, from_hand, released_by)


def _build_from_meld(
    m: cp_model.CpModel, data: TurnData, kept: KeptMelds, slots: tuple[MeldSlot, ...]
) -> dict[tuple[int, int, Code], cp_model.IntVar]:
    """Naturals of meld M before that sit in slot k: its continuation (R5, R7), where a
    wild of M may be released or must stay in M's line."""
    needs_origin = {data.wilds[i].meld for i in data.releasable}
    if data.ruleset.rearrangement.wild_lineage:
        needs_origin |= {w.meld for w in data.wilds}
    from_meld: dict[tuple[int, int, Code], cp_model.IntVar] = {}
    for M in sorted(needs_origin):
        for code, n in data.meld_naturals[M].items():
            total = []
            for k in range(len(slots)):
                v = m.new_int_var(0, n, "o")
                from_meld[(k, M, code)] = v
                total.append(v)
            m.add(sum(total) + n * kept.keep[M] <= n)
    return from_meld


def _build_from_hand(
    m: cp_model.CpModel,
    data: TurnData,
    hand_used: dict[Card, cp_model.IntVar],
    slots: tuple[MeldSlot, ...],
) -> dict[tuple[int, Code], cp_model.IntVar]:
    """Naturals from the hand in slot k that may release wilds, within those played."""
    rel_codes = sorted({c for i in data.releasable for c in data.release_codes(data.wilds[i])})
    from_hand: dict[tuple[int, Code], cp_model.IntVar] = {}
    for code in rel_codes:
        hand_card = Card(code[0], code[1])
        cap = data.hand_count[hand_card]
        for k in range(len(slots)):
            from_hand[(k, code)] = m.new_int_var(0, cap, "h")
        m.add(sum(from_hand[(k, code)] for k in range(len(slots))) <= hand_used[hand_card])
    return from_hand


def _build_released_by(
    m: cp_model.CpModel,
    data: TurnData,
    released: dict[int, cp_model.IntVar],
    slots: tuple[MeldSlot, ...],
    from_meld: dict[tuple[int, int, Code], cp_model.IntVar],
) -> dict[tuple[int, int], cp_model.IntVar]:
    """Which slot releases each released wild: one that continues the wild's meld."""
    released_by: dict[tuple[int, int], cp_model.IntVar] = {}
    for i in data.releasable:
        w = data.wilds[i]
        here = []
        for k in range(len(slots)):
            v = m.new_bool_var("relk")
            cont = [o for (k2, M, _), o in from_meld.items() if k2 == k and M == w.meld]
            m.add(v <= sum(cont))
            released_by[(i, k)] = v
            here.append(v)
        m.add(sum(here) == released[i])
    return released_by


def _build_slot_releases(
    m: cp_model.CpModel,
    data: TurnData,
    slot: MeldSlot,
    k: int,
    from_hand: dict[tuple[int, Code], cp_model.IntVar],
    released_by: dict[tuple[int, int], cp_model.IntVar],
    wilds: WildsInSlots,
) -> None:
    """Slot ``k`` holds a hand natural of each wild it releases (R5), and is used only to
    release a wild or hold one in its meld's line (R7)."""
    by_rank: dict[int, list[cp_model.IntVar]] = {}
    by_code: dict[Code, list[cp_model.IntVar]] = {}
    for i in data.releasable:
        w = data.wilds[i]
        by_rank.setdefault(w.value.rank, []).append(released_by[(i, k)])
        if w.value.suit is not None:
            by_code.setdefault((w.value.rank, w.value.suit), []).append(released_by[(i, k)])
    for r, reqs in by_rank.items():
        cards = [v for (k2, c), v in from_hand.items() if k2 == k and c[0] == r]
        m.add(sum(reqs) <= sum(cards))
    for code, reqs in by_code.items():
        m.add(sum(reqs) <= from_hand.get((k, code), 0))
    # Any other meld needs no identity and is the pool's (``data._slot_kinds``).
    holds: list[cp_model.LinearExprT] = [released_by[(i, k)] for i in data.releasable]
    if data.ruleset.rearrangement.wild_lineage:
        holds += [wilds.in_slot[(i, k)] for i in range(len(data.wilds))]
    m.add(sum_of(holds) >= slot.active)


def _free_wilds(
    m: cp_model.CpModel, data: TurnData, pool: PoolVariables, slots: tuple[MeldSlot, ...]
) -> dict[Card, cp_model.IntVar]:
    """Per wild-capable card, how many copies are laid as free wilds (anywhere, any value):
    as many as the free wilds' places of the slots and the pool."""
    free_wilds: dict[Card, cp_model.IntVar] = {}
    for card in data.wild_capable:
        cap = data.table_count[card] + data.hand_count[card]
        free_wilds[card] = m.new_int_var(0, cap, "free")
    free_slots = [v for s in slots for v in s.run_free_wild.values()] + [
        v for s in slots for v in s.group_free_wilds.values()
    ]
    free_slots += [*pool.run_free_wilds.values(), *pool.group_free_wilds.values()]
    free_slots += pool.stand_ins.values()
    m.add(sum_of(free_wilds.values()) == sum_of(free_slots))
    return free_wilds


def _kept_cards(
    data: TurnData, kept: KeptMelds, links: LinkedMelds
) -> dict[Card, list[cp_model.LinearExprT]]:
    """Per card, its copies in each kept meld that holds its own cards (a linked meld's
    cards are the pool's)."""
    kept_by_card: dict[Card, list[cp_model.LinearExprT]] = {}
    for M, meld in enumerate(data.position.table):
        if not links.leaves_pool[M]:
            continue
        for c, n in Counter(tc.card for tc in meld).items():
            kept_by_card.setdefault(c, []).append(n * kept.held[M])
    return kept_by_card


def _wild_fates(
    data: TurnData, wilds: WildsInSlots, to_hand: dict[int, cp_model.IntVar]
) -> dict[Card, list[cp_model.LinearExprT]]:
    """Per card, where its table wilds go: the places they may take, or back to the hand."""
    wild_fates: dict[Card, list[cp_model.LinearExprT]] = {}
    for i, w in enumerate(data.wilds):
        fates = wild_fates.setdefault(w.card, [])
        fates += wilds.placed[i]
        if i in to_hand:
            fates.append(to_hand[i])
    return wild_fates


def build_conservation(
    m: cp_model.CpModel,
    data: TurnData,
    kept: KeptMelds,
    links: LinkedMelds,
    hand_used: dict[Card, cp_model.IntVar],
    to_hand: dict[int, cp_model.IntVar],
    pool: PoolVariables,
    slots: tuple[MeldSlot, ...],
    wilds: WildsInSlots,
) -> dict[Card, cp_model.IntVar]:
    """Per card code: everything on the table after = table before + hand cards played.
    Returns the free wilds of each card (a wild laid anywhere with any value)."""
    free_wilds = _free_wilds(m, data, pool, slots)
    fills_by_code: dict[Code, list[cp_model.LinearExprT]] = {}
    for (p, suit), v in pool.run_fill.items():
        fills_by_code.setdefault((rank_of_position(p), suit), []).append(v)
    kept_by_card = _kept_cards(data, kept, links)
    wild_fates = _wild_fates(data, wilds, to_hand)

    def pool_places(code: Code) -> list[cp_model.LinearExprT]:
        places = list(fills_by_code.get(code, ()))
        if code in pool.group_suits:
            places.append(pool.group_suits[code])
        return places

    cards = sorted(set(data.table_count) | set(data.hand_count))
    # A code's places hold its naturals and the wilds standing in for it.
    stand_ins = dict(pool.stand_ins)
    for card in cards:
        placed: list[cp_model.LinearExprT] = []
        stand_in: cp_model.IntVar | None = None
        if card.is_ordinary:
            code = (card.rank, card.suit)
            placed += pool_places(code)
            if slots:
                placed += [s.naturals[code] for s in slots if code in s.naturals]
            stand_in = stand_ins.pop(code, None)
        if card in free_wilds:
            placed.append(free_wilds[card])
        placed += wild_fates.get(card, ())
        placed += kept_by_card.get(card, ())
        hand = hand_used.get(card, 0)
        supply = data.table_count[card] + hand
        m.add(sum_of(placed) == (supply if stand_in is None else supply + stand_in))
    for code, var in stand_ins.items():  # codes with no natural in play
        m.add(sum_of(pool_places(code)) == var)
    return free_wilds
