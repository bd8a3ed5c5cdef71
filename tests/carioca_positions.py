"""Random carioca positions for the differential tests (C1-C5): drawn from a real two-deck
pack (C1: 104 cards + 4 jokers), dense enough in near ranks and suits that openings and
lay-offs happen often, small enough for the brute force of tests/reference."""

from __future__ import annotations

import random
from dataclasses import dataclass

SUITS = "CDHS"
RANKS = {1: "A", 11: "J", 12: "Q", 13: "K"}
CONTRACTS = {1: (2, 0), 2: (1, 1), 3: (0, 2), 4: (3, 0), 5: (2, 1), 6: (1, 2), 7: (0, 3)}


def code(rank: int, suit: str) -> str:
    return f"{RANKS.get(rank, str(rank))}{suit}"


def rank_at(position: int) -> int:
    return 1 if position == 14 else position


@dataclass
class Pack:
    """The cards not yet dealt: two of every card and four jokers (C1)."""

    left: dict[str, int]

    @classmethod
    def full(cls) -> Pack:
        left = {code(r, s): 2 for r in range(1, 14) for s in SUITS}
        left["JK"] = 4
        return cls(left)

    def take(self, card: str) -> bool:
        if self.left.get(card, 0) <= 0:
            return False
        self.left[card] -= 1
        return True


@dataclass(frozen=True)
class RandomPosition:
    deal: int
    opened: bool
    table: list[list[str]]
    hand: list[str]


def _dense_cards(rng: random.Random, pack: Pack, count: int, jokers: int) -> list[str]:
    """``count`` cards mostly from a window of 5 ranks in 2 suits (melds likely), some jokers."""
    start = rng.randint(1, 10)
    suits = rng.sample(SUITS, 2)
    near = [code(rank_at(p), s) for p in range(start, start + 5) for s in suits]
    hand: list[str] = []
    for _ in range(jokers):
        if pack.take("JK"):
            hand.append("JK")
    tries = 0
    while len(hand) < count and tries < 500:
        tries += 1
        if rng.random() < 0.8:
            card = rng.choice(near)
        else:
            card = code(rng.randint(1, 13), rng.choice(SUITS))
        if pack.take(card):
            hand.append(card)
    return hand


def _planted_contract(rng: random.Random, pack: Pack, deal: int) -> list[str]:
    """The deal's contract melds (C2), a joker now and then, one card sometimes missing, so
    that openings are common and often narrowly impossible."""
    trios, sequences = CONTRACTS[deal]
    cards: list[str] = []
    for _ in range(trios):
        rank = rng.randint(1, 13)
        meld = [code(rank, rng.choice(SUITS)) for _ in range(3)]
        if rng.random() < 0.25:
            meld[rng.randrange(3)] = "JK"
        cards += [c for c in meld if pack.take(c)]
    for _ in range(sequences):
        suit, start = rng.choice(SUITS), rng.randint(1, 11)
        meld = [code(rank_at(p), suit) for p in range(start, start + 4)]
        if rng.random() < 0.25:
            meld[rng.randrange(4)] = "JK"
        cards += [c for c in meld if pack.take(c)]
    if cards and rng.random() < 0.35:
        cards.pop(rng.randrange(len(cards)))
    return cards


def opening_position(rng: random.Random, deal: int) -> RandomPosition:
    """A player who has not opened, holding the hand after the draw: half of the hands are
    built around the contract, half drawn densely from a few ranks and suits."""
    trios, sequences = CONTRACTS[deal]
    pack = Pack.full()
    size = 3 * trios + 4 * sequences + rng.randint(1, 3)
    if rng.random() < 0.5:
        hand = _planted_contract(rng, pack, deal)
        extra = _dense_cards(rng, pack, size - len(hand), rng.choice((0, 0, 1)))
        return RandomPosition(deal, False, [], hand + extra)
    jokers = rng.choice((0, 0, 0, 1, 1, 2))
    return RandomPosition(deal, False, [], _dense_cards(rng, pack, size, jokers))


def _trio(rng: random.Random, pack: Pack) -> list[str] | None:
    rank = rng.randint(1, 13)
    naturals = [code(rank, s) for s in SUITS for _ in range(2)]
    rng.shuffle(naturals)
    size = rng.randint(3, 5)
    jokers = 1 if rng.random() < 0.3 else 0
    meld = [c for c in naturals[: size - jokers] if pack.take(c)]
    if len(meld) < 2:
        return None
    meld += ["JK" for _ in range(jokers) if pack.take("JK")]
    return meld if len(meld) >= 3 else None


def _sequence(rng: random.Random, pack: Pack) -> list[str] | None:
    suit = rng.choice(SUITS)
    length = rng.randint(4, 7)
    start = rng.randint(1, 15 - length)
    places = list(range(start, start + length))
    joker_places = set(rng.sample(places, rng.choice((0, 0, 1, 1, 2))))
    meld: list[str] = []
    for place in places:
        card = "JK" if place in joker_places else code(rank_at(place), suit)
        if not pack.take(card):
            return None
        meld.append(card)
    return meld if sum(c != "JK" for c in meld) >= 2 else None


def layoff_position(rng: random.Random, deal: int) -> RandomPosition:
    """A player who has opened: a table of 1-4 melds and a small hand that fits them."""
    pack = Pack.full()
    table: list[list[str]] = []
    for _ in range(rng.randint(1, 4)):
        meld = _trio(rng, pack) if rng.random() < 0.45 else _sequence(rng, pack)
        if meld is not None:
            table.append(meld)
    hand: list[str] = []
    wanted = rng.randint(1, 6)
    if rng.random() < 0.35 and pack.take("JK"):
        hand.append("JK")
    tries = 0
    while len(hand) < wanted and tries < 200:
        tries += 1
        card = _near_table(rng, table) if table and rng.random() < 0.8 else None
        card = card or code(rng.randint(1, 13), rng.choice(SUITS))
        if pack.take(card):
            hand.append(card)
    if not hand:
        hand.append("JK" if pack.take("JK") else "2C")
    return RandomPosition(deal, True, table, hand)


def _near_table(rng: random.Random, table: list[list[str]]) -> str | None:
    """A card that could be laid off: a trio's rank, or near a sequence's ends."""
    meld = rng.choice(table)
    naturals = [c for c in meld if c != "JK"]
    ranks = {c[:-1] for c in naturals}
    if len(ranks) == 1:
        return f"{next(iter(ranks))}{rng.choice(SUITS)}"
    suit = naturals[0][-1]
    rank_of = {"A": 1, "J": 11, "Q": 12, "K": 13}
    low = min(rank_of.get(c[:-1]) or int(c[:-1]) for c in naturals)
    position = low + rng.randint(-3, len(meld) + 2)
    if not 1 <= position <= 14:
        return None
    return code(rank_at(position), suit)
