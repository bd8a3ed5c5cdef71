"""Key 2 of a suggestion for the melds the player made new (``suggest``): how the turn
model can hold a proposed meld exactly, and how the table read back is dealt so that it
shows it.

The model has no identity for a pool meld: runs are counts per template (first and last
place, suit) with each place's fill counted per card; groups are counts per rank and size,
or per set of suits. So a proposed meld is counted where the pool could hold it: its
template, its naturals on its places, its wilds on its wild places (copies and melds
sharing a template or a place share its count), or where one slot holds exactly its cards.
The rebuild deals a place's cards among the runs through it in its own order, so
``deal_as_proposed`` trades cards of one place (or a group's cards of one rank) between
melds until the proposed meld shows; the caller re-checks the table with the referee.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ortools.sat.python import cp_model

from solver.core.cards import SUITS, Card, TableCard, WildValue
from solver.core.rulesets import Ruleset, rank_of_position
from solver.rearrangement.model import RunKey, TurnModel, sum_of
from solver.rummy.melds import MeldClassification, MeldKind, Reading, classify
from solver.rummy.position import Meld, Move
from solver.rummy.table_change import StandsKey, stands_key

Place = tuple[int, str | None]  # a run place's position and its natural's suit (None: a wild)


@dataclass(frozen=True)
class ProposedMeld:
    """A valid proposal meld as the model's shapes see it."""

    copies: int  # how many times the proposal holds it
    run: tuple[Place, ...]  # a run's places in order; () for a group
    run_suit: str | None  # a same-suit run's suit
    group_rank: int  # a group's rank (0 for a run)
    group_suits: tuple[str, ...]  # a group's natural suits (SUITS order)
    group_wilds: int  # a group's wilds
    # The card on each run place (``run``'s order), or a group's wild cards: key 2 tells
    # a mexe-mexe 2♥ from a 2♠, where the model's free wilds are anonymous.
    cards: tuple[Card, ...]
    wild_cards: Counter[Card]  # the cards standing as wilds (each needs its own card)


def proposed_melds(
    ruleset: Ruleset, melds: Counter[StandsKey], cards: dict[StandsKey, Meld]
) -> list[ProposedMeld]:
    """The proposal's valid melds (read one way), by key with their copies."""
    out: list[ProposedMeld] = []
    for key, copies in melds.items():
        classified = read_meld(ruleset, cards[key])
        if not classified.ok:
            continue
        reading = classified.reading
        if reading.kind is MeldKind.SEQUENCE:
            places = tuple(
                (p, None if wild and not _as_itself(tc, p) else tc.card.suit)
                for p, tc, wild in zip(
                    reading.positions, classified.cards, reading.wild, strict=True
                )
            )
            held = tuple(tc.card for tc in classified.cards)
            wild_cards = Counter(c for c, (_, s) in zip(held, places, strict=True) if s is None)
            out.append(ProposedMeld(copies, places, reading.suit, 0, (), 0, held, wild_cards))
        else:
            out.append(_group_shape(copies, classified.cards, reading))
    return out


def read_meld(ruleset: Ruleset, meld: Sequence[TableCard]) -> MeldClassification:
    """The meld's reading; a sequence written out of order is read in order (by the rank
    each card stands for, the ace low, then high): key 2 compares cards in any order. Key 2
    compares a wild's rank, not its suit, so a meld whose only fault is a wild's suit
    (``AH AS 2H=AD AD``: two A♦) is read with its wilds' suits left out (``2H=A``)."""
    classified = classify(ruleset, meld)
    if classified.ok:
        return classified
    unsuited = [_without_suit(ruleset, tc) for tc in meld]
    ways = [_by_rank(meld, 1), _by_rank(meld, 14)]
    ways += [unsuited, _by_rank(unsuited, 1), _by_rank(unsuited, 14)]
    for written in ways:
        again = classify(ruleset, written)
        if again.ok:
            return again
    return classified


def _by_rank(meld: Sequence[TableCard], ace: int) -> list[TableCard]:
    return sorted(meld, key=lambda tc: _stands_for(tc, ace))


def _without_suit(ruleset: Ruleset, tc: TableCard) -> TableCard:
    if tc.value is None or tc.value.suit is None or not ruleset.is_wild_card(tc.card):
        return tc
    return TableCard(tc.card, WildValue(tc.value.rank, None))


def _stands_for(tc: TableCard, ace: int) -> int:
    rank = tc.value.rank if tc.value is not None else tc.card.rank
    return ace if rank == 1 else rank


def _as_itself(tc: TableCard, position: int) -> bool:
    """A wild written standing for its own card in its own place (mexe-mexe ``2C=2C``):
    the model holds it as that natural."""
    value = tc.value
    own = tc.card.is_ordinary and tc.card.rank == (1 if position == 14 else position)
    return own and value is not None and value.suit in (None, tc.card.suit)


def _group_shape(copies: int, cards: Sequence[TableCard], reading: Reading) -> ProposedMeld:
    naturals = {tc.card.suit for tc, wild in zip(cards, reading.wild, strict=True) if not wild}
    suits = tuple(s for s in SUITS if s in naturals)
    wild_cards = Counter(tc.card for tc, wild in zip(cards, reading.wild, strict=True) if wild)
    held = tuple(tc.card for tc in cards)
    return ProposedMeld(copies, (), None, reading.rank, suits, sum(reading.wild), held, wild_cards)


def proposed_melds_held(tm: TurnModel, melds: Sequence[ProposedMeld]) -> list[cp_model.IntVar]:
    """Per proposed meld, a count of it laid by the pool or by slots holding exactly it."""
    uses = _Uses()
    counts: list[cp_model.IntVar] = []
    slots = tm.variables.slots
    for meld in melds:
        in_pool = tm.model.new_int_var(0, meld.copies, "proposal_pooled")
        if meld.run:
            fits = _pool_run(tm, meld, in_pool, uses)
            in_slots = [_slot_run(tm, k, meld) for k in range(len(slots))]
        else:
            fits = _pool_group(tm, meld, in_pool, uses)
            in_slots = [_slot_group(tm, j, meld) for j in range(len(slots))]
        if not fits:
            tm.model.add(in_pool == 0)
        if not in_slots:
            counts.append(in_pool)  # no slot: held only by the pool
            continue
        count = tm.model.new_int_var(0, meld.copies, "proposal_held")
        tm.model.add(count <= in_pool + sum_of(in_slots))
        counts.append(count)
    uses.bound(tm)
    _bound_wild_cards(tm, melds, counts)
    return counts


def _bound_wild_cards(
    tm: TurnModel, melds: Sequence[ProposedMeld], counts: Sequence[cp_model.IntVar]
) -> None:
    """The melds counted need, per wild card, no more of it acting as a wild than the
    table after holds: the pool and the slots count free wilds per place but not which
    card (a mexe-mexe 2♥ or 2♠), so without this two proposed melds could each count the
    one 2♥ (a table wild keeping its value is counted with its own card, ``_wild_terms``)."""
    need: dict[Card, list[cp_model.LinearExprT]] = {}
    for meld, count in zip(melds, counts, strict=True):
        for card, n in meld.wild_cards.items():
            need.setdefault(card, []).append(n * count)
    variables = tm.variables
    for card, terms in need.items():
        supply: list[cp_model.LinearExprT] = []
        if card in variables.free_wilds:
            supply.append(variables.free_wilds[card])
        for i, w in enumerate(tm.data.wilds):
            if w.card == card:
                supply += variables.wilds_in_slots.placed.get(i, [])
        tm.model.add(sum_of(terms) <= sum_of(supply))


class _Uses:
    """The proposed melds' pool counts per shared template and place, bounded together,
    and the sums of wilds per run place and group rank, made once."""

    def __init__(self) -> None:
        self.by_bound: dict[int, tuple[cp_model.LinearExprT, list[cp_model.LinearExprT]]] = {}
        self.sums: dict[object, cp_model.LinearExprT] = {}

    def sum(self, key: object, terms: list[cp_model.LinearExprT]) -> cp_model.LinearExprT:
        if key not in self.sums:
            self.sums[key] = sum_of(terms)
        return self.sums[key]

    def add(self, bound: cp_model.LinearExprT, use: cp_model.LinearExprT) -> None:
        """``use`` counts against ``bound`` once: a meld reaching one sum by two ways (a
        place's wilds of any card and of its own card, when only free wilds reach it; a
        place's fill that is its one run's count) uses it once."""
        users = self.by_bound.setdefault(id(bound), (bound, []))[1]
        if not any(user is use for user in users):
            users.append(use)

    def bound(self, tm: TurnModel) -> None:
        for bound, users in self.by_bound.values():
            tm.model.add(sum_of(users) <= bound)


def _pool_run(tm: TurnModel, meld: ProposedMeld, in_pool: cp_model.IntVar, uses: _Uses) -> bool:
    """The pool's terms for a proposed run: its template, each natural's fill, each wild
    place's wilds (free ones and table wilds keeping that value there)."""
    pool = tm.variables.pool
    suit = meld.run_suit if tm.data.same_suit else None
    pieces = _pieces(tm, meld.run[0][0], meld.run[-1][0], suit)
    if not pieces or any(piece not in pool.runs for piece in pieces):
        return False
    bounds: list[cp_model.LinearExprT] = [pool.runs[piece] for piece in pieces]
    for (p, natural), card in zip(meld.run, meld.cards, strict=True):
        if natural is not None:
            fill = _natural_terms(tm, p, natural, suit, card, uses)
            if fill is None:
                return False
            bounds.append(fill)
        else:
            wilds = _run_wilds(tm, p, suit, uses)
            own = _run_wilds(tm, p, suit, uses, card)
            if wilds is None or own is None:
                return False
            bounds += [wilds, own]
    for bound in bounds:
        uses.add(bound, in_pool)
    return True


def _natural_terms(
    tm: TurnModel, p: int, natural: str, suit: str | None, card: Card, uses: _Uses
) -> cp_model.LinearExprT | None:
    """A natural on run place ``p``: its fill, and where the card may be wild (a mexe-mexe
    2 standing for itself) a table wild of that very card keeping that value there: the
    table before's ``2H=2H`` is a wild to the model, and the same card to key 2."""
    pool = tm.variables.pool
    fill = pool.run_fill.get((p, natural))
    own: list[cp_model.LinearExprT] = [
        var
        for (i, p2, s2), var in pool.run_table_wilds.items()
        if p2 == p and s2 == suit and tm.data.wilds[i].card == card
    ]
    # A kept linked run is one of the pool's runs, with its naturals: not the proposed run
    # (a new meld), so its natural here is not the proposed run's.
    held = tm.variables.kept.held
    linked = [
        held[m] for m, (a, b, s) in tm.variables.links.runs.items() if a <= p <= b and s == natural
    ]
    if not own and not linked:
        return fill
    if fill is None and not own:
        return None
    terms = [fill, *own] if fill is not None else own
    key = ("natural", p, natural, card)
    if key not in uses.sums:
        uses.sums[key] = sum_of(terms) - sum_of(linked)
    return uses.sums[key]


def _pieces(tm: TurnModel, first: int, last: int, suit: str | None) -> list[RunKey]:
    """The pool templates that lay the run from ``first`` to ``last``: itself, or where new
    melds are unlimited and the pool's runs are at most ``2 * min - 1`` long (rummikub),
    pieces of that length laid end to end (the rebuild joins them, ``_join_runs``)."""
    whole: RunKey = (first, last, suit)
    if whole in tm.variables.pool.runs or tm.data.options.max_new_melds is not None:
        return [whole]
    shortest = tm.data.ruleset.melds.min_sequence
    longest = 2 * shortest - 1
    out: list[RunKey] = []
    start = first
    while last - start + 1 > longest:
        size = min(longest, last - start + 1 - shortest)
        out.append((start, start + size - 1, suit))
        start += size
    out.append((start, last, suit))
    return out


def _run_wilds(
    tm: TurnModel, p: int, suit: str | None, uses: _Uses, card: Card | None = None
) -> cp_model.LinearExprT | None:
    """The wilds on run place ``p``: free ones, table wilds keeping that value there (only
    those of ``card`` when given) and the lone free wild standing in for its card."""
    pool = tm.variables.pool
    wilds = tm.data.wilds
    terms: list[cp_model.LinearExprT] = [
        var
        for (i, p2, s2), var in pool.run_table_wilds.items()
        if p2 == p and s2 == suit and (card is None or wilds[i].card == card)
    ]
    free = pool.run_free_wilds.get((p, suit))
    if free is not None:
        terms.append(free)
    if suit is not None:
        # The lone free wild, where it is counted as a stand-in for this place's card.
        stand_in = pool.stand_ins.get((rank_of_position(p), suit))
        if stand_in is not None:
            terms.append(stand_in)
    return uses.sum(("run", p, suit, card), terms) if terms else None


def _pool_group(tm: TurnModel, meld: ProposedMeld, in_pool: cp_model.IntVar, uses: _Uses) -> bool:
    """The pool's terms for a proposed group: its suit set's count, or its size's count
    with each natural suit's and the wilds' counts in groups of its rank."""
    pool = tm.variables.pool
    rank = meld.group_rank
    if not meld.group_wilds and (rank, meld.group_suits) in pool.group_sets:
        uses.add(pool.group_sets[(rank, meld.group_suits)], in_pool)
        return True
    if meld.group_wilds and tm.data.stand_in:
        return _pool_group_stand_in(tm, meld, in_pool, uses)
    size = len(meld.group_suits) + meld.group_wilds
    if (rank, size) not in pool.groups:
        return False
    uses.add(pool.groups[(rank, size)], in_pool)
    for s in meld.group_suits:
        if (rank, s) not in pool.group_suits:
            return False
        uses.add(pool.group_suits[(rank, s)], in_pool)
    if meld.group_wilds:
        wilds = _group_wilds(tm, rank, uses)
        if wilds is None:
            return False
        uses.add(wilds, in_pool * meld.group_wilds)
        for card, n in meld.wild_cards.items():
            own = _group_wilds(tm, rank, uses, card)
            if own is None:
                return False
            if own is not wilds:  # only free wilds reach the rank: bounded above already
                uses.add(own, in_pool * n)
    return True


def _pool_group_stand_in(
    tm: TurnModel, meld: ProposedMeld, in_pool: cp_model.IntVar, uses: _Uses
) -> bool:
    """A proposed group with the one wild in play (``pool._build_stand_ins``): the pool
    counts groups per set of suits, the wild standing in for a suit the group lacks. Any
    such suit will do (key 2 does not compare a wild's suit): the group is counted in the
    set of its naturals and that suit, as far as wilds stand in for that suit's card."""
    pool = tm.variables.pool
    rank = meld.group_rank
    if meld.group_wilds != 1:
        return False
    ways: list[cp_model.IntVar] = []
    for x in SUITS:
        suits = tuple(s for s in SUITS if s in meld.group_suits or s == x)
        if x in meld.group_suits or (rank, suits) not in pool.group_sets:
            continue
        if (rank, x) not in pool.stand_ins:
            continue
        way = tm.model.new_int_var(0, meld.copies, "proposal_stand_in")
        uses.add(pool.group_sets[(rank, suits)], way)
        uses.add(pool.stand_ins[(rank, x)], way)
        ways.append(way)
    if not ways:
        return False
    tm.model.add(in_pool <= sum_of(ways))
    return True


def _group_wilds(
    tm: TurnModel, rank: int, uses: _Uses, card: Card | None = None
) -> cp_model.LinearExprT | None:
    """The wilds in pool groups of ``rank``: free ones and table wilds of that value (only
    those of ``card`` when given)."""
    pool = tm.variables.pool
    wilds = tm.data.wilds
    terms: list[cp_model.LinearExprT] = [
        var
        for i, var in pool.group_table_wilds.items()
        if wilds[i].value.rank == rank and (card is None or wilds[i].card == card)
    ]
    if rank in pool.group_free_wilds:
        terms.append(pool.group_free_wilds[rank])
    return uses.sum(("group", rank, card), terms) if terms else None


def _slot_run(tm: TurnModel, k: int, meld: ProposedMeld) -> cp_model.IntVar:
    """A literal that may be 1 only where slot ``k`` is exactly this run, each wild the
    proposal's card (a free wild, or a table wild of that card keeping its value)."""
    m = tm.model
    slot = tm.variables.slots[k]
    exact = m.new_bool_var("slot_is_proposal")
    places = {p: (natural, card) for (p, natural), card in zip(meld.run, meld.cards, strict=True)}
    in_run = tm.variables.wilds_in_slots.in_run
    wilds = tm.data.wilds
    # (Not ``slot.active``: a run is an active slot, ``slots._build_slot``.)
    literals: list[cp_model.LinearExprT] = [slot.is_run]
    if meld.run_suit is not None and slot.run_suit:
        literals.append(slot.run_suit[meld.run_suit])
    for p, occupied in slot.occupied.items():
        if p not in places:
            # A slot's run is one unbroken line of places (``slots._build_slot_run``) and
            # the proposed run's places are one too: a place beside it left empty leaves
            # every place beyond it empty, so only those two are written.
            if p + 1 in places or p - 1 in places:
                m.add(exact <= 1 - occupied)
            continue
        natural, card = places[p]
        own = [
            v for (i, k2, p2), v in in_run.items() if (k2, p2) == (k, p) and wilds[i].card == card
        ]
        holder: cp_model.LinearExprT | None
        if natural is None:
            holder = slot.run_wild.get(p)
            free = slot.run_free_wild.get(p)
            mine = [free, *own] if free is not None else own  # this card, not another wild
            if not mine:
                m.add(exact == 0)
                return exact
            literals.append(sum_of(mine))
        else:
            # The natural, or the table's `2H=2H` (a wild to the model) of this very card.
            found = slot.run_natural.get((p, natural))
            terms = [found, *own] if found is not None else own
            holder = sum_of(terms) if terms else None
        if holder is None:
            m.add(exact == 0)
            return exact
        literals.append(holder)
    if not slot.occupied or len(places) > len(slot.occupied):
        m.add(exact == 0)
    for literal in literals:
        m.add(exact <= literal)
    return exact


def _slot_group(tm: TurnModel, j: int, meld: ProposedMeld) -> cp_model.IntVar:
    """A literal that may be 1 only where slot ``j`` is exactly this group."""
    m = tm.model
    slot = tm.variables.slots[j]
    rank = meld.group_rank
    exact = m.new_bool_var("slot_is_proposal")
    if rank not in slot.group_rank:
        m.add(exact == 0)
        return exact
    m.add(exact <= slot.is_group)
    m.add(exact <= slot.group_rank[rank])
    for s in SUITS:
        natural = slot.group_natural.get((rank, s))
        if s in meld.group_suits:
            if natural is None:
                m.add(exact == 0)
                return exact
            m.add(exact <= natural)
        elif natural is not None:
            m.add(exact <= 1 - natural)
    wilds: list[cp_model.LinearExprT] = [
        v for (_, k), v in tm.variables.wilds_in_slots.in_group.items() if k == j
    ]
    if rank in slot.group_free_wilds:
        wilds.append(slot.group_free_wilds[rank])
    for (i, k), v in tm.variables.wilds_in_slots.in_group.items():
        if k == j and tm.data.wilds[i].card not in meld.wild_cards:
            m.add(exact <= 1 - v)  # a table wild of another card than the proposal's
    held = sum_of(wilds)
    # Exactly the meld's wilds when the literal holds (a group has at most 4 cards).
    m.add(held - meld.group_wilds <= 4 * (1 - exact))
    m.add(meld.group_wilds - held <= 4 * (1 - exact))
    return exact


# ------------------------------------------------------------------------------------------
# Dealing the table read back as proposed


def deal_as_proposed(
    move: Move, proposal: Move, ruleset: Ruleset, before: Counter[StandsKey]
) -> Move:
    """The table with each proposed meld it lacks dealt out where a meld of the same
    shape (a run through the same places, a group of the same rank and size) can take
    its cards from melds of that shape: a trade of one place's card between two runs,
    or of two cards of one rank between two groups, keeps every meld's shape. Of the
    melds a trade could make the proposed one, the trade kept is the one whose table is
    all valid melds and nearest the proposal (keys 2 and 3), and only if nearer than the
    table before it; the caller re-checks the table with the referee."""
    melds = [list(meld) for meld in move.table]
    to_hand = list(move.to_hand)
    wanted_keys = Counter(_key(meld) for meld in proposal.table)
    # Taking a card from a proposed meld costs key 2, from a meld before key 3.
    protected = {key: 1 for key in before} | {key: 2 for key in wanted_keys}
    # The keys of the table as dealt so far, worked out again only where a split or a
    # trade changed it (most proposed melds are already there: a lookup each).
    present = Counter(_key(meld) for meld in melds)
    copies: Counter[StandsKey] = Counter()  # of each proposed meld, this one and those before
    for wanted in proposal.table:
        copies[_key(wanted)] += 1
        if present[_key(wanted)] >= copies[_key(wanted)]:
            continue  # a proposed meld twice is dealt twice (carrossel seed 553109)
        shape = _shape(ruleset, wanted)
        if shape is None:
            continue
        if shape[0] == "run" and _split_off(ruleset, melds, list(wanted)):
            present = Counter(_key(meld) for meld in melds)
            continue
        best = _nearness(melds, wanted_keys, before)
        base, base_hand = melds, to_hand  # every trial starts from the same table
        targets = [i for i, meld in enumerate(base) if _shape(ruleset, meld) == shape]
        for target in targets:
            trial = [list(meld) for meld in base]
            _trade_into(ruleset, trial, target, list(wanted), shape, protected)
            back = list(base_hand)
            _trade_wilds(ruleset, trial, target, _in_order(ruleset, wanted), back, protected)
            if _key(trial[target]) != _key(wanted):
                continue
            if not all(classify(ruleset, meld).ok for meld in trial):
                continue
            score = _nearness(trial, wanted_keys, before)
            if score > best:
                best, melds, to_hand = score, trial, back
        if melds is not base:
            present = Counter(_key(meld) for meld in melds)
    table = tuple(tuple(meld) for meld in melds)
    return Move(table, tuple(to_hand), move.knock, move.discard)


def _nearness(
    melds: Sequence[Sequence[TableCard]], wanted: Counter[StandsKey], before: Counter[StandsKey]
) -> tuple[int, int]:
    """Keys 2 and 3 of a table: the proposed melds it holds, less the melds before it
    lacks."""
    present = Counter(_key(meld) for meld in melds)
    kept = sum((present & wanted).values())
    changed = sum((before - present).values())
    return kept, -changed


def _sources(
    melds: list[list[TableCard]], protected: dict[StandsKey, int]
) -> list[tuple[int, list[TableCard]]]:
    """The melds to take a card from: those that are no meld before and no proposed meld
    first, then melds before (a trade changes one: key 3), proposed melds last (key 2)."""
    return sorted(enumerate(melds), key=lambda im: protected.get(_key(im[1]), 0))


def _in_order(ruleset: Ruleset, meld: Sequence[TableCard]) -> list[TableCard]:
    """The meld's cards in the order the table writes them (a run ascending)."""
    return list(read_meld(ruleset, meld).cards)


def _trade_wilds(
    ruleset: Ruleset,
    melds: list[list[TableCard]],
    target: int,
    wanted: list[TableCard],
    to_hand: list[Card],
    protected: dict[StandsKey, int],
) -> None:
    """Trade wild-capable cards, each taking the value of the place it goes to, so that
    ``melds[target]`` holds the wanted ones: the model counts wilds, not which card (the
    2s of mexe-mexe), and a 2 on its own place may trade with a wild 2 elsewhere or one
    taken back to the hand."""
    here = melds[target]
    if len(here) != len(wanted):
        return
    wild = ruleset.is_wild_card
    if _shape(ruleset, here) is not None and _shape(ruleset, here)[0] == "run":  # type: ignore[index]
        pairs = [(k, want) for k, want in enumerate(wanted)]
    else:
        # A group's order means nothing: each wanted wild card missing takes the place of
        # a wild card of the group that is not wanted.
        have = Counter(tc.card for tc in here)
        missing = [w for w in wanted if wild(w.card) and have[w.card] == 0]
        wanted_cards = {w.card for w in wanted}
        spares = [k for k, tc in enumerate(here) if wild(tc.card) and tc.card not in wanted_cards]
        pairs = list(zip(spares, missing, strict=False))
        for want in missing[len(spares) :]:
            _trade_for_natural(melds, target, want, wanted)
    for k, want in pairs:
        mine = here[k]
        if mine.card == want.card or not wild(mine.card) or not wild(want.card):
            continue
        _trade_one(melds, target, k, want, to_hand, protected)


def _trade_for_natural(
    melds: list[list[TableCard]], target: int, want: TableCard, wanted: list[TableCard]
) -> None:
    """Put the wanted wild ``want`` in group ``melds[target]`` in place of a natural the
    proposal's group lacks, where ``want``'s card stands for that very natural in another
    meld: the two trade places (the model counts the one wild in play as a stand-in for a
    card code, ``pool._build_stand_ins``, so the rebuild may lay either one)."""
    here = melds[target]
    codes = {(w.card.rank, w.card.suit) for w in wanted if w.value is None}
    for k, tc in enumerate(here):
        if tc.value is not None or (tc.card.rank, tc.card.suit) in codes:
            continue
        for i, meld in enumerate(melds):
            at = next(
                (
                    n
                    for n, other in enumerate(meld)
                    if other.card == want.card
                    and other.value is not None
                    and other.value.rank == tc.card.rank
                    and other.value.suit in (None, tc.card.suit)
                ),
                None,
            )
            if i == target or at is None:
                continue
            here[k] = TableCard(want.card, WildValue(tc.card.rank, None))
            meld[at] = TableCard(tc.card, None)
            return


def _trade_one(
    melds: list[list[TableCard]],
    target: int,
    k: int,
    want: TableCard,
    to_hand: list[Card],
    protected: dict[StandsKey, int],
) -> None:
    """Put wild-capable ``want`` at place ``k`` of ``melds[target]``, its card taking the
    value ``want``'s card had elsewhere (or going to the hand in its stead). A later place
    of the same run first (``2D=6H 2S=7H`` dealt for ``2S=6H 2D=7H``: the places before
    ``k`` are settled), then the hand, then other melds."""
    here = melds[target]
    mine = here[k]
    later = next((n for n in range(k + 1, len(here)) if here[n].card == want.card), None)
    if later is not None:
        other = here[later]
        here[k] = _standing(want.card, mine.value or want.value)
        here[later] = _moved(mine, other)
        return
    if want.card in to_hand:
        to_hand[to_hand.index(want.card)] = mine.card
        here[k] = _standing(want.card, mine.value or want.value)
        return
    for i, meld in _sources(melds, protected):
        # A 2 standing for another rank before one standing as itself (which may be a
        # table wild keeping its value there, R5).
        spots = [n for n, tc in enumerate(meld) if tc.card == want.card]
        spots.sort(key=lambda n: _standing(meld[n].card, meld[n].value).value is None)
        if i == target or not spots:
            continue
        at = spots[0]
        other = meld[at]
        here[k] = _standing(want.card, mine.value or want.value)
        meld[at] = _moved(mine, other)
        return


def _split_off(ruleset: Ruleset, melds: list[list[TableCard]], wanted: list[TableCard]) -> bool:
    """Split a longer run into ``wanted`` and the run left at either end (the rebuild joins
    runs laid end to end where new melds are unlimited, rummikub)."""
    want = _key(wanted)
    size = len(wanted)
    shortest = ruleset.melds.min_sequence
    for i, meld in enumerate(melds):
        if len(meld) < size + shortest or _shape(ruleset, meld) is None:
            continue
        for head, tail in ((meld[:size], meld[size:]), (meld[-size:], meld[:-size])):
            if _key(head) == want and _shape(ruleset, tail) is not None:
                melds[i : i + 1] = [list(head), list(tail)]
                return True
    return False


def _key(meld: Sequence[TableCard]) -> StandsKey:
    return stands_key((tc.card, tc.value) for tc in meld)


def _shape(ruleset: Ruleset, meld: Sequence[TableCard]) -> tuple[object, ...] | None:
    """A run's positions or a group's rank and size (None: not one valid meld)."""
    classified = classify(ruleset, meld)
    if not classified.ok:
        return None
    reading = classified.reading
    if reading.kind is MeldKind.SEQUENCE:
        return ("run", reading.positions)
    return ("group", reading.rank, len(meld))


def _stand(ruleset: Ruleset, meld: Sequence[TableCard]) -> list[TableCard]:
    """The meld's cards with every wild's value written out, in the meld's order."""
    classified = classify(ruleset, meld)
    return list(classified.normalized)


def _trade_into(
    ruleset: Ruleset,
    melds: list[list[TableCard]],
    target: int,
    wanted: list[TableCard],
    shape: tuple[object, ...],
    protected: dict[StandsKey, int],
) -> None:
    """Trade cards of the same standing (one run place, or one group rank) from melds
    of the same shape into ``melds[target]`` until it holds ``wanted``'s cards."""
    want = _stand(ruleset, wanted)
    for index, card in enumerate(want):
        here = _stand(ruleset, melds[target])
        if shape[0] == "run":
            if _same(here[index], card):
                continue
            _swap_place(ruleset, melds, target, index, card, shape, protected)
            spot: int | None = index
        else:
            # As many of this card as the proposed group holds so far (two `2D=A`s are two).
            needed = sum(_same(w, card) for w in want[: index + 1])
            if sum(_same(tc, card) for tc in here) >= needed:
                continue
            _swap_group(ruleset, melds, target, card, want, shape, protected)
            spot = next(
                (k for k, tc in enumerate(here) if tc.value is not None and tc not in want), None
            )
        done = _stand(ruleset, melds[target])
        if spot is not None and card.value is None and not any(_same(tc, card) for tc in done):
            _trade_stand_in(ruleset, melds, target, spot, card, protected)


def _trade_stand_in(
    ruleset: Ruleset,
    melds: list[list[TableCard]],
    target: int,
    spot: int,
    card: TableCard,
    protected: dict[StandsKey, int],
) -> None:
    """Put the natural ``card`` where ``melds[target]`` holds a wild standing for it, and
    that wild in the natural's place elsewhere, standing for it there: the model counts a
    lone wild as a stand-in for its card, so the rebuild may have laid either one."""
    wild = melds[target][spot]
    if wild.value is None:
        return
    for i, meld in _sources(melds, protected):
        at = next(
            (n for n, tc in enumerate(meld) if tc.card == card.card and tc.value is None), None
        )
        if i == target or at is None:
            continue
        classified = classify(ruleset, meld)
        suited = classified.ok and classified.reading.kind is MeldKind.SEQUENCE
        value = WildValue(card.card.rank, card.card.suit if suited else None)
        meld[at] = TableCard(wild.card, value)
        melds[target][spot] = TableCard(card.card, None)
        return


def _kind(tc: TableCard) -> tuple[Card, bool]:
    return tc.card, tc.value is None


def _same(a: TableCard, b: TableCard) -> bool:
    return a.card == b.card and (a.value is None) == (b.value is None)


def _swap_place(
    ruleset: Ruleset,
    melds: list[list[TableCard]],
    target: int,
    index: int,
    card: TableCard,
    shape: tuple[object, ...],
    protected: dict[StandsKey, int],
) -> None:
    """Bring ``card`` to place ``index`` of ``melds[target]`` from a run through the same
    position: the very card first; for a wanted wild, else any wild there (its card is
    then traded by ``_trade_wilds``). Each card takes the value of the place it goes to
    (runs of two suits share a position: mexe-mexe's ``2S=2S`` becomes ``2S=2D``)."""
    position = shape[1][index]  # type: ignore[index]
    runs: list[tuple[list[TableCard], int, list[TableCard]]] = []
    for i, meld in _sources(melds, protected):
        if i == target:
            continue
        classified = classify(ruleset, meld)
        if not classified.ok or classified.reading.kind is not MeldKind.SEQUENCE:
            continue
        positions = classified.reading.positions
        if position in positions:
            runs.append((meld, positions.index(position), list(classified.normalized)))
    here = melds[target]
    place = _stand(ruleset, here)[index]
    exact = [(meld, at, stood) for meld, at, stood in runs if _same(stood[at], card)]
    wild = [
        (meld, at, stood)
        for meld, at, stood in runs
        if card.value is not None and stood[at].value is not None
    ]
    wild_card = ruleset.is_wild_card
    for meld, at, stood in [*exact, *wild][:1]:
        mine = here[index]
        theirs = meld[at]
        # A natural stays one (runs of mixed suits share a place: carrossel, vatikan).
        here[index] = _moved(theirs, place) if wild_card(theirs.card) else theirs
        meld[at] = _moved(mine, stood[at]) if wild_card(mine.card) else mine


def _moved(tc: TableCard, place: TableCard) -> TableCard:
    """Wild-capable ``tc``'s card where ``place`` stood (as the table reads it, a wild's
    value written): itself on its own card's place, else standing for the place's card."""
    return _standing(tc.card, place.value or WildValue(place.card.rank, place.card.suit))


def _standing(card: Card, value: WildValue | None) -> TableCard:
    """``card`` standing for ``value``, written bare where that is its own card (a mexe-mexe
    2 on its own place is that natural, and only a natural releases a wild, R5)."""
    own = value is not None and value.rank == card.rank and value.suit in (None, card.suit)
    return TableCard(card, None if own and card.is_ordinary else value)


def _swap_group(
    ruleset: Ruleset,
    melds: list[list[TableCard]],
    target: int,
    card: TableCard,
    want: list[TableCard],
    shape: tuple[object, ...],
    protected: dict[StandsKey, int],
) -> None:
    here = _stand(ruleset, melds[target])
    # A card of the group beyond the proposed group's copies of it.
    over = Counter(map(_kind, here)) - Counter(map(_kind, want))
    spare = next((k for k, tc in enumerate(here) if over[_kind(tc)] > 0), None)
    if spare is None:
        return
    for i, meld in _sources(melds, protected):
        if i == target or _shape(ruleset, meld) is None:
            continue
        if _shape(ruleset, meld)[1:2] != shape[1:2]:  # type: ignore[index]
            continue
        stood = _stand(ruleset, meld)
        at = next((k for k, tc in enumerate(stood) if _same(tc, card)), None)
        if at is not None:
            meld[at], melds[target][spare] = melds[target][spare], meld[at]
            return
