"""Seeded random generators of small valid positions of the six rearrangement rulesets.

A position is built the way a game reaches it, from the deck of ``ruleset.deck(players)`` so
that no card appears more often than the deck holds (R1):

- a **table** of 0-3 valid melds (at most ``MAX_TABLE`` cards): sequences and groups,
  sequences often touching an ace end (ace low and/or high as the ruleset allows), wilds in
  the rulesets that have them (jokers ``JK=9H``/``JK=9``/bare ``JK``; mexe-mexe wild 2s
  ``2C=7H``, natural 2s in ``A-2-3`` and groups of 2s);
- a **hand** of 1-5 cards (at most ``MAX_TOTAL`` cards in all) that often interacts with the
  table: the natural card a table wild stands for (so that it can be released, R5), cards that
  extend a sequence or complete a group, cards that with a table card form a new meld
  (rearrangements), wild cards, and random cards;
- a **turn** state that mostly allows a play (``cards_drawn`` per the draw rule: carrossel 1
  or 2, mexe-mexe 1, vatikan/rummikub 0; a few states that forbid it, so that "no legal play"
  is exercised too), rummikub ``has_opened`` mostly true, vatikan ``has_melded_sequence``
  both ways.

``random_position(ruleset_id, seed)`` is deterministic: the same seed gives the same position.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from solver.core.cards import JOKER_CARD, SUITS, Card, TableCard, WildValue, parse_table_card
from solver.core.errors import InvalidRequest
from solver.core.rulesets import RULESETS, Ruleset, SuitRule, WildKind, rank_of_position
from solver.rummy.melds import MeldKind, Reading, classify
from solver.rummy.position import Position, Turn, parse_position

REARRANGEMENT = ("carrossel", "mexe-mexe", "vatikan", "shangai", "manipulation", "rummikub")

MAX_TABLE = 9  # table cards
MAX_TOTAL = 12  # table + hand cards
MAX_HAND = 5
MAX_WILDS = 2  # wild-capable cards (jokers, mexe-mexe 2s) in table + hand, by default
MANY_WILDS = 4  # enough for a run of wilds alone, which R4 forbids (mexe-mexe's 2s)


@dataclass(frozen=True)
class PositionSpec:
    """A generated position as plain codes: what a failing test prints to reproduce it."""

    ruleset: str
    players: int
    table: tuple[tuple[str, ...], ...]
    hand: tuple[str, ...]
    turn: Turn

    def build(self) -> Position:
        return parse_position(self.ruleset, self.players, self.table, self.hand, self.turn)

    def __str__(self) -> str:
        melds = " | ".join(" ".join(m) for m in self.table)
        return (
            f"parse_position({self.ruleset!r}, {self.players}, "
            f"table=[{melds}], hand=[{' '.join(self.hand)}], {self.turn})"
        )


class _Pool:
    """The cards still in the deck (nothing is drawn twice beyond the deck's copies).

    At most ``max_wilds`` wild-capable cards (jokers, mexe-mexe 2s) are handed out: each of
    them multiplies the brute force's work, and a small deal rarely holds more than
    ``MAX_WILDS``. A mexe-mexe group of three 2s (natural 2s, R4) may overdraw an untouched
    budget; no 2 follows it.
    """

    def __init__(self, ruleset: Ruleset, players: int, max_wilds: int = MAX_WILDS) -> None:
        self.counts: Counter[Card] = ruleset.deck(players)
        self.ruleset = ruleset
        self.max_wilds = max_wilds
        self.wilds_left = max_wilds

    def _wilds(self, cards: Sequence[Card]) -> int:
        return sum(1 for c in cards if self.ruleset.is_wild_card(c))

    def has(self, cards: Sequence[Card], overdraw: bool = False) -> bool:
        need = Counter(cards)
        if not overdraw and self._wilds(cards) > self.wilds_left:
            return False
        return all(self.counts[c] >= k for c, k in need.items())

    def take(self, cards: Sequence[Card], overdraw: bool = False) -> bool:
        if not self.has(cards, overdraw):
            return False
        self.counts.subtract(cards)
        self.wilds_left = 0 if overdraw else self.wilds_left - self._wilds(cards)
        return True

    def give_back(self, cards: Sequence[Card]) -> None:
        self.counts.update(cards)
        self.wilds_left = min(self.max_wilds, self.wilds_left + self._wilds(cards))


def _wild_cards(ruleset: Ruleset) -> list[Card]:
    if ruleset.wild is WildKind.JOKERS:
        return [JOKER_CARD]
    if ruleset.wild is WildKind.TWOS:
        return [Card(2, s) for s in SUITS]
    return []


def _code(card: Card, value: WildValue | None) -> str:
    return TableCard(card, value).code


Built = list[tuple[Card, WildValue | None]]  # a meld as built: each card and its wild value


def _random_sequence(ruleset: Ruleset, rng: random.Random) -> Built:
    positions = list(ruleset.sequence_positions)
    length = rng.choice((3, 3, 3, 4, 4, 5))
    roll = rng.random()
    if roll < 0.2:
        start = positions[0]  # touches the low end (ace low, or 2 where the ace is high only)
    elif roll < 0.4:
        start = positions[-1] - length + 1  # touches the high end (K or ace high)
    else:
        start = rng.randint(positions[0], positions[-1] - length + 1)
    same_suit = ruleset.melds.sequence_suits is SuitRule.SAME_SUIT
    suit = rng.choice(SUITS)
    out: Built = []
    for pos in range(start, start + length):
        rank = rank_of_position(pos)
        out.append((Card(rank, suit if same_suit else rng.choice(SUITS)), None))
    wilds = _wild_cards(ruleset)
    if wilds and rng.random() < 0.5:
        n = 2 if length >= 4 and rng.random() < 0.15 else 1
        for slot in rng.sample(range(length), n):
            card, _ = out[slot]
            value = WildValue(card.rank, card.suit if same_suit else None)
            out[slot] = (rng.choice(wilds), value)
    return out


def _random_group(ruleset: Ruleset, rng: random.Random) -> Built:
    if ruleset.wild is WildKind.TWOS and rng.random() < 0.15:
        rank = 2
    elif rng.random() < 0.2:
        rank = 1
    else:
        rank = rng.randint(1, 13)
    size = rng.choice((3, 3, 4))
    wilds = _wild_cards(ruleset)
    n_wild = 0
    if wilds and rng.random() < 0.45:
        n_wild = 2 if rng.random() < 0.1 else 1
    suits = rng.sample(SUITS, size - n_wild)
    out: Built = [(Card(rank, s), None) for s in suits]
    missing = [s for s in SUITS if s not in suits]
    for i in range(n_wild):
        suited = ruleset.melds.sequence_suits is SuitRule.SAME_SUIT and rng.random() < 0.2
        out.append((rng.choice(wilds), WildValue(rank, missing[i] if suited else None)))
    rng.shuffle(out)
    return out


def _write(
    ruleset: Ruleset, kind: MeldKind, meld: list[tuple[Card, WildValue | None]], rng: random.Random
) -> tuple[str, ...] | None:
    """The meld's codes: wild values written (mostly), or left out where that is unambiguous.

    A suited value of a group wild is always written: it says which card the wild stands for.
    """
    annotated = tuple(_code(c, v) for c, v in meld)
    bare = tuple(
        _code(c, v if v is not None and v.suit and kind is MeldKind.GROUP else None)
        for c, v in meld
    )
    for codes in (bare, annotated) if rng.random() < 0.3 else (annotated,):
        verdict = classify(ruleset, [_parse(code) for code in codes])
        if (
            verdict.ok
            and verdict.reading.kind is kind
            and _same_reading(verdict.reading.values, verdict.reading.wild, meld)
        ):
            return codes
    return None


def _same_reading(
    values: tuple[WildValue, ...],
    wild: tuple[bool, ...],
    meld: list[tuple[Card, WildValue | None]],
) -> bool:
    """Does the classified reading give every card the role and value we built it with?"""
    for (card, intended), value, is_wild in zip(meld, values, wild, strict=True):
        if (intended is not None) != is_wild:
            return False
        if intended is not None and not intended.matches(value):
            return False
        if not is_wild and (value.rank, value.suit) != (card.rank, card.suit):
            return False
    return True


def _parse(code: str) -> TableCard:
    return parse_table_card(code)


def _table(ruleset: Ruleset, pool: _Pool, rng: random.Random) -> list[tuple[MeldKind, Built]]:
    n_melds = rng.choices((0, 1, 2, 3), weights=(4, 36, 45, 15))[0]
    melds: list[tuple[MeldKind, Built]] = []
    total = 0
    attempts = 0
    while len(melds) < n_melds and attempts < 40:
        attempts += 1
        if rng.random() < 0.6:
            kind, meld = MeldKind.SEQUENCE, _random_sequence(ruleset, rng)
        else:
            kind, meld = MeldKind.GROUP, _random_group(ruleset, rng)
        if total + len(meld) > MAX_TABLE:
            continue
        cards = [c for c, _ in meld]
        twos = (
            ruleset.wild is WildKind.TWOS
            and len(cards) == 3
            and all(c.rank == 2 for c in cards)
            and pool.wilds_left == pool.max_wilds
        )
        if not pool.take(cards, overdraw=twos):
            continue
        melds.append((kind, meld))
        total += len(meld)
    return melds


def _wild_targets(ruleset: Ruleset, table: list[tuple[TableCard, ...]]) -> list[WildValue]:
    out: list[WildValue] = []
    for meld in table:
        verdict = classify(ruleset, meld)
        reading = verdict.reading
        for value, is_wild in zip(reading.values, reading.wild, strict=True):
            if is_wild:
                if value.suit is None and reading.kind is MeldKind.GROUP:
                    taken = _natural_suits(reading)
                    free = [s for s in SUITS if s not in taken]
                    out.append(WildValue(value.rank, free[0] if free else None))
                else:
                    out.append(value)
    return out


def _natural_suits(reading: Reading) -> set[str | None]:
    return {v.suit for v, w in zip(reading.values, reading.wild, strict=True) if not w}


def _neighbours(
    ruleset: Ruleset, table: list[tuple[TableCard, ...]]
) -> list[tuple[int, str | None]]:
    """(rank, suit-or-None) of cards that would extend a table meld or complete a group."""
    out: list[tuple[int, str | None]] = []
    allowed = ruleset.sequence_positions
    for meld in table:
        reading = classify(ruleset, meld).reading
        if reading.kind is MeldKind.SEQUENCE:
            for pos in (reading.positions[0] - 1, reading.positions[-1] + 1):
                if pos in allowed:
                    out.append((rank_of_position(pos), reading.suit))
        else:
            taken = _natural_suits(reading)
            for s in SUITS:
                if s not in taken:
                    out.append((reading.rank, s))
    return out


def _hand(
    ruleset: Ruleset,
    pool: _Pool,
    table: list[tuple[TableCard, ...]],
    room: int,
    rng: random.Random,
) -> list[Card]:
    size = min(room, rng.randint(1, MAX_HAND))
    hand: list[Card] = []
    targets = _wild_targets(ruleset, table)
    ends = _neighbours(ruleset, table)
    naturals = [
        tc.card for meld in table for tc in meld if tc.value is None and tc.card.is_ordinary
    ]
    wilds = _wild_cards(ruleset)
    same_suit = ruleset.melds.sequence_suits is SuitRule.SAME_SUIT

    def suit_or_any(suit: str | None) -> str:
        return suit if suit is not None else rng.choice(SUITS)

    attempts = 0
    while len(hand) < size and attempts < 60:
        attempts += 1
        roll = rng.random()
        picks: list[Card]
        if roll < 0.25 and targets:
            value = rng.choice(targets)  # the natural card of a wild's value: a release (R5)
            picks = [Card(value.rank, suit_or_any(value.suit))]
        elif roll < 0.5 and ends:
            rank, suit = rng.choice(ends)  # extends a sequence or completes a group
            picks = [Card(rank, suit_or_any(suit))]
        elif roll < 0.68 and naturals:
            base = rng.choice(naturals)  # with a table card, a new meld (a rearrangement)
            if rng.random() < 0.5:
                others = [s for s in SUITS if s != base.suit]
                picks = [Card(base.rank, s) for s in rng.sample(others, 2)]
            else:
                step = rng.choice((-2, -1, 1))
                ranks = [base.rank + step, base.rank + step + (2 if step == -1 else 1)]
                ranks = [r for r in ranks if r != base.rank]
                suit = base.suit if same_suit else None
                picks = [Card(r if r <= 13 else 1, suit_or_any(suit)) for r in ranks if r >= 1]
        elif roll < 0.78 and wilds:
            picks = [rng.choice(wilds)]
        else:
            picks = [Card(rng.randint(1, 13), rng.choice(SUITS))]
        picks = picks[: size - len(hand)]
        if picks and pool.take(picks):
            hand.extend(picks)
    return hand


def _opening_hand(pool: _Pool, rng: random.Random) -> list[Card]:
    """Three rummikub tiles worth ≥ 30 together: a high run or a group (R8 opening)."""
    if rng.random() < 0.5:
        start = rng.randint(9, 11)
        suit = rng.choice(SUITS)
        cards = [Card(r, suit) for r in range(start, start + 3)]
    else:
        rank = rng.randint(10, 13)
        cards = [Card(rank, s) for s in rng.sample(SUITS, 3)]
    if rng.random() < 0.3:
        cards[rng.randrange(3)] = JOKER_CARD
    return cards if pool.take(cards) else []


def _turn(ruleset: Ruleset, rng: random.Random) -> Turn:
    roll = rng.random()
    if ruleset.id == "carrossel":
        if roll < 0.04:
            return Turn(cards_drawn=3)  # a third draw ended the turn: no play (R8)
        if roll < 0.1:
            return Turn(cards_drawn=0, stock_empty=True)
        return Turn(cards_drawn=1 if roll < 0.8 else 2)
    if ruleset.id == "mexe-mexe":
        if roll < 0.03:
            return Turn(cards_drawn=0)  # has not drawn yet: no play (R8)
        if roll < 0.08:
            return Turn(cards_drawn=0, stock_empty=True)
        return Turn(cards_drawn=1)
    if ruleset.id == "vatikan":
        return Turn(cards_drawn=1 if roll < 0.03 else 0, has_melded_sequence=rng.random() < 0.5)
    if ruleset.id == "rummikub":
        return Turn(cards_drawn=1 if roll < 0.03 else 0, has_opened=rng.random() < 0.75)
    return Turn(cards_drawn=1 if roll < 0.1 else 0)  # shangai, manipulation


def random_spec(ruleset_id: str, seed: int | str, max_wilds: int = MAX_WILDS) -> PositionSpec:
    """A random small valid position of that ruleset, as codes (deterministic in ``seed``),
    with at most ``max_wilds`` wild-capable cards."""
    ruleset = RULESETS[ruleset_id]
    rng = random.Random(f"{ruleset_id}/{seed}")
    players = rng.randint(ruleset.min_players, ruleset.max_players)
    pool = _Pool(ruleset, players, max_wilds)
    turn = _turn(ruleset, rng)
    table_codes: list[tuple[str, ...]] = []
    table: list[tuple[TableCard, ...]] = []
    for kind, meld in _table(ruleset, pool, rng):
        codes = _write(ruleset, kind, meld, rng)
        if codes is None:
            pool.give_back([c for c, _ in meld])
            continue
        table_codes.append(codes)
        table.append(tuple(_parse(c) for c in codes))
    n_table = sum(len(m) for m in table)
    hand: list[Card] = []
    if ruleset.rearrangement.opening_points and not turn.has_opened and rng.random() < 0.6:
        hand = _opening_hand(pool, rng)
    room = min(MAX_HAND, MAX_TOTAL - n_table) - len(hand)
    if room > 0:
        hand += _hand(ruleset, pool, table, room, rng)
    if not hand:
        plain = [c for c in sorted(+pool.counts) if not ruleset.is_wild_card(c)]
        hand = [rng.choice(plain)]
        pool.take(hand)
    return PositionSpec(ruleset_id, players, tuple(table_codes), tuple(c.code for c in hand), turn)


def release_twins(ruleset_id: str, seed: int | str) -> list[PositionSpec]:
    """``random_spec`` with one meld added that a release could leave behind, one variant
    per wild on its table (none without a table wild or copies left in the deck).

    The added meld is a wild's meld with that wild replaced by the natural card of its
    value (or three of its cards, that natural among them), and the natural goes to the
    hand too: releasing the wild with it can leave the added meld's very cards on the
    table, so the table shows that meld unchanged while its own cards went elsewhere
    (melds changed are counted by cards). Random deals rarely hold such a pair.
    """
    spec = random_spec(ruleset_id, seed)
    rng = random.Random(f"twin/{ruleset_id}/{seed}")
    position = spec.build()
    variants: list[PositionSpec] = []
    for meld, classified in zip(position.table, position.readings, strict=True):
        reading = classified.reading
        for i, (value, wild) in enumerate(zip(reading.values, reading.wild, strict=True)):
            if not wild or sum(reading.wild) > 1:
                continue
            if value.suit:
                suits = [value.suit]
            elif reading.kind is MeldKind.GROUP:  # R3: a suit the group's naturals lack
                suits = [s for s in SUITS if all(tc.card.suit != s for tc in meld)]
            else:
                suits = list(SUITS)
            if not suits:
                continue
            natural = Card(value.rank, rng.choice(suits))
            twin = [natural if j == i else tc.card for j, tc in enumerate(meld)]
            if len(twin) > 3 and rng.random() < 0.5:
                start = rng.randint(max(0, i - 2), min(i, len(twin) - 3))
                twin = twin[start : start + 3]
            codes = tuple(card.code for card in twin)
            variant = PositionSpec(
                ruleset_id,
                spec.players,
                (*spec.table, codes),
                (*spec.hand, natural.code),
                spec.turn,
            )
            try:
                variant.build()
            except InvalidRequest:  # more copies than the deck holds
                continue
            variants.append(variant)
    return variants


def wild_cards_in_play(position: Position) -> int:
    """Wild-capable cards (jokers, mexe-mexe 2s) on the table and in the hand."""
    cards = position.table_cards() + Counter(position.hand)
    return sum(k for card, k in cards.items() if position.ruleset.is_wild_card(card))


def random_position(ruleset_id: str, seed: int | str) -> Position:
    """``random_spec(...).build()``: a parsed, validated Position."""
    return random_spec(ruleset_id, seed).build()
