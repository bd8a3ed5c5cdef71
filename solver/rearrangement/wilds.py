"""Wild accounting (R4, R5, R7): may the wilds of the table before end where the move puts them?

The rules
---------
A meld after the play *continues* a meld before it when it holds a card that was natural in
it and is natural again (R5). A wild on the table before keeps its value this turn unless it
is *released*: a natural card of exactly its value (rank, plus suit where it stood in a
same-suit sequence) is played from the hand into a meld continuing the wild's original meld;
one hand card releases one wild. An unreleased wild must stay on the table with a value that
agrees with its old one (a suited value moving into a group claims that suit there); in
vatikan (``wild_lineage``) it must also end in a meld continuing its original meld (R7). A
released wild may take any value and place, but stays on the table, except where
``released_wild_to_hand`` lets it go to the hand through ``to_hand`` (mexe-mexe).

Why a search
------------
Cards of the same code are interchangeable (two decks, two jokers), so the move does not
say which joker went where, which 9♥ came from the hand, or which copy of 7♠ carried the
link between two melds. The move is legal when *some* assignment of physical cards satisfies
every rule. The algorithm:

1. Every wild of the table before (a *before-wild*: its card, original meld, R5 value) gets
   a fate: a *slot* of the after table holding the same card code (unreleased, or released
   by a chosen *releaser* slot: a natural slot of matching value in a meld that can continue
   the wild's meld, filled by a hand copy), or ``to_hand`` (exactly as many as the move lists
   and the table held as wilds), or *missing* (at most the removed count, which conservation
   already reports). Slots and releasers are used once; releaser copies of a code are at most
   the copies of it the hand lays.
2. Each fate may need *links*: "after meld j continues before meld i". At a leaf of the
   search the links are checked together: each needs one copy of some card code that was
   natural in meld i and is natural, in a slot not used by a releaser or a wild, in meld j;
   copies are bounded per meld on both sides (a tiny backtracking over links). Every other
   copy is free to go anywhere, so these capacities are the whole condition (the remaining
   copies of each code always balance, given the conservation counts).
3. Phase 1 is a complete depth-first search over cost-free fates only: the wild rules hold
   iff it finds a leaf. Phase 2 (only when phase 1 fails) adds the fates that break a rule,
   each costing one violation, and finds an assignment with the fewest violations by
   branch and bound, capped at ``EXPLAIN_NODE_LIMIT`` nodes: those violations are reported.

Before-wilds are few (at most 2 jokers; at most 8 twos in mexe-mexe), each with a handful
of slots and releasers, so the search is tiny; most moves have no wild at all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import NamedTuple

from solver.core.cards import SUIT_GLYPHS, Card, TableCard, WildValue, rank_name
from solver.core.rulesets import Ruleset
from solver.core.violations import Violation, ViolationCode
from solver.rummy.conservation import CardFlow
from solver.rummy.melds import (
    MeldKind,
    Reading,
    RulesetKey,
    card_text,
    classify,
    memo_by_meld_and_reading,
    memo_by_meld_object,
    ruleset_key,
)
from solver.rummy.position import Position

EXPLAIN_NODE_LIMIT = 50_000

CardPlace = tuple[int, int]  # (meld index in the move's table, card index in the meld)
Link = tuple[int, int]  # (meld index before, meld index after)
# Suits claimed in groups: how many, and each as (meld cards, index in the meld, suit).
_Claims = tuple[int, list[tuple[tuple[str, ...], int, str]]]


def value_text(value: WildValue) -> str:
    """``9`` or ``9♥``."""
    return rank_name(value.rank) + (SUIT_GLYPHS[value.suit] if value.suit else "")


def meld_text(cards: Sequence[TableCard]) -> str:
    """A meld for a player's eyes: ``7♥ 8♠ JK``."""
    return " ".join(card_text(tc.card) for tc in cards)


class AfterMeld(NamedTuple):
    """A meld of the move's table with the reading chosen for it (None: invalid meld).

    A named tuple, not a frozen dataclass: the referee makes one per meld of every reading
    it judges, and a tuple is made in C (a frozen dataclass sets each field in Python)."""

    cards: tuple[TableCard, ...]
    reading: Reading | None

    def is_wild(self, ruleset: Ruleset, index: int) -> bool:
        if self.reading is None:
            return ruleset.is_always_wild(self.cards[index].card)
        return self.reading.wild[index]


@dataclass(frozen=True)
class BeforeWild:
    """A card acting as a wild on the table before the play, with its R5 value."""

    meld: int
    index: int
    card: Card
    value: WildValue  # rank, plus suit only where a same-suit sequence fixed one (R4)


def before_wilds(position: Position) -> list[BeforeWild]:
    """Every wild of the table before, with the value it must keep (R4, R5)."""
    key = ruleset_key(position.ruleset)
    return [
        BeforeWild(i, k, card, value)
        for i, meld in enumerate(position.table)
        for k, card, value in _wilds_of(key, meld)
    ]


@memo_by_meld_object
def _wilds_of(
    key: RulesetKey, meld: tuple[TableCard, ...]
) -> tuple[tuple[int, Card, WildValue], ...]:
    """A meld of the table before (valid: the parse checked): each wild's index, card and
    the value it must keep; kept per meld object, as most melds recur from call to call."""
    reading = classify(key.ruleset, meld).reading
    if True not in reading.wild:
        return ()
    suited = reading.kind is MeldKind.SEQUENCE and reading.suit is not None
    return tuple(
        (k, tc.card, WildValue(value.rank, value.suit if suited else None))
        for k, (tc, value, is_wild) in enumerate(
            zip(meld, reading.values, reading.wild, strict=True)
        )
        if is_wild
    )


@dataclass(frozen=True)
class _AfterFacts:
    """What the accounting reads of one meld after the play under one reading."""

    naturals: dict[Card, tuple[int, ...]]  # each natural card: its indices in the meld
    places: dict[Card, tuple[int, ...]]  # each card, wild or natural: its indices
    group_suits: frozenset[str]  # a group's suits (the values' where written)


def _read_after(
    key: RulesetKey, cards: tuple[TableCard, ...], reading: Reading | None
) -> _AfterFacts:
    if reading is not None:
        wild_flags: Sequence[bool] = reading.wild
    else:
        wild_flags = [key.ruleset.is_always_wild(tc.card) for tc in cards]
    naturals: dict[Card, list[int]] = {}
    places: dict[Card, list[int]] = {}
    for k, (tc, is_wild) in enumerate(zip(cards, wild_flags, strict=True)):
        places.setdefault(tc.card, []).append(k)
        if not is_wild:
            naturals.setdefault(tc.card, []).append(k)
    suits: frozenset[str] = frozenset()
    if reading is not None and reading.kind is MeldKind.GROUP:
        suits = frozenset(v.suit for v in reading.values if v.suit)
    return _AfterFacts(
        {card: tuple(ks) for card, ks in naturals.items()},
        {card: tuple(ks) for card, ks in places.items()},
        suits,
    )


# Kept per meld object and reading: the move's melds are interned by the parse and their
# readings come from ``classify``'s cache, so a meld seen before (most of a move's) costs a
# look-up instead of a pass over its cards.
_after_facts = memo_by_meld_and_reading(_read_after)


@memo_by_meld_object
def _naturals_before(key: RulesetKey, meld: tuple[TableCard, ...]) -> Counter[Card]:
    """The natural cards of a meld of the table before (valid: the parse checked), counted;
    shared between calls, so read, never changed."""
    wild = classify(key.ruleset, meld).reading.wild
    return Counter(tc.card for tc, w in zip(meld, wild, strict=True) if not w)


class Fate(Enum):
    """Where a before-wild ends."""

    SLOT = "slot"  # a slot of the after table
    BACK = "back"  # the hand, through to_hand
    MISSING = "missing"  # nowhere: conservation reports it


class Option(NamedTuple):
    """One possible fate of a before-wild, with what it needs and what it costs (a named
    tuple, as ``AfterMeld``: a wild has several, made on every judged move)."""

    fate: Fate
    dest: CardPlace | None = None
    releaser: CardPlace | None = None
    link: Link | None = None
    carried: tuple[int, str] | None = None  # (after meld, suit) claimed in a group
    violation: ViolationCode | None = None  # the rule this fate breaks, if any
    strayed: bool = False  # vatikan: it also left its meld's line (R7), a second violation

    @property
    def cost(self) -> int:
        return (self.violation is not None) + self.strayed


@dataclass
class WildOutcome:
    """The verdict of the wild accounting."""

    ok: bool
    violations: list[Violation] = field(default_factory=list)
    values: dict[CardPlace, WildValue] = field(default_factory=dict)  # suits carried into groups
    fates: list[tuple[BeforeWild, Option]] = field(default_factory=list)


class WildAccounting:
    """The search of the module docstring for one move and one reading of its melds."""

    def __init__(
        self,
        position: Position,
        after: Sequence[AfterMeld],
        flow: CardFlow,
    ) -> None:
        self.position = position
        self.ruleset = position.ruleset
        self.after = list(after)
        self.flow = flow
        self.wilds = before_wilds(position)
        self.hand_budget: Counter[Card] = flow.from_hand  # played & hand, read only
        # The natural cards the hand lays, by rank: a wild's releasers are among its rank's.
        self.laid_by_rank: dict[int, list[Card]] = {}
        for card in self.hand_budget:
            if card.is_ordinary:
                self.laid_by_rank.setdefault(card.rank, []).append(card)
        self.back_budget: Counter[Card] = Counter(
            {c: min(n, flow.wild_before[c]) for c, n in flow.back.items()}
        )
        self._index_tables()

    # --- static facts -----------------------------------------------------------------

    def _index_tables(self) -> None:
        key = ruleset_key(self.ruleset)
        # Links start at a wild's meld (its lineage, or its release), so only the few melds
        # that held a wild need their naturals: a large table has many more.
        self.nat_before: dict[int, Counter[Card]] = {
            i: _naturals_before(key, self.position.table[i])
            for i in sorted({w.meld for w in self.wilds})
        }
        # What each meld after holds, read once per meld object and reading (a move repeats
        # most of its melds, and melds recur across moves): natural slots by card, as
        # indices in the meld; every slot by card; a group's suits.
        facts = [_after_facts(key, meld.cards, meld.reading) for meld in self.after]
        self.natural_slots: list[dict[Card, tuple[int, ...]]] = [f.naturals for f in facts]
        self.group_suits: list[frozenset[str]] = [f.group_suits for f in facts]
        # Every slot of a card that was a wild before (only those are looked up).
        self.slots_by_card: dict[Card, list[CardPlace]] = {
            card: [(j, k) for j, f in enumerate(facts) for k in f.places.get(card, ())]
            for card in {w.card for w in self.wilds}
        }
        # Which after melds can continue each wild's meld: asked per wild meld when first
        # needed (a release's melds, vatikan's lineage), not for every pair up front.
        self._links_from: dict[int, list[int]] = {}

    def links_from(self, i: int) -> list[int]:
        """The after melds sharing a natural card with meld ``i`` before (the wild's meld), in
        table order: those a link from it can reach."""
        js = self._links_from.get(i)
        if js is None:
            nat = self.nat_before[i].keys()
            js = [j for j, slots in enumerate(self.natural_slots) if not nat.isdisjoint(slots)]
            self._links_from[i] = js
        return js

    @property
    def possible(self) -> set[Link]:
        """Every link some natural card could carry (wild meld before, meld after)."""
        return {(i, j) for i in self.nat_before for j in self.links_from(i)}

    def _releasers(self, wild: BeforeWild) -> list[CardPlace]:
        """Natural slots where a hand card of the wild's value would release it."""
        value = wild.value
        # The hand's laid cards are few: those of the wild's value, then their slots.
        releasing = {
            card
            for card in self.laid_by_rank.get(value.rank, ())
            if value.suit is None or value.suit == card.suit
        }
        if not releasing:
            return []
        out: list[CardPlace] = []
        for j in self.links_from(wild.meld):
            if self.after[j].reading is None:
                continue
            for card, ks in self.natural_slots[j].items():
                if card in releasing:
                    out.extend((j, k) for k in ks)
        return out

    def value_fits(self, wild: BeforeWild, slot: CardPlace) -> tuple[bool, tuple[int, str] | None]:
        """Does the slot keep the wild's value? Also the suit it would claim in a group."""
        j, k = slot
        meld = self.after[j]
        reading = meld.reading
        assert reading is not None
        value = reading.values[k]
        old = wild.value
        if value.rank != old.rank:
            return False, None
        if not reading.wild[k]:
            # A mexe-mexe 2 that turns natural stands for itself.
            return old.suit is None or old.suit == meld.cards[k].card.suit, None
        if reading.kind is MeldKind.SEQUENCE:
            suit = reading.suit
            return old.suit is None or suit is None or suit == old.suit, None
        if value.suit is not None:
            return old.suit is None or value.suit == old.suit, None
        if old.suit is not None and self.ruleset.melds.group_suits_distinct:
            return True, (j, old.suit)  # R4: it stands for that very card in the group
        return True, None

    def options(self, wild: BeforeWild) -> list[Option]:
        """Every fate of the wild, cost-free ones first."""
        free: list[Option] = []
        costly: list[Option] = []
        releasers = self._releasers(wild)
        lineage = self.ruleset.rearrangement.wild_lineage
        for slot in self.slots_by_card.get(wild.card, []):
            j = slot[0]
            if self.after[j].reading is None:
                free.append(Option(Fate.SLOT, dest=slot))  # INVALID_MELD says it all
                continue
            fits, carried = self.value_fits(wild, slot)
            kept = False
            if fits:
                if not lineage:
                    free.append(Option(Fate.SLOT, dest=slot, carried=carried))
                    kept = carried is None
                elif j in self.links_from(wild.meld):
                    free.append(Option(Fate.SLOT, dest=slot, carried=carried, link=(wild.meld, j)))
            if kept:
                continue  # releasing it here would gain nothing
            # Released, it may stand for anything here.
            free.extend(
                Option(Fate.SLOT, dest=slot, releaser=r, link=(wild.meld, r[0])) for r in releasers
            )
            if fits or not lineage:
                code = ViolationCode.WILD_MOVED if lineage else ViolationCode.WILD_VALUE_CHANGED
                costly.append(Option(Fate.SLOT, dest=slot, violation=code))
                continue
            # Vatikan, a new value: R5 broken, and R7 too unless the meld continues the
            # wild's own; every broken rule is listed (SPEC §4).
            changed = ViolationCode.WILD_VALUE_CHANGED
            if j in self.links_from(wild.meld):
                costly.append(Option(Fate.SLOT, dest=slot, violation=changed, link=(wild.meld, j)))
            costly.append(Option(Fate.SLOT, dest=slot, violation=changed, strayed=True))
        if self.back_budget[wild.card] > 0:
            if self.ruleset.rearrangement.released_wild_to_hand:
                free.extend(
                    Option(Fate.BACK, releaser=r, link=(wild.meld, r[0])) for r in releasers
                )
            costly.append(Option(Fate.BACK, violation=ViolationCode.WILD_TO_HAND))
        if self.flow.removed[wild.card] > 0:
            free.append(Option(Fate.MISSING))
        return free + costly

    # --- search -----------------------------------------------------------------------

    def run(self) -> WildOutcome:
        if not self.wilds:
            return WildOutcome(ok=True)
        opts = [self.options(w) for w in self.wilds]
        order = sorted(range(len(self.wilds)), key=lambda n: len(opts[n]))
        wilds = [self.wilds[n] for n in order]
        options = [opts[n] for n in order]
        state = _State(self, wilds)
        found = state.search(options, budget=0, node_limit=EXPLAIN_NODE_LIMIT)
        if found is None:
            # At most two violations a wild (a vatikan wild that strayed with a new value).
            found = state.search(options, budget=2 * len(wilds), node_limit=EXPLAIN_NODE_LIMIT)
        if found is None:
            # Unreachable (every wild has a costly fate that needs no link, within the
            # budget); a verdict here would be "legal" with no violation listed: fail loudly.
            raise RuntimeError("wild accounting: no fates within the violation budget")
        fates = list(zip(wilds, found, strict=True))
        outcome = WildOutcome(ok=all(o.violation is None for o in found), fates=fates)
        for wild, option in fates:
            if option.carried is not None and option.dest is not None:
                outcome.values[option.dest] = WildValue(wild.value.rank, option.carried[1])
            if option.violation is not None:
                outcome.violations.append(self.explain(wild, option))
            if option.strayed:
                moved = Option(Fate.SLOT, dest=option.dest, violation=ViolationCode.WILD_MOVED)
                outcome.violations.append(self.explain(wild, moved))
        return outcome

    def links_feasible(self, links: Sequence[Link], used: set[CardPlace]) -> bool:
        """Can every link be carried by its own natural copy (capacities per meld)?"""
        if not links:
            return True
        taken_from: Counter[tuple[int, Card]] = Counter()
        taken_into: Counter[tuple[int, Card]] = Counter()

        def capacity_into(j: int, card: Card) -> int:
            return sum(1 for k in self.natural_slots[j].get(card, ()) if (j, k) not in used)

        def assign(n: int) -> bool:
            if n == len(links):
                return True
            i, j = links[n]
            for card, count in self.nat_before[i].items():
                if taken_from[i, card] >= count:
                    continue
                if taken_into[j, card] >= capacity_into(j, card):
                    continue
                taken_from[i, card] += 1
                taken_into[j, card] += 1
                if assign(n + 1):
                    return True
                taken_from[i, card] -= 1
                taken_into[j, card] -= 1
            return False

        return assign(0)

    # --- explanations -----------------------------------------------------------------

    def explain(self, wild: BeforeWild, option: Option) -> Violation:
        card = card_text(wild.card)
        old = value_text(wild.value)
        origin = meld_text(self.position.table[wild.meld])
        if option.fate is Fate.BACK:
            if self.ruleset.rearrangement.released_wild_to_hand:
                text = (
                    f"{card} stood for {old} in {origin} and was not released: only a natural "
                    f"{old} played from the hand into that meld frees it to go to the hand (R5)"
                )
            else:
                text = (
                    f"{card} may not go to the hand: a wild replaced on the table must be used "
                    "again in a meld on the table (R5)"
                )
            return Violation(
                option.violation or ViolationCode.WILD_TO_HAND, text, "R5", -1, (wild.card.code,)
            )
        assert option.dest is not None
        j, k = option.dest
        meld = self.after[j]
        assert meld.reading is not None
        new = value_text(meld.reading.values[k])
        where = meld_text(meld.cards)
        if option.violation is ViolationCode.WILD_MOVED:
            text = (
                f"{card} (standing for {old}) moved from {origin} to {where} without being "
                f"replaced by a natural {old} from the hand; in {self.ruleset.name} a wild "
                "stays in its own meld until it is replaced (R7)"
            )
            return Violation(ViolationCode.WILD_MOVED, text, "R7", j, (wild.card.code,))
        fits, _ = self.value_fits(wild, option.dest)
        if fits:
            text = (
                f"{card} stood for {old} in {origin} and keeps that value, but the group "
                f"{where} already has a {old}; a wild from a same-suit sequence stands for "
                "that very card (R4, R5)"
            )
        else:
            text = (
                f"{card} stood for {old} in {origin} and now stands for {new} in {where}; "
                f"a wild keeps its value unless a natural {old} from the hand takes its place "
                "in that meld (R5)"
            )
        return Violation(ViolationCode.WILD_VALUE_CHANGED, text, "R5", j, (wild.card.code,))


class _State:
    """Mutable depth-first search state over the fates of the before-wilds."""

    def __init__(self, acc: WildAccounting, wilds: list[BeforeWild]) -> None:
        self.acc = acc
        self.wilds = wilds
        self.used: set[CardPlace] = set()
        self.hand_used: Counter[Card] = Counter()
        self.back_used: Counter[Card] = Counter()
        self.missing_used: Counter[Card] = Counter()
        self.links: Counter[Link] = Counter()
        self.carried: Counter[tuple[int, str]] = Counter()
        # Per depth, how many wilds after it have its wild's card (for the to_hand count):
        # the only count of the wilds left that the search reads.
        self.later_same: list[int] = [
            sum(1 for later in wilds[n + 1 :] if later.card == wild.card)
            for n, wild in enumerate(wilds)
        ]

    def _allowed(self, option: Option) -> bool:
        acc = self.acc
        if option.dest is not None and option.dest in self.used:
            return False
        if option.releaser is not None:
            if option.releaser in self.used or option.releaser == option.dest:
                return False
            card = acc.after[option.releaser[0]].cards[option.releaser[1]].card
            if self.hand_used[card] >= acc.hand_budget[card]:
                return False
        if option.carried is not None:
            j, suit = option.carried
            if suit in acc.group_suits[j] or self.carried[option.carried] > 0:
                return False
        return True

    def _apply(self, wild: BeforeWild, option: Option, sign: int) -> None:
        acc = self.acc
        for slot in (option.dest, option.releaser):
            if slot is not None:
                if sign > 0:
                    self.used.add(slot)
                else:
                    self.used.discard(slot)
        if option.releaser is not None:
            card = acc.after[option.releaser[0]].cards[option.releaser[1]].card
            self.hand_used[card] += sign
        if option.fate is Fate.BACK:
            self.back_used[wild.card] += sign
        if option.fate is Fate.MISSING:
            self.missing_used[wild.card] += sign
        if option.link is not None:
            self.links[option.link] += sign
        if option.carried is not None:
            self.carried[option.carried] += sign

    def _budgets_ok(self, depth: int, wild: BeforeWild, option: Option) -> bool:
        acc = self.acc
        card = wild.card
        if option.fate is Fate.BACK and self.back_used[card] >= acc.back_budget[card]:
            return False
        if option.fate is Fate.MISSING and self.missing_used[card] >= acc.flow.removed[card]:
            return False
        # Enough wilds of this card must remain to fill to_hand.
        still = acc.back_budget[card] - self.back_used[card] - (option.fate is Fate.BACK)
        return still <= self.later_same[depth]

    def _claims(self, chosen: Sequence[Option]) -> _Claims:
        """The suits the fates claim in groups, told apart by meld content, not position."""
        after = self.acc.after
        claims = sorted(
            (tuple(tc.card.code for tc in after[o.dest[0]].cards), o.dest[1], o.carried[1])
            for o in chosen
            if o.carried is not None and o.dest is not None
        )
        return len(claims), claims

    def search(
        self, options: list[list[Option]], budget: int, node_limit: int | None
    ) -> list[Option] | None:
        """The cheapest fates within ``budget`` violations.

        Among equally cheap fates, the fewest suits claimed in groups (a wild stays where it
        can stand as it stood), then the claims in meld-content order: the values written
        out then do not depend on the order of the move's melds. The search stops at the
        first leaf when no fate claims a suit, and after ``node_limit`` nodes once a leaf
        is found (a complete search until then).
        """
        canonical = any(o.carried is not None for opts in options for o in opts)
        best: list[Option] | None = None
        best_key: tuple[int, _Claims] | None = None
        chosen: list[Option] = []
        nodes = 0

        def dfs(depth: int, cost: int) -> bool:
            nonlocal best, best_key, nodes
            nodes += 1
            if node_limit is not None and nodes > node_limit and best is not None:
                return True  # stop: keep the best fates found so far
            if depth == len(self.wilds):
                links = [link for link, n in self.links.items() if n > 0]
                if self.acc.links_feasible(links, self.used):
                    key = (cost, self._claims(chosen))
                    if best_key is None or key < best_key:
                        best, best_key = list(chosen), key
                    return cost == 0 and not canonical
                return False
            wild = self.wilds[depth]
            # Within the budget; once a leaf is found, no dearer than it (and, unless the
            # claims decide between equally cheap fates, strictly cheaper).
            slack = 0 if canonical else 1
            limit = budget if best_key is None else best_key[0] - slack
            for option in options[depth]:
                if cost + option.cost > limit:
                    continue
                if not self._budgets_ok(depth, wild, option) or not self._allowed(option):
                    continue
                self._apply(wild, option, +1)
                chosen.append(option)
                stop = dfs(depth + 1, cost + option.cost)
                chosen.pop()
                self._apply(wild, option, -1)
                if stop:
                    return True
            return False

        dfs(0, 0)
        return best


def account_wilds(position: Position, after: Sequence[AfterMeld], flow: CardFlow) -> WildOutcome:
    """Run the wild accounting of the module docstring for one reading of the move."""
    if not flow.wild_before:
        return WildOutcome(ok=True)  # no wild on the table before: nothing to account for
    return WildAccounting(position, after, flow).run()
