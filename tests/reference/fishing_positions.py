"""Random fishing positions for the differential tests, as the solver's raw input and as the
brute-force reference's plain items (one generator, two spellings of the same position)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from solver.fishing.position import RawItem, RawPosition
from tests.reference.fishing_bruteforce import COURTS, BItem, value

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
DECK_56 = (*(f"{r}{s}" for s in "CDHS" for r in RANKS), "JK20", "JK15", "JK11", "BROOM")
PRIZE_SUIT = {"carosello": "H", "carrusel": "C", "karusele": "S"}


@dataclass(frozen=True)
class Sample:
    raw: RawPosition
    table: tuple[BItem, ...]
    hand: tuple[str, ...]
    player: int
    players: int
    prize_suit: str
    other_hands: tuple[tuple[str, ...], ...] = ()  # every player's hand, by player
    piles: tuple[tuple[str, ...], ...] = ()
    last_capturer: int = -1


def _numbered(code: str) -> bool:
    return code != "BROOM" and code[:-1] not in COURTS


def _build(deck: list[str], rng: random.Random) -> list[str]:
    """Two or three numbered cards (a build of the kind F5 makes), worth at most 20."""
    cards: list[str] = []
    for code in list(deck):
        if _numbered(code) and sum(value(c) for c in cards) + value(code) <= 20:
            cards.append(code)
            deck.remove(code)
            if len(cards) == rng.choice((2, 3)):
                break
    return cards


def _own_a_build(
    items: list[tuple[list[str], int]],
    hand: list[str],
    deck: list[str],
    player: int,
    rng: random.Random,
) -> None:
    """Often make the player the owner of a build, with a card of its value kept (F5)."""
    builds = [k for k, (cards, _) in enumerate(items) if len(cards) > 1]
    if not builds or rng.random() < 0.6:
        return
    chosen = rng.choice(builds)
    cards = items[chosen][0]
    matching = [c for c in deck if value(c) == sum(value(x) for x in cards)]
    if not matching:
        return
    deck.remove(matching[0])
    if len(hand) == 4:
        deck.append(hand.pop())
    hand.append(matching[0])
    items[chosen] = (cards, player)


def play_sample(seed: int, ruleset: str | None = None) -> Sample:
    """A random mid-deal position: up to 8 items (builds among them), 1-4 cards in hand;
    ``ruleset`` fixes the game (the rest of the position is the seed's either way)."""
    rng = random.Random(seed)
    drawn = rng.choice(tuple(PRIZE_SUIT))
    ruleset = ruleset or drawn
    deck = list(DECK_56)
    rng.shuffle(deck)
    players = rng.choice((2, 3, 4))
    player = rng.randrange(players)
    items: list[tuple[list[str], int]] = []
    for _ in range(rng.randint(0, 8)):
        if rng.random() < 0.2:
            cards = _build(deck, rng)
            if len(cards) >= 2:
                items.append((cards, rng.randrange(players)))
                continue
        code = deck.pop()
        if code == "BROOM":
            code = deck.pop()
        items.append(([code], -1))
    hand = [deck.pop() for _ in range(rng.randint(1, 4))]
    _own_a_build(items, hand, deck, player, rng)
    hand_values = {value(c) for c in hand}
    items = [
        (
            cards,
            (owner + 1) % players
            if owner == player and sum(value(c) for c in cards) not in hand_values
            else owner,
        )
        for cards, owner in items
    ]
    raw = RawPosition(
        ruleset, [RawItem(c, 0, max(o, 0)) for c, o in items], hand, 56, player, players
    )
    table = tuple(BItem(tuple(c), o if len(c) > 1 else -1) for c, o in items)
    return Sample(raw, table, tuple(hand), player, players, PRIZE_SUIT[ruleset])


def endgame_sample(seed: int, players: int) -> Sample:
    """A last-round position: stock empty, every hand known, the rest in the piles."""
    rng = random.Random(seed)
    ruleset = rng.choice(tuple(PRIZE_SUIT))
    deck = list(DECK_56)
    rng.shuffle(deck)
    size = rng.randint(1, 3 if players == 2 else 2)
    player = rng.randrange(players)
    already = rng.randrange(players)  # how many players after the mover hold one fewer
    hands: list[tuple[str, ...]] = [()] * players
    for k in range(players):
        count = size - (1 if k and k >= players - already else 0)
        hands[(player + k) % players] = tuple(deck.pop() for _ in range(count))
    table = []
    for _ in range(rng.randint(1, 5)):
        code = deck.pop()
        if code == "BROOM":  # the broom never lies on the table (F6)
            deck.insert(0, code)
            code = deck.pop()
        table.append(code)
    sides = 2 if players == 4 else players
    piles: list[list[str]] = [[] for _ in range(sides)]
    for code in deck:
        piles[rng.randrange(sides)].append(code)
    last = rng.randrange(players)
    raw = RawPosition(
        ruleset,
        [RawItem([c]) for c in table],
        list(hands[player]),
        56,
        player,
        players,
        piles=piles,
        last_capturer=last,
        other_hands=[(p, list(hands[p])) for p in range(players) if p != player],
    )
    return Sample(
        raw,
        tuple(BItem((c,)) for c in table),
        hands[player],
        player,
        players,
        PRIZE_SUIT[ruleset],
        tuple(hands),
        tuple(map(tuple, piles)),
        last,
    )


def full_last_round(seed: int) -> Sample:
    """A 2-player last round at its start: 4 + 4 cards in hand, 4 on the table (the bench's
    kind of position), the rest of the deck split between the piles."""
    rng = random.Random(seed)
    ruleset = rng.choice(tuple(PRIZE_SUIT))
    deck = list(DECK_56)
    rng.shuffle(deck)
    deck.remove("BROOM")
    deck.insert(0, "BROOM")  # never on the table (F6)
    table = [deck.pop() for _ in range(4)]
    hands = (tuple(deck.pop() for _ in range(4)), tuple(deck.pop() for _ in range(4)))
    piles = (tuple(deck[: len(deck) // 2]), tuple(deck[len(deck) // 2 :]))
    last = rng.randrange(2)
    raw = RawPosition(
        ruleset,
        [RawItem([c]) for c in table],
        list(hands[0]),
        56,
        0,
        2,
        piles=[list(p) for p in piles],
        last_capturer=last,
        other_hands=[(1, list(hands[1]))],
    )
    return Sample(
        raw,
        tuple(BItem((c,)) for c in table),
        hands[0],
        0,
        2,
        PRIZE_SUIT[ruleset],
        hands,
        piles,
        last,
    )


def endgame_with_build(seed: int) -> Sample:
    """A 2-player last round with a build on the table (two low cards) owned by either
    player, who holds a card of its value (F5): 2 or 3 cards each, 2 more table cards."""
    rng = random.Random(seed)
    ruleset = rng.choice(tuple(PRIZE_SUIT))
    deck = [c for c in DECK_56 if c != "BROOM"]
    rng.shuffle(deck)
    low = [c for c in deck if c[:-1] in ("A", "2", "3", "4", "5")][:2]
    for code in low:
        deck.remove(code)
    owner = rng.randrange(2)
    match = next(c for c in deck if value(c) == sum(map(value, low)))
    deck.remove(match)
    table = [deck.pop() for _ in range(2)]
    size = rng.randint(2, 3)
    hands = [[deck.pop() for _ in range(size)] for _ in range(2)]
    deck.append(hands[owner][0])
    hands[owner][0] = match
    deck.append("BROOM")
    piles = (tuple(deck[: len(deck) // 2]), tuple(deck[len(deck) // 2 :]))
    last = rng.randrange(2)
    items = [RawItem(low, 0, owner), *(RawItem([c]) for c in table)]
    raw = RawPosition(
        ruleset,
        items,
        hands[0],
        56,
        0,
        2,
        piles=[list(p) for p in piles],
        last_capturer=last,
        other_hands=[(1, hands[1])],
    )
    btable = (BItem(tuple(low), owner), *(BItem((c,)) for c in table))
    return Sample(
        raw,
        btable,
        tuple(hands[0]),
        0,
        2,
        PRIZE_SUIT[ruleset],
        (tuple(hands[0]), tuple(hands[1])),
        piles,
        last,
    )
