"""R5's existence question checked by brute force over physical cards (hypothesis).

``solver.rearrangement.wilds`` decides "is there an assignment of the interchangeable physical
cards under
which every wild rule holds?" by a search over wild fates with link capacities. Here the
same question is answered the slow way: every assignment of physical table cards and hand
copies to the slots of the after table is enumerated, continuations are read off it, and
every set of released wilds with every matching of releasing hand cards is tried. The value
rule of one wild in one slot (``WildAccounting.value_fits``) is shared; the combinatorics are not.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from solver.core.cards import Card, TableCard
from solver.rearrangement.wilds import AfterMeld, BeforeWild, WildAccounting, account_wilds
from solver.rummy.conservation import count_flow
from solver.rummy.melds import classify
from solver.rummy.position import Move, Position, parse_move, parse_position
from tests.test_validate_properties import build

Slot = tuple[int, int]
Source = tuple[str, int, int]  # ("table", meld, index) or ("hand", n, 0)


def assignments(position: Position, move: Move) -> Iterator[dict[Slot, Source]]:
    """Every way of filling the after slots from table cards (each used once) and the hand."""
    before: dict[Card, list[Source]] = {}
    for i, meld in enumerate(position.table):
        for k, tc in enumerate(meld):
            before.setdefault(tc.card, []).append(("table", i, k))
    after: dict[Card, list[Slot]] = {}
    for j, meld in enumerate(move.table):
        for k, tc in enumerate(meld):
            after.setdefault(tc.card, []).append((j, k))
    per_code: list[list[dict[Slot, Source]]] = []
    for card, slots in after.items():
        sources = before.get(card, [])
        options = []
        for chosen in itertools.permutations(slots, len(sources)):
            fill: dict[Slot, Source] = dict(zip(chosen, sources, strict=True))
            for n, slot in enumerate(s for s in slots if s not in fill):
                fill[slot] = ("hand", n, 0)
            options.append(fill)
        per_code.append(options)
    for combo in itertools.product(*per_code):
        merged: dict[Slot, Source] = {}
        for part in combo:
            merged.update(part)
        yield merged


def brute_force_ok(position: Position, move: Move, after: list[AfterMeld]) -> bool:
    acc = WildAccounting(position, after, count_flow(position, move))
    ruleset = position.ruleset
    before_wild = {(w.meld, w.index): w for w in acc.wilds}
    before_natural = {
        (i, k)
        for i, verdict in enumerate(position.readings)
        for k, wild in enumerate(verdict.reading.wild)
        if not wild
    }
    for fill in assignments(position, move):
        links = {
            (src[1], j)
            for (j, k), src in fill.items()
            if src[0] == "table"
            and (src[1], src[2]) in before_natural
            and not after[j].is_wild(ruleset, k)
        }
        dest = {(src[1], src[2]): slot for slot, src in fill.items() if src[0] == "table"}
        wilds = list(before_wild.values())
        for released in itertools.product((False, True), repeat=len(wilds)):
            if _holds(acc, after, wilds, released, dest, links, fill):
                return True
    return False


def _holds(
    acc: WildAccounting,
    after: list[AfterMeld],
    wilds: list[BeforeWild],
    released: tuple[bool, ...],
    dest: dict[tuple[int, int], Slot],
    links: set[tuple[int, int]],
    fill: dict[Slot, Source],
) -> bool:
    claims: Counter[tuple[int, str]] = Counter()
    need_release: list[BeforeWild] = []
    for wild, free in zip(wilds, released, strict=True):
        slot = dest[(wild.meld, wild.index)]
        if after[slot[0]].reading is None:
            continue
        if free:
            need_release.append(wild)
            continue
        fits, carried = acc.value_fits(wild, slot)
        if not fits:
            return False
        if acc.ruleset.rearrangement.wild_lineage and (wild.meld, slot[0]) not in links:
            return False
        if carried is not None:
            if carried[1] in acc.group_suits[carried[0]]:
                return False
            claims[carried] += 1
    if any(n > 1 for n in claims.values()):
        return False
    releasers = [
        slot
        for slot, src in fill.items()
        if src[0] == "hand"
        and after[slot[0]].reading is not None
        and not after[slot[0]].is_wild(acc.ruleset, slot[1])
    ]
    for chosen in itertools.permutations(releasers, len(need_release)):
        pairs = zip(chosen, need_release, strict=True)
        if all(_releases(after, slot, wild, links) for slot, wild in pairs):
            return True
    return False


def _releases(
    after: list[AfterMeld], slot: Slot, wild: BeforeWild, links: set[tuple[int, int]]
) -> bool:
    card = after[slot[0]].cards[slot[1]].card
    value = wild.value
    return (
        card.is_ordinary
        and card.rank == value.rank
        and (value.suit is None or card.suit == value.suit)
        and (wild.meld, slot[0]) in links
    )


def mutate(rng: random.Random, position: Position, move: Move) -> Move:
    """Move one card (a wild, mostly) to a random place, keeping every meld valid if it can."""
    ruleset = position.ruleset
    for _ in range(40):
        table = [list(m) for m in move.table]
        slots = [(j, k) for j, m in enumerate(table) for k in range(len(m))]
        wilds = [s for s in slots if ruleset.is_wild_card(table[s[0]][s[1]].card)]
        j, k = rng.choice(wilds if wilds and rng.random() < 0.8 else slots)
        card = table[j].pop(k)
        target = rng.randrange(len(table))
        table[target].insert(rng.randint(0, len(table[target])), TableCard(card.card))
        table = [m for m in table if m]
        if all(classify(ruleset, m).ok for m in table):
            return Move(tuple(tuple(m) for m in table))
    return move


@settings(max_examples=150, deadline=None)
@given(st.randoms(use_true_random=False))
def test_wild_search_matches_brute_force(rng: random.Random) -> None:
    for _ in range(20):
        b = build(rng)
        if any("=" in code for meld in b.before for code in meld):
            break
    position = parse_position(b.ruleset.id, b.players, b.before, b.hand, b.turn)
    move = parse_move(position, b.after)
    for _ in range(rng.randint(0, 2)):
        move = mutate(rng, position, move)
    readings = [classify(position.ruleset, meld) for meld in move.table]
    if any(v.ambiguous for v in readings):
        return
    after = [
        AfterMeld(meld, v.readings[0] if v.ok else None)
        for meld, v in zip(move.table, readings, strict=True)
    ]
    size = sum(len(m) for m in move.table)
    if size > 16:
        return
    fast = account_wilds(position, after, count_flow(position, move)).ok
    assert fast == brute_force_ok(position, move, after), (b, move)
