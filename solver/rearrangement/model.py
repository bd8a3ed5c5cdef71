"""The CP-SAT model of one rearrangement turn: which table can the player leave?

The table after a play is split in three parts, so that the model stays small on big
tables yet exact under every ruling:

* **kept melds** — a boolean per meld before: left exactly as it was (this also measures
  how much a hint disturbs the table). A kept meld of natural cards whose exact shape the
  pool has (a same-suit run by its ends and suit, a group by its rank and suits) is *linked*:
  it is one of the pool's melds of that shape, so keeping it and rebuilding it from the pool
  are one solution, not two the search must tell apart. Other kept melds leave the pool
  with their cards. A natural meld that a release can leave behind is also kept when a
  slot holds its very cards (``via``): melds changed are counted by cards;
* **the pool** — melds that need no identity: integer counts of run templates
  (start, end[, suit]) and of groups, per set of suits where no wild can join a group of
  that rank, else per rank and size. Natural groups with per-suit counts ≤ the number of
  groups always split into groups of distinct suits (Gale–Ryser), so counts suffice.
  Wilds fill places of the pool too; that each meld still holds a natural (R4) is a count
  for groups and, for runs, a condition on windows of places (``_build_run_naturals``).
  A lone free wild in same-suit runs and distinct-suit groups is instead counted as a
  stand-in for the card code whose place it takes (``_build_stand_ins``);
* **explicit slots** — a few fully modelled melds (positions, suits, cards) for every meld
  that must *continue* a meld before (R5 releases, R7 lineage): those need their identity.
  Each is a run or a group only, as the wilds it may hold allow (``_slot_kinds``).

Card conservation is counted per card code, so duplicate cards of two decks are
interchangeable, exactly as the physical cards are. A wild on the table has one fate:
kept in its unchanged meld, placed with its old value (in the pool, or in a slot where
it must stay in its meld's line, R7), or released (R5) by a natural card of its value
played from the hand into a slot that continues its meld.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations

from ortools.sat.python import cp_model, cp_model_helper
from ortools.util.python.sorted_interval_list import Domain

from solver.core.cards import SUITS, Card, WildValue
from solver.core.rulesets import Ruleset, SuitRule, rank_of_position
from solver.rummy.melds import MeldKind, Reading
from solver.rummy.position import Position

Code = tuple[int, str]  # a natural card: (rank, suit)
RunKey = tuple[int, int, str | None]  # a pool run: first and last position, suit (None: any)
GroupKey = tuple[int, tuple[str, ...]]  # a pool group of naturals: rank, suits in SUITS order
# A natural meld's exact cards as a slot would hold them: a run's (position, suit) places,
# or a group's rank and suits.
Shape = tuple[tuple[tuple[int, str], ...], None] | tuple[None, GroupKey]


@dataclass(frozen=True)
class TableWild:
    """A card acting as a wild on the table before the play."""

    card: Card
    value: WildValue
    meld: int


NO_ADD = -1  # ModelOptions.add_size when the largest add is unknown: only meld plays (R8)
STAND_IN_WILDS = 1  # the most free wilds counted as stand-ins for card codes (``stand_in``)


@dataclass(frozen=True)
class ModelOptions:
    """What the turn allows; the search layer fills these from the ruleset and turn."""

    max_new_melds: int | None
    keep_all: bool = False  # rummikub before opening: the table stays as it was
    opening_points: int = 0  # rummikub: the new melds' value from the rack
    groups_may_grow: bool = True  # vatikan before a sequence: no more groups than before
    add_size: int | None = None  # shangai: an add must place exactly this many (NO_ADD: no add)


@dataclass
class Slot:
    """Variables of one explicitly modelled meld."""

    act: cp_model.IntVar
    isrun: cp_model.IntVar
    isgrp: cp_model.IntVar
    occ: dict[int, cp_model.IntVar] = field(default_factory=dict)
    rsuit: dict[str, cp_model.IntVar] = field(default_factory=dict)
    nr: dict[tuple[int, str], cp_model.IntVar] = field(default_factory=dict)
    wr: dict[int, cp_model.IntVar] = field(default_factory=dict)
    freep: dict[int, cp_model.IntVar] = field(default_factory=dict)
    grank: dict[int, cp_model.IntVar] = field(default_factory=dict)
    ng: dict[Code, cp_model.IntVar] = field(default_factory=dict)
    freeg: dict[int, cp_model.IntVar] = field(default_factory=dict)  # free wilds by group rank
    nat: dict[Code, cp_model.LinearExprT] = field(default_factory=dict)


class _CpModel(cp_model.CpModel):
    """A CpModel made for speed: no camelCase aliases of its methods (making them takes
    about 0.5 ms per model, a tenth of building a small one) and no variable names (storing
    them costs half of each new variable); nothing here reads either. Objectives are written
    in bulk and clones are of this class (tests/test_model_builder.py checks both against
    the base class)."""

    def __init__(self) -> None:
        super().__init__()
        # A property of the C++ base, a quarter of a new variable's cost: read once.
        self._var_proto = self.model_proto

    def _add_pre_pep8_methods(self) -> None:
        pass

    def new_int_var(
        self, lb: cp_model.IntegralT, ub: cp_model.IntegralT, name: str
    ) -> cp_model.IntVar:
        domain = _DOMAINS.get((lb, ub))
        if domain is None:
            domain = _DOMAINS[(lb, ub)] = Domain(lb, ub)
        return cp_model.IntVar(self._var_proto).with_domain(domain)

    def new_bool_var(self, name: str) -> cp_model.IntVar:
        return cp_model.IntVar(self._var_proto).with_domain(_BOOL)

    def clone(self) -> _CpModel:
        # The base class clones into a plain CpModel, which makes the aliases again.
        copy = _CpModel()
        copy.proto.copy_from(self.proto)
        copy.rebuild_constant_map()
        return copy

    def _set_objective(self, obj: cp_model.ObjLinearExprT, maximize: bool) -> None:
        # The base class writes the objective term by term through the proto wrapper,
        # about 6 µs a term (0.2 ms for rummikub's weighted objective): here, two extends.
        if not isinstance(obj, cp_model.LinearExpr) or not obj.is_integer():
            super()._set_objective(obj, maximize)
            return
        self.model_proto.clear_objective()
        self.model_proto.clear_floating_point_objective()
        flat = cp_model_helper.FlatIntExpr(obj)
        sign = -1 if maximize else 1
        objective = self.model_proto.objective
        objective.vars.extend([v.index for v in flat.vars])
        objective.coeffs.extend([sign * c for c in flat.coeffs])
        objective.offset = sign * flat.offset
        objective.scaling_factor = float(sign)


# Domains are immutable and a model's bounds are few: made once, not once per variable.
_DOMAINS: dict[tuple[cp_model.IntegralT, cp_model.IntegralT], Domain] = {}
_BOOL = Domain(0, 1)


def _sum(terms: Iterable[cp_model.LinearExprT]) -> cp_model.LinearExpr:
    """A sum built in one call (Python's ``sum`` nests one expression per term)."""
    return cp_model.LinearExpr.sum(list(terms))


def _nat_code(card: Card) -> Code:
    return (card.rank, card.suit)


class TurnModel:
    """Builds the CP-SAT model of the legal tables after one play from ``position``."""

    def __init__(self, position: Position, options: ModelOptions) -> None:
        self.position = position
        self.rs: Ruleset = position.ruleset
        self.options = options
        self.model: cp_model.CpModel = _CpModel()
        self._collect_data()
        self._build()

    # --- data ------------------------------------------------------------------------

    def _collect_data(self) -> None:
        rs = self.rs
        self.same_suit = rs.melds.sequence_suits is SuitRule.SAME_SUIT
        self.positions = list(rs.sequence_positions)
        self.before: list[Reading] = [c.reading for c in self.position.readings]
        self.natural_melds: list[bool] = []  # ``all_natural``, asked often: read once
        self.wilds: list[TableWild] = []
        table_cards: list[Card] = []
        for m, meld in enumerate(self.position.table):
            reading = self.before[m]
            cards = [tc.card for tc in meld]
            table_cards += cards
            if not any(reading.wild):
                self.natural_melds.append(not any(rs.is_wild_card(c) for c in cards))
                continue
            for tc, value, is_wild in zip(meld, reading.values, reading.wild, strict=True):
                if is_wild:
                    # R4/R5: a wild's value carries a suit only where it stood in a
                    # same-suit sequence; a suit written on a group wild is a note.
                    if reading.kind is MeldKind.GROUP or not self.same_suit:
                        value = WildValue(value.rank, None)
                    self.wilds.append(TableWild(tc.card, value, m))
            self.natural_melds.append(False)
        self.table_count: Counter[Card] = Counter(table_cards)
        self._find_linkable()
        self.hand_count: Counter[Card] = Counter(self.position.hand)
        all_cards = set(self.table_count) | set(self.hand_count)
        self.wild_capable = sorted(c for c in all_cards if rs.is_wild_card(c))
        # Natural supply per code: every ordinary card may stand as a natural.
        supply: Counter[Code] = Counter()
        for card in all_cards:
            if card.is_ordinary:
                supply[_nat_code(card)] += self.table_count[card] + self.hand_count[card]
        self.nat_supply = supply
        self.codes = sorted(supply)
        # A wild can only be released by a natural of its value held in the hand (R5).
        keep_all = self.options.keep_all
        self.releasable = [
            i for i, w in enumerate(self.wilds) if self._release_codes(w) and not keep_all
        ]
        self._find_traded()
        # Explicit melds only where identity matters: one per possible release (R5), and
        # in vatikan one per table wild, which must stay in its meld's line (R7).
        lineage = len(self.wilds) if self.rs.rearrangement.wild_lineage and not keep_all else 0
        # With enough wild cards for a run of wilds alone (mexe-mexe's 2s), the pool's runs
        # must be shown to hold a natural each (R4, ``_build_run_naturals``).
        self.wild_supply = sum(self.table_count[c] + self.hand_count[c] for c in self.wild_capable)
        self.wild_runs_possible = self.wild_supply >= self.rs.melds.min_sequence
        # A lone free wild in same-suit runs and distinct-suit groups stands for one card
        # code, so the pool is counted as if without wilds (``_build_stand_ins``).
        self.stand_in = (
            self.same_suit
            and rs.melds.group_suits_distinct
            and not self.wilds
            and 0 < self.wild_supply <= STAND_IN_WILDS
            and self.wild_supply < min(rs.melds.min_sequence, rs.melds.group_min)
        )
        self.n_slots = len(self.releasable) + lineage
        self._slot_kinds(range(len(self.wilds)) if lineage else self.releasable)
        self._find_matchable()

    def _find_traded(self) -> None:
        """D4: cards of one code in different melds that can trade places. A meld then shows
        its very cards though its own wild left, which its keep flag counts as a change, so
        the model's count of melds changed is only an upper bound of the table's
        (``keeps_exact`` false; docs/solver.md, "Objectives and tie-break"). So it is where a
        slot could hold a natural meld's cards with others (``_find_matchable``).

        * Two table wilds of one card code, each keeping its value (R5).
        * A table wild and a natural of its very card (mexe-mexe's 2s, each of which may be
          wild). The natural can take the wild's place while the wild itself goes back to
          the hand, released (seed 228166: `2C=J JH JS` beside `2D 2C 2H`, the hand's J♣
          releasing the 2♣), or the wild, standing for its own card's rank, takes the
          natural's place: ``2C=2C`` (seed 216074), or ``2S=2D`` from a run in a group of
          2s whose natural 2♠ went to stand for a card elsewhere (seed 290052 with up to four
          wilds: `2S=2D 3D 4D 5D 6D | 2S 2D=2 2C`, hand `5S 5H 7D`; the group is shown again
          as `2C 2S=2D 2D=2`, since a 2 standing for a 2 is compared as a natural). A wild
          that stays on the table with a value of another rank needs no trade: the model
          already lays the natural as a wild of that value and keeps the wild's meld.
        """
        wild_melds: dict[Card, set[int]] = {}
        for w in self.wilds:
            wild_melds.setdefault(w.card, set()).add(w.meld)
        self.keeps_exact = all(len(melds) < 2 for melds in wild_melds.values())
        to_hand = set(self.releasable) if self.rs.rearrangement.released_wild_to_hand else set()
        for i, w in enumerate(self.wilds):
            # Of its own rank, the wild is its card as the table is compared (``changed_melds``).
            if i not in to_hand and w.value.rank != w.card.rank:
                continue
            code = _nat_code(w.card)
            if any(nat[code] for m, nat in enumerate(self.meld_naturals) if m != w.meld):
                self.keeps_exact = False

    def _slot_kinds(self, occupants: Iterable[int]) -> None:
        """Which kinds of meld a slot may be. A slot releases a wild or, in vatikan, holds
        one in its meld's line (R7); either way it holds a card of the wild's value (the
        hand's natural, or the wild itself) and a natural of the wild's meld (R5, R7): of
        another rank, only a run holds both; of the same rank, only a group (or a run with an
        ace at both ends). Other melds need no identity and are the pool's, so where every
        such wild sits in a run the slots have no group part, and the reverse: a quarter
        fewer variables and a third fewer constraints where a joker can be released."""
        self.slot_runs = self.slot_groups = False
        aces_twice = 1 in self.positions and 14 in self.positions
        for i in occupants:
            w = self.wilds[i]
            for rank, _ in self.meld_naturals[w.meld]:
                if rank != w.value.rank or (rank == 1 and aces_twice):
                    self.slot_runs = True
                if rank == w.value.rank:
                    self.slot_groups = True

    def _find_matchable(self) -> None:
        """Natural melds before that a slot could rebuild card for card.

        A slot continues the meld of a wild it releases, so it may end up holding exactly
        the cards of *another* meld before: ``JK=JH QH KH`` beside ``JH QH KH``, the hand's
        J♥ releasing the joker. The table then shows that other meld unchanged, though its
        own cards went elsewhere; melds changed are counted by cards (``changed_melds``), so
        the model must count it kept too, or its tie-break proves a count that a table it
        cannot see beats (docs/solver.md). Candidates are the melds a release leaves: the
        releasing hand card with naturals of the released wild's meld, nothing else. A slot
        that also takes other cards can match still other melds (vatikan
        ``JD QH KH JK=A | QH KS AD`` with ``AD`` in hand: the slot ``QH KS AD`` takes the
        first meld's Q♥), but each candidate adds variables that slow the tie-break's search,
        so those are not candidates: where one exists the model's count is only an upper
        bound of the table's and ``keeps_exact`` is false (``trades.lay_again`` then
        swaps cards to lay such melds again). So it is where a meld with wilds holds the
        hand's card and a natural of the released wild's meld: the slot could hold it too.
        """
        self.match_shapes: dict[int, Shape] = {}
        if not self.n_slots:
            return
        wanted = [
            (self._release_codes(w), self.meld_naturals[w.meld], w.meld)
            for w in (self.wilds[i] for i in self.releasable)
        ]
        for m, meld in enumerate(self.position.table):
            reading = self.before[m]
            codes = self.meld_naturals[m]
            # What a releasing slot holding this meld takes besides the hand's card; it
            # needs a natural of the released wild's meld (R5's continuation).
            rests = [
                (rest, origin)
                for released, origin, home in wanted
                if home != m
                for code in released
                if codes[code]
                for rest in (codes - Counter({code: 1}),)
                if rest & origin
            ]
            if not rests:
                continue
            if not self.all_natural(m):
                # A meld with wilds of its own, which may join the slot keeping their
                # values (mexe-mexe seed 219376: `2S=10H JH QH KH AH` beside
                # `QH KH 2H=AH`, the hand's A♥ releasing the 2♥): not counted.
                self.keeps_exact = False
                continue
            if reading.kind is MeldKind.SEQUENCE and self.slot_runs:
                places = zip(reading.positions, (tc.card.suit for tc in meld), strict=True)
                shape: Shape = (tuple(sorted(places)), None)
            elif reading.kind is MeldKind.GROUP and self.slot_groups:
                suits = tuple(x for x in SUITS if (reading.rank, x) in codes)
                shape = (None, (reading.rank, suits))
            else:
                continue
            if any(not rest - origin for rest, origin in rests):
                self.match_shapes[m] = shape
            else:
                self.keeps_exact = False

    def _find_linkable(self) -> None:
        """Melds before that the pool can hold as they are (see the module docstring)."""
        rs = self.rs
        self.linked_runs: dict[int, RunKey] = {}
        self.linked_groups: dict[int, GroupKey] = {}  # confirmed by _build_pool per rank
        for m, meld in enumerate(self.position.table):
            if not self.all_natural(m):
                continue
            reading = self.before[m]
            if reading.kind is MeldKind.SEQUENCE and self.same_suit and reading.suit:
                ends = (min(reading.positions), max(reading.positions))
                self.linked_runs[m] = (*ends, reading.suit)
            elif reading.kind is MeldKind.GROUP and rs.melds.group_suits_distinct:
                suits = {tc.card.suit for tc in meld}
                self.linked_groups[m] = (reading.rank, tuple(x for x in SUITS if x in suits))

    @cached_property
    def meld_naturals(self) -> list[Counter[Code]]:
        """Per meld before, its natural cards by code (asked only where wilds are in play)."""
        return [
            Counter([_nat_code(tc.card) for tc, w in zip(meld, r.wild, strict=True) if not w])
            for meld, r in zip(self.position.table, self.before, strict=True)
        ]

    def all_natural(self, m: int) -> bool:
        """Meld ``m`` before holds no wild and no card that could be one (a mexe-mexe 2)."""
        return self.natural_melds[m]

    def _release_codes(self, wild: TableWild) -> list[Code]:
        return [_nat_code(c) for c in self.hand_count if wild.value.stands_for(c)]

    # --- variables and constraints ---------------------------------------------------

    def _build(self) -> None:
        m = self.model
        rs = self.rs
        # Hand cards used.
        self.hu: dict[Card, cp_model.IntVar] = {
            c: m.new_int_var(0, k, "hand") for c, k in sorted(self.hand_count.items())
        }
        self.keep = [m.new_bool_var("keep") for _ in range(len(self.position.table))]
        if self.options.keep_all:
            for k in self.keep:
                m.add(k == 1)
        else:
            self._order_identical_melds()
        # A meld a slot may rebuild is kept either way: on the table with its own cards
        # (or, linked, as one of the pool's melds) — ``held`` — or as that slot (``via``).
        self.held: list[cp_model.IntVar] = list(self.keep)
        self.via: dict[int, cp_model.IntVar] = {}
        for i in self.match_shapes:
            self.held[i] = m.new_bool_var("held")
            self.via[i] = m.new_bool_var("via")
            m.add(self.keep[i] == self.held[i] + self.via[i])
        self.rel = {i: m.new_bool_var("rel") for i in self.releasable}
        self.th: dict[int, cp_model.IntVar] = {}
        if rs.rearrangement.released_wild_to_hand:
            for i in self.releasable:
                self.th[i] = m.new_bool_var("to_hand")
                m.add(self.th[i] <= self.rel[i])
        self._build_pool()
        self._build_links()
        self.slots = [self._build_slot(k) for k in range(self.n_slots)]
        for a, b in zip(self.slots, self.slots[1:], strict=False):
            m.add(a.act >= b.act)  # symmetry: active slots first
        self._build_wild_fates()
        self._build_matches()
        self._build_release()
        self._build_conservation()
        self._build_turn_rules()

    def _order_identical_melds(self) -> None:
        """Two identical melds before (the same cards standing for the same values) are
        interchangeable: each of them is kept only if the one before it is. Without this,
        keeping one or the other is the same table, searched and found twice."""
        m = self.model
        last: dict[tuple[object, ...], cp_model.IntVar] = {}
        for k, (meld, reading) in enumerate(zip(self.position.table, self.before, strict=True)):
            # Cards with what each stands for, in any order (a quarter of the cost of
            # writing the normalised meld out, on every model built).
            stands = zip(meld, reading.values, reading.wild, strict=True)
            key = (reading.kind, *sorted((tc.card, v.rank, v.suit or "", w) for tc, v, w in stands))
            if key in last:
                m.add(self.keep[k] <= last[key])
            last[key] = self.keep[k]

    def _build_pool(self) -> None:
        """Melds that need no identity: run and group counts, filled per position.

        Wilds may sit here too: a table wild that keeps its value fills a place of that
        value like a natural would (R5), and a free wild fills any place. Each meld still
        holds a natural (R4): groups count theirs; runs need ``_build_run_naturals`` once
        there are wilds enough for a run of their own (mexe-mexe's 2s). ``rebuild`` hands
        the naturals out so that each meld holds one, and ``validate_move`` re-checks it.
        """
        m = self.model
        rs = self.rs
        pos = self.positions
        n_free = self.wild_supply
        pool_fixed = (
            []
            if rs.rearrangement.wild_lineage or self.options.keep_all
            else list(range(len(self.wilds)))
        )
        self.runs: dict[RunKey, cp_model.IntVar] = {}
        suits: tuple[str | None, ...] = SUITS if self.same_suit else (None,)
        # Without a limit on new melds a long run is two shorter ones laid end to end, so
        # runs of up to 2*min-1 cards suffice (rebuild joins them again); this is the
        # classic Rummikub model reduction and keeps the model small.
        longest = rs.melds.max_sequence
        if self.options.max_new_melds is None:
            longest = min(longest, 2 * rs.melds.min_sequence - 1)

        def fixed_fits(i: int, p: int, suit: str | None) -> bool:
            v = self.wilds[i].value
            return v.rank == rank_of_position(p) and (
                suit is None or v.suit is None or v.suit == suit
            )

        # Capacity of each run place: natural supply, free wilds, fitting table wilds. Places
        # are walked by index (sequence positions are consecutive), per suit.
        n_pos = len(pos)
        supply = {suit: [self._position_supply(p, suit) for p in pos] for suit in suits}
        fits = {
            suit: [[i for i in pool_fixed if fixed_fits(i, p, suit)] for p in pos] for suit in suits
        }
        covering_runs: dict[str | None, list[list[cp_model.IntVar]]] = {
            suit: [[] for _ in pos] for suit in suits
        }
        # A linked run longer than the pool's own runs still needs its own shape.
        linked_ends: dict[tuple[int, str | None], set[int]] = {}
        for a, b, suit in self.linked_runs.values():
            linked_ends.setdefault((a, suit), set()).add(b)
        for suit in suits:
            caps = [n + n_free + len(f) for n, f in zip(supply[suit], fits[suit], strict=True)]
            here_supply = supply[suit]
            here_fits = fits[suit]
            covering = covering_runs[suit]
            for a_i, a in enumerate(pos):
                # Ends at indices first..usual-1, and those of linked runs from ``a``.
                first = a_i + rs.melds.min_sequence - 1
                usual = min(a_i + longest, n_pos)
                linked = linked_ends.get((a, suit))
                last = usual - 1
                if linked:
                    last = max(last, max(linked) - a + a_i)
                elif first >= usual:
                    continue
                # Walk the run's places once: its capacity is the least place capacity so
                # far, and it needs a natural somewhere. A place no natural and no table wild
                # can fill (a hole) takes a free wild from each copy of the run: a run with
                # more holes than free wilds cannot be laid at all.
                cap = caps[a_i]
                natural = False
                holes = 0
                for j in range(a_i, last + 1):
                    if caps[j] < cap:
                        cap = caps[j]
                    if here_supply[j] > 0:
                        natural = True
                    elif not here_fits[j]:
                        holes += 1
                    if cap <= 0 or holes > n_free:
                        break
                    if not natural or j < first:
                        continue
                    b = pos[j]
                    if j >= usual and b not in (linked or ()):
                        continue
                    run = m.new_int_var(0, min(cap, n_free // holes) if holes else cap, "run")
                    self.runs[(a, b, suit)] = run
                    for q in range(a_i, j + 1):
                        covering[q].append(run)
        # Fill of every run place: naturals, table wilds keeping their value, free wilds.
        self.run_fill: dict[tuple[int, str], cp_model.LinearExprT] = {}
        self.run_free: dict[tuple[int, str | None], cp_model.IntVar] = {}
        self.run_fixed: dict[tuple[int, int, str | None], cp_model.IntVar] = {}
        for j, p in enumerate(pos):
            r = rank_of_position(p)
            for suit in suits:
                here = covering_runs[suit][j]
                if not here:
                    continue
                fitting = fits[suit][j]
                if suit is not None and (self.stand_in or (not n_free and not fitting)):
                    # Only naturals of this one card (or a wild standing in for it) can fill
                    # the place: their count is the number of runs through it, with no
                    # variable of its own (the search runs without presolve, which would
                    # otherwise remove it).
                    self.run_fill[(p, suit)] = _sum(here)
                    continue
                parts: list[cp_model.IntVar] = []
                for s in SUITS if suit is None else (suit,):
                    cap = self.nat_supply[(r, s)]
                    if cap:
                        x = m.new_int_var(0, cap, "fill")
                        self.run_fill[(p, s)] = x
                        parts.append(x)
                if n_free:
                    f = m.new_int_var(0, n_free, "free")
                    self.run_free[(p, suit)] = f
                    parts.append(f)
                for i in fitting:
                    v = m.new_bool_var("fixrun")
                    self.run_fixed[(i, p, suit)] = v
                    parts.append(v)
                m.add(_sum(parts) == _sum(here))
        if self.wild_runs_possible:
            self._build_run_naturals(suits)
        # Groups per rank: sizes group_min..group_max; a natural suit at most once per
        # group, so per-suit counts ≤ number of groups (Gale–Ryser makes this exact).
        self.groups: dict[tuple[int, int], cp_model.IntVar] = {}
        self.group_sets: dict[GroupKey, cp_model.IntVar] = {}
        self.group_suits: dict[Code, cp_model.LinearExprT] = {}
        self.group_free: dict[int, cp_model.IntVar] = {}
        self.group_fixed: dict[int, cp_model.IntVar] = {}
        for r in range(1, 14):
            avail = [s for s in SUITS if self.nat_supply[(r, s)]]
            fixed_here = [i for i in pool_fixed if self.wilds[i].value.rank == r]
            wild_room = n_free + len(fixed_here)
            if not avail or len(avail) + wild_room < rs.melds.group_min:
                continue
            if rs.melds.group_suits_distinct and (not wild_room or self.stand_in):
                self._build_group_sets(r, avail, n_free if self.stand_in else 0)
                continue
            sizes = range(rs.melds.group_min, rs.melds.group_max + 1)
            cap = sum(self.nat_supply[(r, s)] for s in avail)
            gvars = {k: m.new_int_var(0, cap, "group") for k in sizes}
            self.groups.update({(r, k): v for k, v in gvars.items()})
            total = _sum(gvars.values())
            size_sum = cp_model.LinearExpr.weighted_sum(list(gvars.values()), list(gvars))
            ys = []
            for s in avail:
                y = m.new_int_var(0, self.nat_supply[(r, s)], "gsuit")
                self.group_suits[(r, s)] = y
                ys.append(y)
            m.add(_sum(ys) >= total)  # R4: every group holds a natural card
            fills: list[cp_model.IntVar] = list(ys)
            for i in fixed_here:
                g = m.new_bool_var("fixgrp")
                self.group_fixed[i] = g
                fills.append(g)
            for s in SUITS:
                # A suited wild stands for that very card: its suit is taken (R3, R4).
                suited = [self.group_fixed[i] for i in fixed_here if self.wilds[i].value.suit == s]
                nat = [self.group_suits[(r, s)]] if (r, s) in self.group_suits else []
                if rs.melds.group_suits_distinct and (suited or nat):
                    m.add(_sum([*nat, *suited]) <= total)
            if n_free:
                f = m.new_int_var(0, n_free, "gfree")
                self.group_free[r] = f
                fills.append(f)
            m.add(_sum(fills) == size_sum)
        self.stand_ins: dict[Code, cp_model.IntVar] = {}
        if self.stand_in:
            self._build_stand_ins()

    def _build_stand_ins(self) -> None:
        """A free wild that stands in for a card code: how many of each code.

        Where the only wilds are one free wild (a joker on the rack) in same-suit runs and
        distinct-suit groups, every place a wild can fill is one card's: a run place its
        rank and the run's suit, a group place its rank and a suit the group lacks. So the
        pool counts runs and groups per card code as without wilds, each code's places
        being its naturals and the wilds standing in for it (``_build_conservation``). The
        pool then needs no wild variables per place, and its groups are counted per set of
        suits: on rummikub's one-joker positions a fifth fewer variables and two thirds
        fewer constraints (medians, mid and large bench tables). Every meld holds a
        natural (R4) because the wilds are fewer than a meld's least cards; ``rebuild``
        lays each stand-in where a place of its code is free."""
        codes = {(rank_of_position(p), s) for p, s in self.run_fill}
        codes.update(self.group_suits)
        # A wild card on a place of its own code is that natural card (a mexe-mexe 2):
        # not a stand-in, or the same table would be two solutions.
        codes -= {_nat_code(c) for c in self.wild_capable if c.is_ordinary}
        for code in sorted(codes):
            self.stand_ins[code] = self.model.new_int_var(0, self.wild_supply, "stand_in")

    def _build_run_naturals(self, suits: tuple[str | None, ...]) -> None:
        """R4 for the pool's runs where wilds could fill a whole run: a natural for each.

        Runs are intervals of places and naturals are points, so each run can be given a
        natural of its own exactly when every window of places holds at least as many
        naturals as there are runs wholly inside it (Hall's condition for intervals);
        ``rebuild`` then hands them out earliest-ending run first.

        Short windows suffice. The smallest failing set of runs covers its window, so the
        window holds at least one card per place and at least three per run, and it holds
        fewer naturals than runs: with ``w`` wild cards in play, ``naturals + w >= 3 *
        (naturals + 1)`` bounds its naturals by ``(w - 3) / 2`` and its length by
        ``(3w - 3) / 2``.
        """
        m = self.model
        longest = (3 * self.wild_supply - 3) // 2
        for suit in suits:
            shapes = [(a, b, run) for (a, b, s), run in self.runs.items() if s == suit]
            if not shapes:
                continue
            naturals: dict[int, list[cp_model.LinearExprT]] = {}
            for (p, s), fill in self.run_fill.items():
                if suit is None or s == suit:
                    naturals.setdefault(p, []).append(fill)
            # A kept linked run is all natural and stays as it was: it needs no natural
            # handed out, and the naturals it holds serve no other run.
            kept = [(a, b, self.held[k]) for k, (a, b, s) in self.linked_runs.items() if s == suit]
            starts = sorted({a for a, _, _ in shapes})
            ends = sorted({b for _, b, _ in shapes})
            for x in starts:
                for y in ends:
                    if y - x + 1 > longest:
                        break
                    inside = [run for a, b, run in shapes if x <= a and b <= y]
                    if not inside:
                        continue
                    held = [f for p in range(x, y + 1) for f in naturals.get(p, [])]
                    # A kept run takes the naturals it overlaps, and needs none if inside.
                    terms = [
                        (min(b, y) - max(a, x) + 1 - (x <= a and b <= y)) * k
                        for a, b, k in kept
                        if a <= y and b >= x
                    ]
                    m.add(_sum([*inside, *terms]) <= _sum(held))

    def _build_group_sets(self, r: int, avail: list[str], stand_ins: int = 0) -> None:
        """Groups of one rank where no wild can join, or only wilds standing in for card
        codes: a count per set of suits (the shape a kept group links to), each suit's
        cards the sum of the sets holding it. A set may hold up to ``stand_ins`` suits of
        which no natural is in play."""
        m = self.model
        rs = self.rs
        holding: dict[str, list[cp_model.IntVar]] = {}
        choice = SUITS if stand_ins else avail
        for size in range(rs.melds.group_min, min(rs.melds.group_max, len(avail) + stand_ins) + 1):
            for suits in combinations(choice, size):
                if stand_ins and sum(x not in avail for x in suits) > stand_ins:
                    continue
                cap = min(self.nat_supply[(r, x)] + stand_ins for x in suits)
                v = m.new_int_var(0, cap, "gset")
                self.group_sets[(r, suits)] = v
                for x in suits:
                    holding.setdefault(x, []).append(v)
        for x, vs in holding.items():
            self.group_suits[(r, x)] = _sum(vs)

    def _build_links(self) -> None:
        """A linked kept meld is one of the pool's melds of its shape, all natural."""
        m = self.model
        self.linked_groups = {
            k: key for k, key in self.linked_groups.items() if key in self.group_sets
        }
        self.removed = [
            k not in self.linked_runs and k not in self.linked_groups for k in range(len(self.keep))
        ]
        runs: dict[RunKey, list[cp_model.IntVar]] = {}
        for k, run in self.linked_runs.items():
            runs.setdefault(run, []).append(self.held[k])
        for run, keeps in runs.items():
            m.add(_sum(keeps) <= self.runs[run])
        groups: dict[GroupKey, list[cp_model.IntVar]] = {}
        for k, group in self.linked_groups.items():
            groups.setdefault(group, []).append(self.held[k])
        for group, keeps in groups.items():
            m.add(_sum(keeps) <= self.group_sets[group])
        # Where wilds may fill a run place too, the linked runs through it need naturals.
        by_suit: dict[str | None, list[tuple[int, int, int]]] = {}
        for k, (a, b, s) in self.linked_runs.items():
            by_suit.setdefault(s, []).append((a, b, k))
        for (p, suit), fill in self.run_fill.items():
            if not isinstance(fill, cp_model.IntVar):
                continue
            through = [self.held[k] for a, b, k in by_suit.get(suit, ()) if a <= p <= b]
            if through:
                m.add(_sum(through) <= fill)

    def _position_supply(self, p: int, suit: str | None) -> int:
        r = rank_of_position(p)
        if suit is not None:
            return self.nat_supply[(r, suit)]
        return sum(self.nat_supply[(r, s)] for s in SUITS)

    def _build_slot(self, k: int) -> Slot:
        m = self.model
        act = m.new_bool_var("slot_act")
        isrun = m.new_bool_var("slot_run")
        isgrp = m.new_bool_var("slot_group")
        m.add(act == isrun + isgrp)
        slot = Slot(act, isrun, isgrp)
        if self.slot_runs:
            self._build_slot_run(slot)
        else:
            m.add(isrun == 0)
        if self.slot_groups:
            self._build_slot_group(slot)
        else:
            m.add(isgrp == 0)
        # Naturals per code.
        for code in self.codes:
            r, s = code
            terms = [v for (p, s2), v in slot.nr.items() if s2 == s and rank_of_position(p) == r]
            if code in slot.ng:
                terms.append(slot.ng[code])
            if terms:
                slot.nat[code] = sum(terms)
        naturals = sum(slot.nr.values()) + sum(slot.ng.values())
        m.add(naturals >= act)  # R4: at least one natural card
        return slot

    def _build_slot_run(self, slot: Slot) -> None:
        m = self.model
        rs = self.rs
        isrun = slot.isrun
        has_wilds = bool(self.wild_capable)
        starts = []
        prev: cp_model.IntVar | None = None
        for p in self.positions:
            occ = m.new_bool_var("slot_occupied")
            start = m.new_bool_var("slot_start")
            m.add(start <= occ)
            if prev is None:
                m.add(occ <= start)
            else:
                m.add(occ <= prev + start)
                m.add(start + prev <= 1)
            starts.append(start)
            slot.occ[p] = occ
            prev = occ
        m.add(sum(starts) == isrun)
        length = sum(slot.occ.values())
        m.add(length >= rs.melds.min_sequence * isrun)
        m.add(length <= rs.melds.max_sequence * isrun)
        if self.same_suit:
            for s in SUITS:
                slot.rsuit[s] = m.new_bool_var("slot_suit")
            m.add(sum(slot.rsuit.values()) == isrun)
        for p in self.positions:
            r = rank_of_position(p)
            parts: list[cp_model.IntVar] = []
            for s in SUITS:
                if self.nat_supply[(r, s)]:
                    v = m.new_bool_var("slot_natural")
                    if self.same_suit:
                        m.add(v <= slot.rsuit[s])
                    slot.nr[(p, s)] = v
                    parts.append(v)
            if has_wilds:
                w = m.new_bool_var("slot_wild")
                slot.wr[p] = w
                slot.freep[p] = m.new_bool_var("slot_free")
                parts.append(w)
            m.add(sum(parts) == slot.occ[p])

    def _build_slot_group(self, slot: Slot) -> None:
        m = self.model
        has_wilds = bool(self.wild_capable)
        for r in range(1, 14):
            g = m.new_bool_var("slot_group_rank")
            slot.grank[r] = g
            for s in SUITS:
                if self.nat_supply[(r, s)]:
                    v = m.new_bool_var("slot_group_natural")
                    m.add(v <= g)
                    slot.ng[(r, s)] = v
            if has_wilds:
                slot.freeg[r] = m.new_int_var(0, 4, "slot_group_free")
                m.add(slot.freeg[r] <= 4 * g)
        m.add(sum(slot.grank.values()) == slot.isgrp)

    def _build_wild_fates(self) -> None:
        """Every table wild: kept, fixed in a slot with its value, or released (R5)."""
        m = self.model
        self.fxp: dict[tuple[int, int, int], cp_model.IntVar] = {}
        self.fxg: dict[tuple[int, int], cp_model.IntVar] = {}
        self.fx: dict[tuple[int, int], cp_model.LinearExprT] = {}
        self.wild_placements: dict[int, list[cp_model.IntVar]] = {}
        for i, w in enumerate(self.wilds):
            placements = []
            for k, slot in enumerate(self.slots):
                here = []
                for p in self.positions:
                    if rank_of_position(p) != w.value.rank or p not in slot.wr:
                        continue
                    v = m.new_bool_var("fx")
                    if self.same_suit and w.value.suit is not None:
                        m.add(v <= slot.rsuit[w.value.suit])
                    self.fxp[(i, k, p)] = v
                    here.append(v)
                if slot.grank:
                    g = m.new_bool_var("fxg")
                    m.add(g <= slot.grank[w.value.rank])
                    self.fxg[(i, k)] = g
                    here.append(g)
                self.fx[(i, k)] = sum(here)
                placements.extend(here)
            placements += [v for (i2, _, _), v in self.run_fixed.items() if i2 == i]
            if i in self.group_fixed:
                placements.append(self.group_fixed[i])
            self.wild_placements[i] = placements
            fate = [self.keep[w.meld], *placements]
            if i in self.rel:
                fate.append(self.rel[i])
            m.add(sum(fate) == 1)
        for k, slot in enumerate(self.slots):
            for p, wvar in slot.wr.items():
                fixed = [v for (i, k2, p2), v in self.fxp.items() if k2 == k and p2 == p]
                m.add(wvar == slot.freep[p] + sum(fixed))
            for r in slot.grank:
                fixed_g = [self.fxg[(i, k)] for i, w in enumerate(self.wilds) if w.value.rank == r]
                free_g = slot.freeg.get(r, 0)
                n_nat = sum(v for (r2, _), v in slot.ng.items() if r2 == r)
                size = n_nat + free_g + sum(fixed_g)
                g = slot.grank[r]
                m.add(size >= self.rs.melds.group_min * g)
                m.add(size <= self.rs.melds.group_max * g)
                if self.rs.melds.group_suits_distinct:
                    # A suited wild stands for that very card: its suit must be missing (R4).
                    for s in SUITS:
                        suited = [
                            self.fxg[(i, k)]
                            for i, w in enumerate(self.wilds)
                            if w.value.rank == r and w.value.suit == s
                        ]
                        if suited:
                            m.add(sum(suited) + slot.ng.get((r, s), 0) <= 1)

    def _build_matches(self) -> None:
        """A meld kept ``via`` a slot (``_find_matchable``): the slot holds its very cards."""
        m = self.model
        by_shape: dict[Shape, list[cp_model.IntVar]] = {}
        for k, shape in self.match_shapes.items():
            by_shape.setdefault(shape, []).append(self.via[k])
        for shape, vias in by_shape.items():
            same = [self._slot_holds(k, shape) for k in range(len(self.slots))]
            m.add(_sum(vias) <= _sum([v for v in same if v is not None]))

    def _slot_holds(self, k: int, shape: Shape) -> cp_model.IntVar | None:
        """A boolean true only if slot ``k`` holds exactly ``shape``'s naturals and nothing
        else (None: it cannot)."""
        m = self.model
        slot = self.slots[k]
        places, group = shape
        if places is not None:
            if any(place not in slot.nr for place in places):
                return None
            same = m.new_bool_var("same")
            for place in places:
                m.add(same <= slot.nr[place])  # a natural there: no wild, and no other card
            first = self.positions.index(places[0][0])
            last = self.positions.index(places[-1][0])
            outside = self.positions[first - 1 : first] if first else []
            outside += self.positions[last + 1 : last + 2]
            for p in outside:
                m.add(same + slot.occ[p] <= 1)
            return same
        assert group is not None
        rank, suits = group
        if rank not in slot.grank or any((rank, s) not in slot.ng for s in suits):
            return None
        same = m.new_bool_var("same")
        for s in SUITS:
            if s in suits:
                m.add(same <= slot.ng[(rank, s)])
            elif (rank, s) in slot.ng:
                m.add(same + slot.ng[(rank, s)] <= 1)
        wilds = [self.fxg[(i, k)] for i, w in enumerate(self.wilds) if w.value.rank == rank]
        if rank in slot.freeg:
            wilds.append(slot.freeg[rank])
        if wilds:
            m.add(_sum(wilds) <= self.wild_supply * (1 - same))
        return same

    def _build_release(self) -> None:
        m = self.model
        needs_origin = {self.wilds[i].meld for i in self.releasable}
        if self.rs.rearrangement.wild_lineage:
            needs_origin |= {w.meld for w in self.wilds}
        # o[k, M, code]: naturals of meld M before that sit in slot k (continuation, R5).
        self.origin: dict[tuple[int, int, Code], cp_model.IntVar] = {}
        for M in sorted(needs_origin):
            for code, n in self.meld_naturals[M].items():
                total = []
                for k in range(len(self.slots)):
                    v = m.new_int_var(0, n, "o")
                    self.origin[(k, M, code)] = v
                    total.append(v)
                m.add(sum(total) + n * self.keep[M] <= n)
        # h[k, code]: hand-origin naturals in slot k that release wilds.
        rel_codes = sorted({c for i in self.releasable for c in self._release_codes(self.wilds[i])})
        self.handin: dict[tuple[int, Code], cp_model.IntVar] = {}
        for code in rel_codes:
            hand_card = Card(code[0], code[1])
            cap = self.hand_count[hand_card]
            for k in range(len(self.slots)):
                self.handin[(k, code)] = m.new_int_var(0, cap, "h")
            m.add(sum(self.handin[(k, code)] for k in range(len(self.slots))) <= self.hu[hand_card])
        for k, slot in enumerate(self.slots):
            for code in self.codes:
                claims = [v for (k2, _, c2), v in self.origin.items() if k2 == k and c2 == code]
                if (k, code) in self.handin:
                    claims.append(self.handin[(k, code)])
                if claims:
                    m.add(sum(claims) <= slot.nat.get(code, 0))
        self.relk: dict[tuple[int, int], cp_model.IntVar] = {}
        for i in self.releasable:
            w = self.wilds[i]
            here = []
            for k in range(len(self.slots)):
                v = m.new_bool_var("relk")
                cont = [o for (k2, M, _), o in self.origin.items() if k2 == k and M == w.meld]
                m.add(v <= sum(cont))
                self.relk[(i, k)] = v
                here.append(v)
            m.add(sum(here) == self.rel[i])
        for k, slot in enumerate(self.slots):
            by_rank: dict[int, list[cp_model.IntVar]] = {}
            by_code: dict[Code, list[cp_model.IntVar]] = {}
            for i in self.releasable:
                w = self.wilds[i]
                by_rank.setdefault(w.value.rank, []).append(self.relk[(i, k)])
                if w.value.suit is not None:
                    by_code.setdefault((w.value.rank, w.value.suit), []).append(self.relk[(i, k)])
            for r, reqs in by_rank.items():
                cards = [v for (k2, c), v in self.handin.items() if k2 == k and c[0] == r]
                m.add(sum(reqs) <= sum(cards))
            for code, reqs in by_code.items():
                m.add(sum(reqs) <= self.handin.get((k, code), 0))
            # A slot releases a wild or holds one in its meld's line (R7); any other meld
            # needs no identity and is the pool's (``_slot_kinds``).
            holds: list[cp_model.LinearExprT] = [self.relk[(i, k)] for i in self.releasable]
            if self.rs.rearrangement.wild_lineage:
                holds += [self.fx[(i, k)] for i in range(len(self.wilds))]
            m.add(_sum(holds) >= slot.act)
        if self.rs.rearrangement.wild_lineage:
            # R7: an unreleased wild ends in a meld that continues its original meld.
            for (i, k), fixed in self.fx.items():
                w = self.wilds[i]
                cont = [o for (k2, M, _), o in self.origin.items() if k2 == k and M == w.meld]
                m.add(fixed <= sum(cont))

    def _build_conservation(self) -> None:
        """Per card code: everything on the table after = table before + hand cards played."""
        m = self.model
        self.free_wild: dict[Card, cp_model.IntVar] = {}
        for card in self.wild_capable:
            cap = self.table_count[card] + self.hand_count[card]
            self.free_wild[card] = m.new_int_var(0, cap, "free")
        free_slots = [v for s in self.slots for v in s.freep.values()] + [
            v for s in self.slots for v in s.freeg.values()
        ]
        free_slots += [*self.run_free.values(), *self.group_free.values()]
        free_slots += self.stand_ins.values()
        m.add(_sum(self.free_wild.values()) == _sum(free_slots))
        fills_by_code: dict[Code, list[cp_model.LinearExprT]] = {}
        for (p, suit), v in self.run_fill.items():
            fills_by_code.setdefault((rank_of_position(p), suit), []).append(v)
        kept_by_card: dict[Card, list[cp_model.LinearExprT]] = {}
        for M, meld in enumerate(self.position.table):
            if not self.removed[M]:
                continue  # a linked meld's cards are the pool's
            for c, n in Counter(tc.card for tc in meld).items():
                kept_by_card.setdefault(c, []).append(n * self.held[M])
        wild_fates: dict[Card, list[cp_model.LinearExprT]] = {}
        for i, w in enumerate(self.wilds):
            fates = wild_fates.setdefault(w.card, [])
            fates += self.wild_placements[i]
            if i in self.th:
                fates.append(self.th[i])

        def pool_places(code: Code) -> list[cp_model.LinearExprT]:
            places = list(fills_by_code.get(code, ()))
            if code in self.group_suits:
                places.append(self.group_suits[code])
            return places

        cards = sorted(set(self.table_count) | set(self.hand_count))
        # A code's places hold its naturals and the wilds standing in for it.
        stand_ins = dict(self.stand_ins)
        for card in cards:
            placed: list[cp_model.LinearExprT] = []
            stand_in: cp_model.IntVar | None = None
            if card.is_ordinary:
                code = (card.rank, card.suit)
                placed += pool_places(code)
                if self.slots:
                    placed += [s.nat[code] for s in self.slots if code in s.nat]
                stand_in = stand_ins.pop(code, None)
            if card in self.free_wild:
                placed.append(self.free_wild[card])
            placed += wild_fates.get(card, ())
            placed += kept_by_card.get(card, ())
            hand = self.hu.get(card, 0)
            supply = self.table_count[card] + hand
            m.add(_sum(placed) == (supply if stand_in is None else supply + stand_in))
        for code, var in stand_ins.items():  # codes with no natural in play
            m.add(_sum(pool_places(code)) == var)

    def _build_turn_rules(self) -> None:
        m = self.model
        rs = self.rs
        opts = self.options
        # A hand card laid while a released wild of the same code goes back to the hand is a
        # swap: table and hand end as they were, so the pair lays nothing (docs/rules.md,
        # "What counts as laid"; ``CardFlow.swapped``). Counted net, as the validator does.
        back_by_card: dict[Card, list[cp_model.IntVar]] = {}
        for i, v in self.th.items():
            back_by_card.setdefault(self.wilds[i].card, []).append(v)
        swaps: list[cp_model.IntVar] = []
        for card, back in back_by_card.items():
            if card in self.hu:
                swap = m.new_int_var(0, min(self.hand_count[card], len(back)), "swap")
                m.add_min_equality(swap, [self.hu[card], _sum(back)])
                swaps.append(swap)
        self.played = _sum(self.hu.values()) - _sum(swaps)
        m.add(self.played >= 1)
        n_before = len(self.position.table)
        removed = [k for k, out in zip(self.held, self.removed, strict=True) if out]
        self.n_after = _sum(
            [
                *removed,
                *self.runs.values(),
                *self.groups.values(),
                *self.group_sets.values(),
                *(s.act for s in self.slots),
            ]
        )
        if opts.max_new_melds is not None:
            m.add(self.n_after - n_before <= opts.max_new_melds)
        if not opts.groups_may_grow:
            groups_before = sum(1 for r in self.before if r.kind is MeldKind.GROUP)
            kept_groups = [
                k
                for k, r, out in zip(self.held, self.before, self.removed, strict=True)
                if r.kind is MeldKind.GROUP and out
            ]
            groups_after = [
                *kept_groups,
                *self.groups.values(),
                *self.group_sets.values(),
                *(s.isgrp for s in self.slots),
            ]
            m.add(_sum(groups_after) <= groups_before)
        if opts.add_size == NO_ADD:
            m.add(self.n_after >= n_before + 1)
        elif opts.add_size is not None:
            # R8: a play that adds no meld must place as many cards as any add can.
            is_add = m.new_bool_var("is_add")
            m.add(self.n_after <= n_before).only_enforce_if(is_add)
            m.add(self.n_after >= n_before + 1).only_enforce_if(~is_add)
            m.add(self.played == opts.add_size).only_enforce_if(is_add)
        if opts.opening_points:
            m.add(self._laid_value() >= opts.opening_points)
        # Hand points left: every card's points, less those played, plus wilds taken back.
        hand_total = sum(rs.points(c) * k for c, k in self.hand_count.items())
        terms = [*self.hu.values(), *self.th.values()]
        weights = [-rs.points(c) for c in self.hu]
        weights += [rs.points(self.wilds[i].card) for i in self.th]
        self.hand_points_after = cp_model.LinearExpr.weighted_sum(terms, weights) + hand_total
        self.went_out = m.new_bool_var("went_out")
        m.add(self.played == sum(self.hand_count.values())).only_enforce_if(self.went_out)
        for v in self.th.values():
            m.add(v == 0).only_enforce_if(self.went_out)
        self.changed = len(self.keep) - _sum(self.keep)

    def structural_vars(self) -> list[cp_model.IntVar]:
        """The variables that determine the table after (for excluding a found solution).

        Not the keep flag of a linked meld: kept or rebuilt from the pool, the table is the
        same, and excluding only one of the two would find the same table again."""
        kept = [k for k, out in zip(self.held, self.removed, strict=True) if out]
        out: list[cp_model.IntVar] = [*self.hu.values(), *kept, *self.rel.values()]
        out += [*self.th.values(), *self.runs.values(), *self.groups.values()]
        out += [v for v in self.group_suits.values() if isinstance(v, cp_model.IntVar)]
        out += [*self.group_sets.values()]
        # A fill without a variable is a sum of runs, which are already here.
        out += [v for v in self.run_fill.values() if isinstance(v, cp_model.IntVar)]
        for slot in self.slots:
            out += [slot.act, slot.isrun, *slot.occ.values(), *slot.rsuit.values()]
            out += [*slot.nr.values(), *slot.wr.values(), *slot.grank.values()]
            out += [*slot.ng.values(), *slot.freeg.values()]
        out += [*self.fxp.values(), *self.fxg.values()]
        out += [*self.run_free.values(), *self.run_fixed.values()]
        out += [*self.group_free.values(), *self.group_fixed.values()]
        out += self.stand_ins.values()
        return out

    def _laid_value(self) -> cp_model.LinearExprT:
        """The value of everything laid this turn (rummikub's opening; jokers at their value)."""
        natural = sum(c.rank * v for c, v in self.hu.items() if c.is_ordinary)
        wild_runs = sum(rank_of_position(p) * (v) for s in self.slots for p, v in s.freep.items())
        wild_groups = sum(r * v for s in self.slots for r, v in s.freeg.items())
        pool = cp_model.LinearExpr.weighted_sum(
            [*self.run_free.values(), *self.group_free.values(), *self.stand_ins.values()],
            [rank_of_position(p) for p, _ in self.run_free]
            + list(self.group_free)
            + [rank for rank, _ in self.stand_ins],
        )
        return natural + wild_runs + wild_groups + pool
