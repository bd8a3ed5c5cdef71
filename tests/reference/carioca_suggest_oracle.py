"""The brute-force reference for carioca's suggestion (issue #53 on C2-C6) and the illegal
proposals it is tested on.

``CariocaOracle.nearest`` lists every legal turn of a small carioca position that lays only
the proposal's hand cards (before opening: every way to lay the deal's whole contract out of
them, C2-C4; after opening: every lay-off onto every meld, C5; then the discard, C6) and
picks by the keys of docs/rules.md "Carioca", "Suggestions": the most of the proposal's
hand cards laid and no other, the most proposal melds kept exactly, the fewest melds of the
table changed, the proposal's discard where it is still held, the fewest points left (C7).
It shares nothing with the CP-SAT search (``solver.contract.model``, ``search``,
``suggest``): the moves are built here from the rulings, the best one is re-judged by the
referee, and only the meld reader (``solver.contract.melds.readings``) is shared, to read a
proposed meld's jokers as the referee does.

``proposals`` makes illegal proposals the way players make them: from a legal turn or the
table as it was, a card moved between melds, a joker's value changed, a table card taken
back, an extra hand card added, a meld split or two merged, an opening short of its
contract, the discard forgotten or already laid.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from solver.contract.melds import readings
from solver.contract.referee import validate_contract_move
from solver.core.cards import JOKER_CARD, Card, TableCard, WildValue
from solver.rummy.melds import MeldKind
from solver.rummy.position import Meld, Move, Position

Keys = tuple[int, int, int, int, int]  # laid, kept, -changed, same discard, -points left
Key = tuple[tuple[str, str], ...]
POINTS = {1: 20, 11: 10, 12: 10, 13: 10}
CONTRACTS = {1: (2, 0), 2: (1, 1), 3: (0, 2), 4: (3, 0), 5: (2, 1), 6: (1, 2), 7: (0, 3)}
SUITS = "CDHS"


def points(card: Card) -> int:
    """C7: 2-10 face value, J Q K 10, A 20, joker 50."""
    if card.is_joker:
        return 50
    return POINTS.get(card.rank, card.rank)


def rank_at(place: int) -> int:
    return 1 if place == 14 else place


def key_of(meld: Sequence[TableCard]) -> Key:
    """The cards of a meld, each joker with what it stands for; order does not count."""
    return tuple(sorted((tc.card.code, tc.value.code if tc.value else "") for tc in meld))


def as_proposed(meld: Meld) -> Meld:
    """A proposed meld read as the referee reads it: the first reading as written (trio
    first), else in the order of the ranks (ace low, then high), else as written."""
    for ace in (None, 1, 14):
        cards = meld
        if ace is not None:
            cards = tuple(sorted(meld, key=lambda tc: _place(tc, ace)))
        found = readings(cards)
        if found:
            return found[0].normalized(cards)
    return meld


def _place(tc: TableCard, ace: int) -> int:
    rank = tc.value.rank if tc.value is not None else tc.card.rank
    return ace if rank == 1 else rank


def hand_cards_laid(position: Position, proposal: Move) -> Counter[Card]:
    """The hand cards the proposal laid: its table's copies beyond the position's table."""
    hand = Counter(position.hand)
    before = position.table_cards()
    after = proposal.table_cards()
    return +Counter({c: max(0, min(hand[c], after[c] - before[c])) for c in hand})


# --- the legal turns that lay only some given cards -------------------------------------------


def _trio(rank: int, naturals: Sequence[Card], jokers: int) -> Meld:
    return (
        tuple(TableCard(c) for c in naturals) + (TableCard(JOKER_CARD, WildValue(rank)),) * jokers
    )


def _openings_trios(cards: Counter[Card]) -> Iterator[tuple[Meld, Counter[Card]]]:
    """Every opening trio (C3): 3 naturals of a rank, or 2 and a joker."""
    ranks = sorted({c.rank for c in cards if not c.is_joker and cards[c] > 0})
    for rank in ranks:
        naturals = sorted(c for c in cards.elements() if not c.is_joker and c.rank == rank)
        for size, jokers in ((3, 0), (2, 1)):
            if jokers > cards[JOKER_CARD]:
                continue
            for chosen in sorted(set(itertools.combinations(naturals, size))):
                used = Counter(chosen)
                used[JOKER_CARD] += jokers
                yield _trio(rank, chosen, jokers), used


def _openings_sequences(cards: Counter[Card]) -> Iterator[tuple[Meld, Counter[Card]]]:
    """Every opening sequence (C3): 4 places of a suit, at most one a joker."""
    for suit in SUITS:
        for start in range(1, 12):
            window = [Card(rank_at(p), suit) for p in range(start, start + 4)]
            for joker_at in (None, 0, 1, 2, 3):
                needed = Counter(c for k, c in enumerate(window) if k != joker_at)
                if joker_at is not None:
                    needed[JOKER_CARD] += 1
                if needed - cards:
                    continue
                meld = tuple(
                    TableCard(JOKER_CARD, WildValue(c.rank, suit))
                    if k == joker_at
                    else TableCard(c)
                    for k, c in enumerate(window)
                )
                yield meld, needed


def openings(cards: Counter[Card], trios: int, sequences: int) -> Iterator[list[Meld]]:
    """Every way to lay the contract's melds out of ``cards`` (each set of melds once)."""
    seen: set[tuple[Key, ...]] = set()

    def walk(left: Counter[Card], t: int, s: int, laid: list[Meld]) -> Iterator[list[Meld]]:
        if t == 0 and s == 0:
            signature = tuple(sorted(key_of(m) for m in laid))
            if signature not in seen:
                seen.add(signature)
                yield list(laid)
            return
        options = _openings_trios(left) if t else _openings_sequences(left)
        for meld, used in options:
            yield from walk(left - used, t - (1 if t else 0), s - (0 if t else 1), [*laid, meld])

    yield from walk(+cards, trios, sequences, [])


def _trio_layoffs(
    meld: Meld, rank: int, cards: Counter[Card]
) -> Iterator[tuple[Meld, Counter[Card]]]:
    """Any cards of the trio's rank and any jokers (C5)."""
    kinds = sorted(c for c in cards if cards[c] > 0 and (c.is_joker or c.rank == rank))
    for counts in itertools.product(*(range(cards[c] + 1) for c in kinds)):
        used = Counter({c: n for c, n in zip(kinds, counts, strict=True) if n})
        naturals = [c for c in sorted(used.elements()) if not c.is_joker]
        grown = tuple(meld) + tuple(TableCard(c) for c in naturals)
        grown += (TableCard(JOKER_CARD, WildValue(rank)),) * used[JOKER_CARD]
        yield grown, used


def _runs(
    suit: str, places: Sequence[int], cards: Counter[Card], jokers: int
) -> Iterator[tuple[tuple[int, bool], ...]]:
    """Every run outward along ``places``: (place, is a joker) for its first k places, each
    natural one the cards hold, at most ``jokers`` jokers."""
    yield ()
    if not places:
        return
    place, rest = places[0], places[1:]
    natural = Card(rank_at(place), suit)
    if cards[natural] > 0:
        for tail in _runs(suit, rest, cards - Counter([natural]), jokers):
            yield ((place, False), *tail)
    if jokers > 0:
        for tail in _runs(suit, rest, cards, jokers - 1):
            yield ((place, True), *tail)


def _sequence_layoffs(
    position: Position, index: int, cards: Counter[Card]
) -> Iterator[tuple[Meld, Counter[Card]]]:
    """Naturals on joker places (the jokers then stand on new ends of the same sequence),
    runs at both ends, up to A-low and A-high (C5)."""
    reading = position.readings[index].reading
    suit = reading.suit or ""
    old = dict(zip(reading.positions, reading.wild, strict=True))
    joker_places = [p for p, wild in old.items() if wild]
    low, high = reading.positions[0], reading.positions[-1]
    spare = cards[JOKER_CARD] + len(joker_places)
    lows = list(_runs(suit, range(low - 1, 0, -1), cards, spare))
    highs = list(_runs(suit, range(high + 1, 15), cards, spare))
    for count in range(len(joker_places) + 1):
        for replaced in itertools.combinations(joker_places, count):
            for low_run in lows:
                for high_run in highs:
                    new = low_run + high_run
                    new_jokers = sum(1 for _p, joker in new if joker)
                    if new_jokers < len(replaced):
                        continue  # a replaced joker must stand on a new end (C5)
                    used: Counter[Card] = Counter(Card(rank_at(p), suit) for p in replaced)
                    used.update(Card(rank_at(p), suit) for p, joker in new if not joker)
                    used[JOKER_CARD] += new_jokers - len(replaced)
                    if used - cards:
                        continue
                    wild = {p: w and p not in replaced for p, w in old.items()}
                    wild.update(dict(new))
                    grown = tuple(
                        TableCard(JOKER_CARD, WildValue(rank_at(p), suit))
                        if wild[p]
                        else TableCard(Card(rank_at(p), suit))
                        for p in sorted(wild)
                    )
                    yield grown, +used


@dataclass(frozen=True)
class Turn:
    """A legal turn's play (the table after it and the hand cards laid)."""

    table: tuple[Meld, ...]
    laid: Counter[Card]
    changed: int


def turns(position: Position, cards: Counter[Card]) -> Iterator[Turn]:
    """Every legal play laying at least one of ``cards`` and no other hand card."""
    before = tuple(read.normalized for read in position.readings)
    if not position.turn.has_opened:
        trios, sequences = CONTRACTS[position.turn.deal_number]
        for melds in openings(cards, trios, sequences):
            laid: Counter[Card] = Counter(tc.card for m in melds for tc in m)
            yield Turn(before + tuple(melds), laid, 0)
        return

    def walk(i: int, left: Counter[Card], table: tuple[Meld, ...], changed: int) -> Iterator[Turn]:
        if i == len(before):
            laid = cards - left
            if laid:
                yield Turn(table, laid, changed)
            return
        reading = position.readings[i].reading
        if reading.kind is MeldKind.GROUP:
            options = _trio_layoffs(before[i], reading.rank, left)
        else:
            options = _sequence_layoffs(position, i, left)
        for grown, used in options:
            yield from walk(i + 1, left - used, (*table, grown), changed + (1 if used else 0))

    yield from walk(0, +cards, (), 0)


# --- the keys -----------------------------------------------------------------------------------


def kept(proposal: Move, table: Sequence[Meld]) -> int:
    """How many of the proposal's melds ``table`` holds exactly, each matched once."""
    left = Counter(key_of(m) for m in table)
    count = 0
    for meld in proposal.table:
        key = key_of(as_proposed(meld))
        if left[key] > 0:
            left[key] -= 1
            count += 1
    return count


def discard_keys(
    position: Position, laid: Counter[Card], proposal: Move
) -> tuple[int, int, Card] | None:
    """(same discard, -points left, the discard) for the best discard after ``laid``; None
    when no card is left to discard (C4, C6)."""
    left = Counter(position.hand) - laid
    if not left:
        return None
    total = sum(points(c) * n for c, n in left.items())
    if proposal.discard is not None and left[proposal.discard] > 0:
        return 1, -(total - points(proposal.discard)), proposal.discard
    costliest = max(left, key=points)
    return 0, -(total - points(costliest)), costliest


@dataclass(frozen=True)
class Nearest:
    """The reference's best keys and one turn reaching them (None: no suggestion)."""

    keys: Keys | None
    witness: Move | None
    wanted: Counter[Card]


def nearest(position: Position, proposal: Move) -> Nearest:
    wanted = hand_cards_laid(position, proposal)
    best: Keys | None = None
    witness: Move | None = None
    if position.turn.cards_drawn > 1 or not wanted:
        return Nearest(None, None, wanted)
    for turn in turns(position, wanted):
        ending = discard_keys(position, turn.laid, proposal)
        if ending is None:
            continue
        same, points_left, discard = ending
        keys = (
            sum(turn.laid.values()),
            kept(proposal, turn.table),
            -turn.changed,
            same,
            points_left,
        )
        if best is None or keys > best:
            best, witness = keys, Move(turn.table, discard=discard)
    if witness is not None:
        verdict = validate_contract_move(position, witness)
        assert verdict.legal, (witness, verdict.violations)
    return Nearest(best, witness, wanted)


def keys_of(position: Position, proposal: Move, move: Move, laid: Sequence[Card]) -> Keys:
    """The keys of any legal turn (the CP-SAT suggestion's, to compare)."""
    before = [read.normalized for read in position.readings]
    changed = sum(1 for i, meld in enumerate(before) if key_of(meld) != key_of(move.table[i]))
    left = Counter(position.hand) - Counter(laid)
    assert move.discard is not None
    left[move.discard] -= 1
    same = int(proposal.discard is not None and move.discard == proposal.discard)
    points_left = sum(points(c) * n for c, n in (+left).items())
    return (len(laid), kept(proposal, move.table), -changed, same, -points_left)


# --- proposals as players make them -------------------------------------------------------------


Table = list[list[TableCard]]


def _move_card(table: Table, rng: random.Random, position: Position) -> None:
    if len(table) >= 2:
        a, b = rng.sample(range(len(table)), 2)
        if table[a]:
            card = table[a].pop(rng.randrange(len(table[a])))
            table[b].insert(rng.randrange(len(table[b]) + 1), card)


def _change_joker(table: Table, rng: random.Random, position: Position) -> None:
    jokers = [(i, j) for i, m in enumerate(table) for j, tc in enumerate(m) if tc.card.is_joker]
    if jokers:
        i, j = rng.choice(jokers)
        suit = rng.choice((None, *SUITS))
        table[i][j] = TableCard(JOKER_CARD, WildValue(rng.randint(1, 13), suit))


def _take_back(table: Table, rng: random.Random, position: Position) -> None:
    melds = [i for i, m in enumerate(table) if m]
    if melds:
        i = rng.choice(melds)
        table[i].pop(rng.randrange(len(table[i])))


def _add_hand_card(table: Table, rng: random.Random, position: Position) -> None:
    card = TableCard(rng.choice(position.hand))
    if table and rng.random() < 0.7:
        meld = table[rng.randrange(len(table))]
        if rng.random() < 0.5:
            meld.append(card)
        else:
            meld.insert(rng.randrange(len(meld) + 1), card)
    else:
        table.append([card])


def _new_meld_from_hand(table: Table, rng: random.Random, position: Position) -> None:
    size = min(len(position.hand), rng.choice((3, 3, 4, 5)))
    table.append([TableCard(c) for c in rng.sample(list(position.hand), size)])


def _split(table: Table, rng: random.Random, position: Position) -> None:
    long = [i for i, m in enumerate(table) if len(m) >= 2]
    if long:
        i = rng.choice(long)
        cut = rng.randrange(1, len(table[i]))
        table[i], rest = table[i][:cut], table[i][cut:]
        table.append(rest)


def _merge(table: Table, rng: random.Random, position: Position) -> None:
    if len(table) >= 2:
        a, b = sorted(rng.sample(range(len(table)), 2))
        table[a] += table.pop(b)


def _short_contract(table: Table, rng: random.Random, position: Position) -> None:
    """An opening with a meld left out (C2, C4: the whole contract in one play)."""
    new = list(range(len(position.table), len(table)))
    if new:
        table.pop(rng.choice(new))


MUTATIONS = (
    _move_card,
    _change_joker,
    _take_back,
    _add_hand_card,
    _new_meld_from_hand,
    _split,
    _merge,
    _short_contract,
)


def _start(position: Position, legal: Sequence[Turn], rng: random.Random) -> Move:
    """A legal play (mostly) or the table as it was, with a discard from what is left."""
    if legal and rng.random() < 0.7:
        turn = rng.choice(legal)
        left = list((Counter(position.hand) - turn.laid).elements()) or list(position.hand)
        return Move(turn.table, discard=rng.choice(left))
    return Move(position.table, discard=rng.choice(position.hand))


def _discard_slip(move: Move, rng: random.Random, position: Position) -> Move:
    """Now and then the discard is forgotten or is a card the play laid."""
    roll = rng.random()
    if roll < 0.05:
        return Move(move.table)
    if roll < 0.1:
        laid = hand_cards_laid(position, move)
        if laid:
            return Move(move.table, discard=rng.choice(sorted(laid)))
    return move


LEGAL_TURNS_SHOWN = 400  # starts are drawn from at most this many legal plays


def proposals(position: Position, rng: random.Random, count: int, tries: int = 60) -> list[Move]:
    """Up to ``count`` distinct illegal proposals, each one or two mistakes away from a start."""
    legal = list(itertools.islice(turns(position, Counter(position.hand)), LEGAL_TURNS_SHOWN))
    out: list[Move] = []
    seen: set[tuple[tuple[tuple[str, ...], ...], str]] = set()
    for _ in range(tries):
        if len(out) >= count:
            break
        start = _start(position, legal, rng)
        table: Table = [list(m) for m in start.table]
        for mutate in rng.sample(MUTATIONS, rng.choice((1, 1, 2))):
            mutate(table, rng, position)
        melds = tuple(tuple(m) for m in table if m)
        proposal = _discard_slip(Move(melds, discard=start.discard), rng, position)
        signature = (
            tuple(tuple(tc.code for tc in m) for m in melds),
            proposal.discard.code if proposal.discard else "",
        )
        if signature in seen:
            continue
        seen.add(signature)
        if not validate_contract_move(position, proposal).legal:
            out.append(proposal)
    return out
