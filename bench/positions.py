"""Seeded random positions of the rearrangement rulesets, built from the ruleset data.

A position is made by cutting the **whole deck** into valid melds, laying a random choice of
those melds as the table, and dealing the hand from what is left. Cutting the deck (rather
than picking melds one by one until nothing fits) reaches tables of any size up to the whole
deck, and every table is valid by construction:

1. every suit and deck copy starts as one sequence of 13 cards (where the ace may be high,
   at random A…K or 2…A);
2. groups are cut out of those sequences at random ranks, only where the pieces left on either
   side are empty or ≥ 3 long, with distinct suits (R3);
3. long sequences are cut at random into pieces of ≥ 3 (R2);
4. where sequences may mix suits (carrossel), cards of equal rank are swapped at random
   between sequences;
5. wilds are put on the table by replacing one natural card of a meld (at most one per meld,
   its value written: ``JK=9H`` in same-suit sequences, ``JK=9`` elsewhere; mexe-mexe's 2s
   likewise, ``2H=9H``); the natural card goes back to the stock, so a hand may hold it and
   release the wild (R5).

Only ``random.Random(seed)`` is used, so a seed always gives the same positions.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from solver.core.cards import JOKER_CARD, SUITS, Card, parse_table_card, rank_name
from solver.core.rulesets import Ruleset, SuitRule, get_ruleset, rank_of_position
from solver.rummy.melds import MeldKind, classify
from solver.rummy.position import Position, Turn, parse_position

Span = tuple[str, int, int]  # a sequence still being cut: suit, first and last rank position


@dataclass(frozen=True)
class PositionSpec:
    """A generated position, as the card codes a client would send."""

    name: str
    ruleset: str
    players: int
    table: tuple[tuple[str, ...], ...]
    hand: tuple[str, ...]
    turn: Turn

    @property
    def table_size(self) -> int:
        return sum(len(meld) for meld in self.table)

    def position(self) -> Position:
        """Parse (and so check) the position."""
        return parse_position(self.ruleset, self.players, self.table, self.hand, self.turn)

    def describe(self) -> str:
        """One line to paste into a test or ``carrossel hint``."""
        table = " | ".join(" ".join(meld) for meld in self.table)
        return f"{self.name} [{self.ruleset}] table: {table or '-'} ; hand: {' '.join(self.hand)}"


def _cuttable(span: Span, pos: int) -> bool:
    _, first, last = span
    left, right = pos - first, last - pos
    return first <= pos <= last and left in (0, *range(3, 14)) and right in (0, *range(3, 14))


def _cut(span: Span, pos: int) -> list[Span]:
    suit, first, last = span
    out: list[Span] = []
    if pos > first:
        out.append((suit, first, pos - 1))
    if pos < last:
        out.append((suit, pos + 1, last))
    return out


def _position_of(span: Span, rank: int) -> int:
    _, first, last = span
    for pos in range(first, last + 1):
        if rank_of_position(pos) == rank:
            return pos
    return -1


def _split(rng: random.Random, span: Span, keep_long: float) -> list[Span]:
    """Cut a sequence at random into pieces of ≥ 3 (sometimes keeping it long)."""
    suit, first, last = span
    length = last - first + 1
    if length < 6 or rng.random() < keep_long:
        return [span]
    at = rng.randint(first + 3, last - 2)  # the right piece starts here
    return _split(rng, (suit, first, at - 1), keep_long) + _split(rng, (suit, at, last), keep_long)


def partition_deck(rng: random.Random, ruleset: Ruleset, players: int) -> list[list[Card]]:
    """Every natural card of the deck, cut into valid melds (sequences ascending)."""
    spec = ruleset.deck_spec(players)
    if spec is None:
        raise ValueError(f"{ruleset.id} is not for {players} players")
    allowed = ruleset.sequence_positions
    spans: list[Span] = []
    for suit in SUITS:
        for _ in range(spec.decks):
            first = allowed.start if len(allowed) == 13 else rng.choice((1, 2))
            spans.append((suit, first, first + 12))
    groups: list[list[Card]] = []
    for _ in range(rng.randint(0, 16)):
        rank = rng.randint(1, 13)
        by_suit: dict[str, list[int]] = {}
        for i, span in enumerate(spans):
            pos = _position_of(span, rank)
            if pos >= 0 and _cuttable(span, pos):
                by_suit.setdefault(span[0], []).append(i)
        if len(by_suit) < ruleset.melds.group_min:
            continue
        size = rng.randint(ruleset.melds.group_min, min(ruleset.melds.group_max, len(by_suit)))
        chosen = sorted(rng.sample(sorted(by_suit), size))
        cut_at = {rng.choice(by_suit[suit]) for suit in chosen}
        kept: list[Span] = []
        for i, span in enumerate(spans):
            kept.extend(_cut(span, _position_of(span, rank)) if i in cut_at else [span])
        spans = kept
        groups.append([Card(rank, suit) for suit in chosen])
    keep_long = rng.choice((0.0, 0.2, 0.5))
    pieces = [piece for span in spans for piece in _split(rng, span, keep_long)]
    runs = [
        [Card(rank_of_position(pos), suit) for pos in range(first, last + 1)]
        for suit, first, last in pieces
    ]
    if ruleset.melds.sequence_suits is SuitRule.ANY_SUIT:
        _mix_suits(rng, runs)
    return runs + groups


def _mix_suits(rng: random.Random, runs: list[list[Card]]) -> None:
    """Swap cards of equal rank between sequences (valid where suits do not matter)."""
    places: dict[int, list[tuple[int, int]]] = {}
    for r, run in enumerate(runs):
        for i, card in enumerate(run):
            places.setdefault(card.rank, []).append((r, i))
    for _ in range(4 * len(runs)):
        spots = places.get(rng.randint(1, 13), [])
        if len(spots) < 2:
            continue
        (r1, i1), (r2, i2) = rng.sample(spots, 2)
        runs[r1][i1], runs[r2][i2] = runs[r2][i2], runs[r1][i1]


def _codes(
    ruleset: Ruleset, meld: Sequence[Card], wild_at: int, wild: Card = JOKER_CARD
) -> tuple[str, ...]:
    """A meld as codes, with ``wild`` (and its written value) in place of one card."""
    is_group = len({c.rank for c in meld}) == 1
    out: list[str] = []
    for i, card in enumerate(meld):
        if i != wild_at:
            out.append(card.code)
            continue
        suited = not is_group and ruleset.melds.sequence_suits is SuitRule.SAME_SUIT
        out.append(f"{wild.code}={rank_name(card.rank)}{card.suit if suited else ''}")
    return tuple(out)


def _put_twos(
    rng: random.Random,
    ruleset: Ruleset,
    table: list[list[Card]],
    coded: list[tuple[str, ...]],
    stock: Counter[Card],
    melds: list[int],
) -> None:
    """Mexe-mexe's wild 2s on the table: in each of ``melds``, a 2 of the stock takes one
    card's place, its value written (``2H=7S``); the card goes back to the stock, so a hand
    may hold it and release the 2 (R5)."""
    for m in melds:
        free = sorted(c for c, n in stock.items() if n > 0 and c.rank == 2)
        if not free:
            return
        two = rng.choice(free)
        at = rng.randrange(len(table[m]))
        stock[two] -= 1
        stock[table[m][at]] += 1
        coded[m] = _codes(ruleset, table[m], at, two)


def random_position(
    rng: random.Random,
    ruleset_id: str,
    *,
    table_size: tuple[int, int],
    hand_size: tuple[int, int],
    table_jokers: int = 0,
    table_twos: int = 0,
    hand_jokers: int = 0,
    hand_melds: int = 0,
    jokers_in_groups: bool = True,
    players: int | None = None,
    turn: Turn | None = None,
    name: str = "",
) -> PositionSpec:
    """A random position with a table of ``table_size`` cards (inclusive bounds).

    The hand has ``hand_size`` cards where the stock allows (a table of 100 leaves 6), of which
    ``hand_jokers`` jokers where the deck has them left. ``table_jokers`` replace one card of as
    many melds (only sequences unless ``jokers_in_groups``); where 2s are wild (mexe-mexe),
    ``table_twos`` 2s from the stock replace one card of as many other melds that hold no 2.
    With ``hand_melds``, the hand
    starts with up to that many whole melds of the cut deck that are not on the table, and its
    jokers replace a card of those melds (so the jokers are needed: at a sequence's end, in a
    group of 4, …); the rest of the hand is dealt at random. The default turn is one in which
    a play is allowed: rummikub opened, carrossel one card drawn.
    """
    ruleset = get_ruleset(ruleset_id)
    if ruleset is None:
        raise ValueError(f"unknown ruleset {ruleset_id!r}")
    players = players or max(ruleset.min_players, 3)
    turn = turn or Turn(cards_drawn=1 if ruleset.id == "carrossel" else 0, has_opened=True)
    deck = ruleset.deck(players)
    low, high = table_size
    target = rng.randint(low, high)
    for _ in range(1000):
        melds = partition_deck(rng, ruleset, players)
        rng.shuffle(melds)
        table: list[list[Card]] = []
        spare: list[list[Card]] = []
        size = 0
        for meld in melds:
            if size + len(meld) <= target:
                table.append(meld)
                size += len(meld)
            else:
                spare.append(meld)
        if low <= size <= high:
            break
    else:  # pragma: no cover - the deck always cuts into 3-card melds often enough
        raise RuntimeError(f"no table of {low}-{high} cards from {ruleset.id}'s deck")
    candidates = [
        m for m, meld in enumerate(table) if jokers_in_groups or len({c.rank for c in meld}) > 1
    ]
    wild_melds = set(rng.sample(candidates, min(table_jokers, deck[JOKER_CARD], len(candidates))))
    coded: list[tuple[str, ...]] = []
    stock = Counter({card: n for card, n in deck.items() if not card.is_joker})
    for m, meld in enumerate(table):
        wild_at = rng.randrange(len(meld)) if m in wild_melds else -1
        coded.append(_codes(ruleset, meld, wild_at))
        stock.subtract(c for i, c in enumerate(meld) if i != wild_at)
    if table_twos and ruleset.is_wild_card(Card(2, SUITS[0])):
        plain = [
            m
            for m, meld in enumerate(table)
            if m not in wild_melds and all(c.rank != 2 for c in meld)
        ]
        _put_twos(rng, ruleset, table, coded, stock, rng.sample(plain, min(table_twos, len(plain))))
    jokers_left = deck[JOKER_CARD] - len(wild_melds)
    want = rng.randint(*hand_size)
    wilds = min(hand_jokers, jokers_left, want)
    hand: list[Card] = []
    if hand_melds:
        for meld in spare[:hand_melds]:
            # A 2 the table took from the stock (``table_twos``) may sit in a spare meld.
            if len(hand) + len(meld) <= want and not Counter([*hand, *meld]) - stock:
                hand.extend(meld)
        for _ in range(min(wilds, len(hand))):
            hand.pop(rng.randrange(len(hand)))  # a joker takes this card's place
        stock.subtract(hand)
    naturals = sorted(stock.elements())
    fill = min(want - wilds - len(hand), len(naturals))
    hand = [*hand, *rng.sample(naturals, max(fill, 0)), *[JOKER_CARD] * wilds]
    hand.sort(key=lambda c: (c.is_joker, c.rank, c.suit))
    return PositionSpec(
        name=name,
        ruleset=ruleset.id,
        players=players,
        table=tuple(coded),
        hand=tuple(c.code for c in hand),
        turn=turn,
    )


SIZES: dict[str, tuple[int, int]] = {
    "small": (0, 20),
    "mid": (30, 60),
    "large": (70, 100),
    "fit": (70, 100),
    "hard": (70, 100),
    "jokers": (30, 60),
}
"""The benchmark's table sizes in cards: ≤ 20, 30-60 and 70-100; ``fit`` is large tables
with hands that fit them (``fitting_hand``), the hard case of real play; ``hard`` is the
same tables with hands that fit only through rearrangements: splits, two-card joins,
released wilds, run ends given up to groups (``rearranging_hand``); ``jokers`` is mid tables
holding 1-2 jokers (Rummikub's only positions with table jokers)."""

DEFAULT_SIZES = ("small", "mid", "large", "fit", "hard")
"""The sizes a bench runs when not told (``jokers`` only when asked)."""

FIT_HAND = (8, 14)
"""Hand sizes of the ``fit`` positions."""

HAND_SIZES: dict[str, tuple[int, int]] = {
    "rummikub": (6, 20),
    "carrossel": (5, 15),
    "mexe-mexe": (5, 15),
    "vatikan": (5, 15),
    "shangai": (5, 15),
    "manipulation": (5, 15),
}


def _table_shapes(
    ruleset: Ruleset, table: Sequence[Sequence[str]]
) -> tuple[list[tuple[int, int, str]], list[tuple[int, set[str]]], list[Card]]:
    """The table's runs (first and last rank position, suit or ""), groups (rank, suits) and
    the naturals its wilds stand for (a hand card of that value releases one, R5)."""
    runs: list[tuple[int, int, str]] = []
    groups: list[tuple[int, set[str]]] = []
    releasers: list[Card] = []
    for meld in table:
        cards = tuple(parse_table_card(code) for code in meld)
        reading = classify(ruleset, cards).readings[0]
        natural_suits = {tc.card.suit for tc, w in zip(cards, reading.wild, strict=True) if not w}
        if reading.kind is MeldKind.GROUP:
            groups.append((reading.rank, natural_suits))
            missing = [s for s in SUITS if s not in natural_suits]
            releasers += [Card(reading.rank, s) for s in missing[: sum(reading.wild)]]
            continue
        runs.append((reading.positions[0], reading.positions[-1], reading.suit or ""))
        for value, wild in zip(reading.values, reading.wild, strict=True):
            if wild:
                releasers.append(Card(value.rank, value.suit or rng_suit(value.rank)))
    return runs, groups, releasers


def rng_suit(rank: int) -> str:
    """A suit for the natural that releases an any-suit run's wild (any suit does, R5)."""
    return SUITS[rank % len(SUITS)]


def fitting_hand(
    rng: random.Random, spec: PositionSpec, size: tuple[int, int], jokers: int
) -> PositionSpec:
    """``spec`` with a new hand of cards that fit its table: ends that extend its runs, cards
    that fill the gap between two runs (a join), suits a group lacks, the naturals that release
    its wilds (R5), and pairs that make a group with a run's end card; the rest at random."""
    ruleset = get_ruleset(spec.ruleset)
    assert ruleset is not None
    deck = ruleset.deck(spec.players)
    stock = Counter(deck)
    stock.subtract(parse_table_card(code).card for meld in spec.table for code in meld)
    runs, groups, releasers = _table_shapes(ruleset, spec.table)
    suits_of = _run_suits(ruleset)
    allowed = ruleset.sequence_positions
    fits: list[Card] = list(releasers)
    for first, last, suit in runs:
        for pos in (first - 1, last + 1):
            if pos in allowed:
                fits += [Card(rank_of_position(pos), s) for s in suits_of(suit or "C")]
        for other_first, _, other_suit in runs:  # a one-card gap joins two runs
            if other_first == last + 2 and (other_suit == suit or not suit):
                fits += [Card(rank_of_position(last + 1), s) for s in suits_of(suit or "C")]
        if last - first >= 3:  # a run of 4+ gives up an end card to a group of the hand's pair
            end = rank_of_position(last)
            fits += [Card(end, s) for s in SUITS] * 2
    for rank, suits in groups:
        fits += [Card(rank, s) for s in SUITS if s not in suits]
    rng.shuffle(fits)
    want = rng.randint(*size)
    return _with_hand(rng, spec, stock, fits, want, want * 3 // 4, jokers)


def rearranging_hand(
    rng: random.Random, spec: PositionSpec, size: tuple[int, int], jokers: int
) -> PositionSpec:
    """``spec`` with a new hand (three quarters to all of it) of cards that fit its table only
    through a rearrangement: the naturals that release its wilds (R5), cards that split a
    long run (a rank inside it, so both halves keep ≥ 3), cards two ranks past a run's end
    (laid only with the card between, from the hand or another meld) and the end cards of
    runs of 4+ (a group with the end given up); the rest at random. On carrossel's
    any-suit tables nearly every such hand still goes out (bench/HISTORY.md), but finding
    a table that does, and that changes few melds, takes the search longer than with
    ``fitting_hand``'s plain extensions."""
    ruleset = get_ruleset(spec.ruleset)
    assert ruleset is not None
    stock = Counter(ruleset.deck(spec.players))
    stock.subtract(parse_table_card(code).card for meld in spec.table for code in meld)
    runs, _, releasers = _table_shapes(ruleset, spec.table)
    suits_of = _run_suits(ruleset)
    allowed = ruleset.sequence_positions
    fits: list[Card] = list(releasers)
    for first, last, suit in runs:
        for pos in (first - 2, last + 2):
            if pos in allowed:
                fits += [Card(rank_of_position(pos), s) for s in suits_of(suit or "C")]
        for pos in range(first + 2, last - 1):  # both halves of the split keep ≥ 3 cards
            fits += [Card(rank_of_position(pos), s) for s in suits_of(suit or "C")]
        if last - first >= 3:  # a run of 4+ gives up an end card to a group of the hand's pair
            fits += [Card(rank_of_position(last), s) for s in SUITS]
            fits += [Card(rank_of_position(first), s) for s in SUITS]
    rng.shuffle(fits)
    want = rng.randint(*size)
    share = rng.uniform(3 / 4, 1)
    return _with_hand(rng, spec, stock, fits, want, round(want * share), jokers)


def _run_suits(ruleset: Ruleset) -> Callable[[str], list[str]]:
    """The suits a card extending a run of ``suit`` may have: that one, or any."""
    if ruleset.melds.sequence_suits is SuitRule.SAME_SUIT:
        return lambda suit: [suit]
    return lambda suit: list(SUITS)


def _with_hand(
    rng: random.Random,
    spec: PositionSpec,
    stock: Counter[Card],
    fits: list[Card],
    want: int,
    fitting: int,
    jokers: int,
) -> PositionSpec:
    """``spec`` with a hand of ``want`` cards: up to ``fitting`` of ``fits`` (in their order,
    while the stock holds them), then up to ``jokers`` jokers and random naturals."""
    hand: list[Card] = []
    for card in fits:
        if len(hand) >= fitting:
            break
        if stock[card] > 0:
            stock[card] -= 1
            hand.append(card)
    wilds = min(jokers, stock[JOKER_CARD], want - len(hand))
    naturals = sorted(c for c in stock.elements() if not c.is_joker)
    hand += rng.sample(naturals, max(0, min(want - len(hand) - wilds, len(naturals))))
    hand += [JOKER_CARD] * wilds
    hand.sort(key=lambda c: (c.is_joker, c.rank, c.suit))
    return dataclasses.replace(spec, hand=tuple(c.code for c in hand))


def bench_positions(ruleset_id: str, size: str, n: int, seed: int) -> list[PositionSpec]:
    """``n`` benchmark positions of one ruleset and table size, the same for the same seed.

    Rummikub positions hold jokers only on the rack (0-2): a table joker keeps its value with
    us (R5) but is free for rummikub-solver, so answers would legitimately differ; ``jokers``
    positions hold 1-2 on the table (and 0-1 more on the rack) of any ruleset. Carrossel
    positions hold 0-2 jokers anywhere. Mexe-mexe's deck has no jokers: its positions hold
    1-8 wild 2s written on the table (``2H=7S``), the slowest class of position we know
    (docs/solver.md), and a card drawn (R8).
    """
    rng = random.Random(f"{seed}/{ruleset_id}/{size}")
    out: list[PositionSpec] = []
    if size in ("fit", "hard"):
        return [
            _fit_position(rng, ruleset_id, f"{ruleset_id}-{size}-{seed}-{i}", size == "hard")
            for i in range(n)
        ]
    for i in range(n):
        jokers = rng.choices((0, 1, 2), weights=(5, 3, 2))[0]
        on_table = 0 if ruleset_id == "rummikub" else rng.randint(0, jokers)
        if size == "jokers":
            on_table = rng.choice((1, 2))
            jokers = on_table + rng.randint(0, 2 - on_table)
        twos = rng.randint(1, 8) if ruleset_id == "mexe-mexe" else 0
        out.append(
            random_position(
                rng,
                ruleset_id,
                table_size=SIZES[size],
                hand_size=HAND_SIZES[ruleset_id],
                table_jokers=on_table,
                table_twos=twos,
                hand_jokers=jokers - on_table,
                turn=Turn(cards_drawn=1) if ruleset_id == "mexe-mexe" else None,
                name=f"{ruleset_id}-{size}-{seed}-{i}",
            )
        )
    return out


def each_bench_position(
    rulesets: Sequence[str], sizes: Sequence[str], n: int, seed: int
) -> Iterator[PositionSpec]:
    """``bench_positions`` of every ruleset and size in turn (the replay tools' loop)."""
    for ruleset_id in rulesets:
        for size in sizes:
            yield from bench_positions(ruleset_id, size, n, seed)


def _fit_position(
    rng: random.Random, ruleset_id: str, name: str, rearranging: bool = False
) -> PositionSpec:
    """A large table (0-2 table wilds where the deck has them) and a hand of 8-14 that fits
    (``rearranging``: that fits only through rearrangements, ``rearranging_hand``)."""
    wild_deck = ruleset_id != "rummikub"  # rummikub's table jokers are free for rummikub-solver
    on_table = rng.randint(0, 2) if wild_deck else 0
    spec = random_position(
        rng,
        ruleset_id,
        table_size=SIZES["large"],
        hand_size=FIT_HAND,
        table_jokers=on_table,
        table_twos=rng.randint(1, 4) if ruleset_id == "mexe-mexe" else 0,
        turn=Turn(cards_drawn=1) if ruleset_id == "mexe-mexe" else None,
        name=name,
    )
    deal = rearranging_hand if rearranging else fitting_hand
    return deal(rng, spec, FIT_HAND, rng.choices((0, 1, 2), weights=(4, 4, 2))[0])
