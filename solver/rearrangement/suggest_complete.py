"""The nearest legal move found by completing the proposal (issue #53), without CP-SAT.

Most illegal proposals are a few cards short of legal: every proposed meld but one or two
is a meld, and the nearest legal move keeps all of those and lays the rest of the cards
otherwise (on bench.suggest_bench's mexe-mexe proposals, 52 of 60 searched). Such a move
is provably the nearest:

* key 1: it lays exactly the proposal's hand cards, the most there is;
* key 2: it keeps every proposed meld that has a reading as a meld, and no table can keep a
  meld that has none (a kept meld is a meld of a legal table), so no table keeps more;
* key 3: every table that reaches both is those melds plus a partition of the cards left
  (the table's before and the proposal's hand cards, less the kept melds' and less the
  wilds taken back to the hand where R5 allows it). This module lists every such partition,
  every reading of each meld in it, and asks the referee about each table: the legal one
  changing the fewest melds before is the fewest any such table changes.

Where no listed table is legal, or too many cards are left to list them cheaply, the caller
searches the turn's model as before (``suggest._nearest``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations, permutations, product

from solver.core.cards import Card, TableCard
from solver.core.rulesets import Ruleset, SuitRule
from solver.rearrangement.search import (
    DEFAULT_TIME_LIMIT_MS,
    SearchUndecided,
    SolvedMove,
    max_cards_placed,
    solved_move,
    validate_move,
)
from solver.rearrangement.suggest_melds import read_meld
from solver.rearrangement.turns import PlacedOracle
from solver.rummy.melds import MeldKind, classify
from solver.rummy.position import Meld, Move, Position
from solver.rummy.table_change import StandsKey, stands_key

__all__ = ["MOST_CARDS_LEFT", "completed_move"]

# The most cards left to lay once the proposal's melds are kept: a mid table's proposals
# leave 3-7 (the cards of the one or two melds that are not melds); beyond, the listing
# grows faster than the model's search.
MOST_CARDS_LEFT = 9
# The longest proposed meld that is no meld but holds wilds whose ways to be read as a meld
# are listed (every order of its wilds among its naturals); longer ones leave it to the model.
MOST_WILD_MELD = 7
# The most tables the referee is asked about: past it the model's search is the cheaper.
MOST_TABLES = 48


def completed_move(
    position: Position,
    proposal: Move,
    wanted: Counter[Card],
    time_limit_ms: int = DEFAULT_TIME_LIMIT_MS,
    drop_one: bool = False,
) -> tuple[SolvedMove, int] | None:
    """The legal table keeping every proposed meld that is a meld and laying exactly the
    proposal's hand cards that changes the fewest melds before, with the number of those
    melds (the most any table keeps: the caller checks the table keeps them all); None
    where no such table is legal or where this way does not apply (the caller then
    searches the model). ``drop_one``: where no table keeps every one, each left out in
    turn (key 2 one short of its bound, still proved where every listing is whole)."""
    rs = position.ruleset
    forms = _proposed_forms(rs, proposal.table)
    if forms is None:
        return None
    listing = _Listing(position, proposal, wanted, _placed_oracle(time_limit_ms))
    best = listing.best_keeping(forms)
    if best is not None or listing.cut:
        return None if best is None else (best, len(forms))
    # No table keeps every keepable meld: each left out in turn, the fewest changed of all.
    for i in range(len(forms) if drop_one else 0):
        found = listing.best_keeping([*forms[:i], *forms[i + 1 :]])
        if listing.cut:
            return None
        if found is not None and (best is None or found.melds_changed < best.melds_changed):
            best = found
    return None if best is None else (best, len(forms) - 1)


class _Listing:
    """The tables listed for one proposal, each judged by the referee; ``cut`` once a
    bound on the listing (cards left, tables asked, R8's time) stopped it short."""

    def __init__(
        self, position: Position, proposal: Move, wanted: Counter[Card], oracle: PlacedOracle
    ) -> None:
        self.position = position
        self.proposal = proposal
        self.wanted = wanted
        self.oracle = oracle
        self.before = position.table_cards()
        self.in_play = self.before + wanted  # the cards a table after may hold
        self.asked = 0
        self.cut = False

    def best_keeping(self, forms: Sequence[Sequence[Meld]]) -> SolvedMove | None:
        """The legal table laying exactly the wanted cards and keeping a form of each of
        ``forms``' melds that changes the fewest melds before; None if none (or ``cut``)."""
        position, rs = self.position, self.position.ruleset
        best: SolvedMove | None = None
        for kept in product(*forms):
            left = Counter(self.in_play)
            for meld in kept:
                for tc in meld:
                    left[tc.card] -= 1
            if any(n < 0 for n in left.values()):
                continue  # the forms use cards that are not there
            left = +left
            if sum(left.values()) > MOST_CARDS_LEFT:
                self.cut = True
                return None
            for to_hand in _taken_back(position, self.before, left):
                rest = sorted((left - Counter(to_hand)).elements())
                for melds in _partitions(rs, rest):
                    self.asked += 1
                    if self.asked > MOST_TABLES:
                        self.cut = True
                        return None
                    proposal = self.proposal
                    move = Move((*kept, *melds), to_hand, proposal.knock, proposal.discard)
                    try:
                        solved = _legal(position, move, self.oracle)
                    except SearchUndecided:
                        self.cut = True  # R8's question not settled in time
                        return None
                    if solved is None or Counter(solved.verdict.played) != self.wanted:
                        continue
                    if best is None or solved.melds_changed < best.melds_changed:
                        best = solved
        return best


def _proposed_forms(rs: Ruleset, table: Sequence[Meld]) -> list[list[Meld]] | None:
    """Per proposed meld some table may keep, the melds that keep it (the same cards with
    the same key 2: its wilds' ranks, not their suits), laid in order with their wilds
    written out. A meld is kept in its reading (forms of one key differ only in a wild's
    suit or a 2 standing for its own rank, which neither the rules nor key 3 compare); one
    that is no meld by itself, too short or of naturals only, is kept by no table; one
    that holds wilds may still be kept in another reading (``2C=2D 2H=3D 2S=4D`` by
    ``2C 2H=3C 2S=4C``): those are listed. None where a meld reads several ways or is too
    long to list: the model decides."""
    smallest = min(rs.melds.min_sequence, rs.melds.group_min)
    forms: list[list[Meld]] = []
    for meld in table:
        classified = read_meld(rs, meld)
        if classified.readings or classified.fallbacks:
            if not classified.ok:
                return None  # it reads several ways: which one to keep is the model's
            forms.append([_in_order(classified.reading, classified.normalized)])
            continue
        if len(meld) < smallest or not any(rs.is_wild_card(tc.card) for tc in meld):
            continue  # no meld, and no table keeps it
        if len(meld) > MOST_WILD_MELD:
            return None
        key = _stands(meld)
        same = [m for m in _melds_of(rs, tuple(tc.card for tc in meld)) if _stands(m) == key]
        if same:
            forms.append(same)
    return forms


def _stands(meld: Sequence[TableCard]) -> StandsKey:
    """A meld's key 2: its cards and its wilds' ranks, in any order (``suggest._after_key``)."""
    return stands_key((tc.card, tc.value) for tc in meld)


def _taken_back(
    position: Position, before: Counter[Card], left: Counter[Card]
) -> Iterator[tuple[Card, ...]]:
    """Every choice of the table's wilds (``before``: the table's cards) left over that go
    back to the hand (mexe-mexe's 2s, R5); only the empty one elsewhere. The referee says
    which are allowed."""
    yield ()
    rs = position.ruleset
    if not rs.rearrangement.released_wild_to_hand:
        return
    wilds = sorted(card for card in left.elements() if rs.is_wild_card(card) and before[card] > 0)
    seen: set[tuple[Card, ...]] = set()
    for size in range(1, len(wilds) + 1):
        for chosen in combinations(wilds, size):
            counts = Counter(chosen)
            if chosen not in seen and all(n <= before[c] for c, n in counts.items()):
                seen.add(chosen)
                yield chosen


def _partitions(rs: Ruleset, cards: list[Card]) -> Iterator[list[Meld]]:
    """Every way to lay ``cards`` (sorted) as melds, each meld in each of its readings."""
    if not cards:
        yield []
        return
    first, rest = cards[0], cards[1:]
    smallest = min(rs.melds.min_sequence, rs.melds.group_min)
    seen: set[tuple[Card, ...]] = set()
    for size in range(smallest - 1, len(rest) + 1):
        if len(rest) - size in (1, 2) and smallest >= 3:
            continue  # one or two cards would be left, which no meld holds
        for picked in combinations(range(len(rest)), size):
            chosen = (first, *(rest[i] for i in picked))
            if chosen in seen:
                continue  # the same cards again (two decks' copies)
            seen.add(chosen)
            taken = set(picked)
            remaining = [card for i, card in enumerate(rest) if i not in taken]
            for meld in _melds_of(rs, chosen):
                for others in _partitions(rs, remaining):
                    yield [meld, *others]


def _melds_of(rs: Ruleset, cards: tuple[Card, ...]) -> list[Meld]:
    """Every meld these cards make, one per reading, wilds written out (empty if none)."""
    if not _may_be_meld(rs, cards):
        return []
    found: dict[tuple[TableCard, ...], Meld] = {}
    for order in _orders(rs, cards):
        classified = classify(rs, order)
        for reading in (*classified.readings, *classified.fallbacks):
            meld = _in_order(reading, reading.normalized(classified.cards))
            found.setdefault(tuple(sorted(meld, key=_sort_key)), meld)
    return list(found.values())


def _may_be_meld(rs: Ruleset, cards: tuple[Card, ...]) -> bool:
    """A quick "no" for cards no meld holds: the naturals (cards that cannot act as wilds)
    neither share a rank (a group) nor fit one run."""
    naturals = [card for card in cards if not rs.is_wild_card(card)]
    if len(naturals) <= 1:
        return True
    rules = rs.melds
    group = len({c.rank for c in naturals}) == 1 and len(cards) <= rules.group_max
    if group:
        return True
    if len(cards) > rules.max_sequence + 1:
        return False
    if rules.sequence_suits is SuitRule.SAME_SUIT and len({c.suit for c in naturals}) > 1:
        return False
    ranks = [c.rank for c in naturals]
    if len(set(ranks)) < len(ranks):
        return False  # a run holds one card of each rank
    high = [14 if r == 1 else r for r in ranks]
    return any(max(rs_) - min(rs_) < len(cards) for rs_ in (ranks, high))


def _orders(rs: Ruleset, cards: tuple[Card, ...]) -> Iterator[tuple[TableCard, ...]]:
    """The orders to read the cards in: the naturals by rank (the ace low, then high), with
    the wild-capable cards put in every place among them, in every order of their own (a
    run reads its cards in order, and which 2 stands where is another meld: ``AS 2S 2D=3S``
    is not ``AS 2D=2S 2S=3S``)."""
    wilds = [card for card in cards if rs.is_wild_card(card)]
    naturals = [card for card in cards if not rs.is_wild_card(card)]
    wild_orders = sorted(set(permutations(wilds)))
    for ace in (1, 14):
        line = sorted(naturals, key=lambda c: (ace if c.rank == 1 else c.rank, c.suit))
        for places in combinations(range(len(cards)), len(wilds)):
            for wild_order in wild_orders:
                order: list[Card] = []
                wild_iter, natural_iter = iter(wild_order), iter(line)
                for i in range(len(cards)):
                    order.append(next(wild_iter) if i in places else next(natural_iter))
                yield tuple(TableCard(card) for card in order)


def _in_order(reading: object, meld: Sequence[TableCard]) -> Meld:
    """A run's cards by the rank each stands for (the referee reads a run in order)."""
    positions = getattr(reading, "positions", ())
    if getattr(reading, "kind", None) is MeldKind.SEQUENCE and positions:
        pairs = sorted(zip(positions, range(len(meld)), strict=True))
        return tuple(meld[i] for _, i in pairs)
    return tuple(meld)


def _sort_key(tc: TableCard) -> tuple[Card, str]:
    return tc.card, tc.value.code if tc.value is not None else ""


def _placed_oracle(time_limit_ms: int) -> PlacedOracle:
    """R8's search (shangai, manipulation: the most cards a play may lay), asked once per
    question for all the tables listed, which share the position."""
    answers: dict[tuple[int, int | None], int] = {}

    def most_placed(position: Position, max_new_melds: int | None) -> int:
        key = (id(position), max_new_melds)
        if key not in answers:
            answers[key] = max_cards_placed(position, max_new_melds, time_limit_ms)
        return answers[key]

    return most_placed


def _legal(position: Position, move: Move, oracle: PlacedOracle) -> SolvedMove | None:
    """The move with its effects where the referee calls it legal (without the knock the
    proposal asked for where only that is wrong, R10), else None."""
    verdict = validate_move(position, move, max_placed=oracle)
    if not verdict.legal and move.knock:
        move = Move(move.table, move.to_hand, False, move.discard)
        verdict = validate_move(position, move, max_placed=oracle)
    return solved_move(position, move, verdict) if verdict.legal else None
