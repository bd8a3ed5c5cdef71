"""Exhaustive reference for carioca turns (C2-C7): the fewest penalty points a turn can leave.

Shares nothing with the CP-SAT model (``solver.contract.model``): it reads the rulings again
and walks every choice recursively, on plain tuples of (rank, suit) cards.

- Before opening (C2-C4): every way to take the deal's contract out of the hand, meld by meld
  (each trio: 3 cards of one rank, suits free, at most one joker; each sequence: 4
  consecutive positions of one suit, 1 = low ace … 14 = high ace, at most one joker), or no
  opening at all.
- After opening (C5): for every table meld every lay-off — a trio takes any sub-multiset of
  the hand's cards of its rank and any number of jokers; a sequence takes a run at each end
  (each new position a natural of that suit and rank or a joker) and naturals on any subset
  of its joker places, the replaced jokers filling new end positions — combined over all
  melds without using a hand card twice.
- Then the discard (C6): the card that leaves the fewest points, from a non-empty hand; or,
  for the draw decision's baseline, no discard from the hand (the unseen stock card).

Points are C7's: 2-10 face value, J Q K 10, A 20, joker 50.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator

RawCard = tuple[int, str]  # (rank, suit); the joker is (0, "JK")
JOKER: RawCard = (0, "JK")
Hand = tuple[tuple[RawCard, int], ...]  # a multiset as sorted (card, count) pairs

CONTRACTS = {1: (2, 0), 2: (1, 1), 3: (0, 2), 4: (3, 0), 5: (2, 1), 6: (1, 2), 7: (0, 3)}


def points(card: RawCard) -> int:
    rank = card[0]
    if card == JOKER:
        return 50
    if rank == 1:
        return 20
    return 10 if rank >= 10 else rank


def _rank(position: int) -> int:
    return 1 if position == 14 else position


def _freeze(counter: Counter[RawCard]) -> Hand:
    return tuple(sorted((c, n) for c, n in counter.items() if n > 0))


def _hand_points(hand: Counter[RawCard]) -> int:
    return sum(points(c) * n for c, n in hand.items())


def _after_discard(hand: Counter[RawCard], discard_required: bool) -> int | None:
    """Fewest points once one card is discarded (None when there is no card to discard)."""
    total = _hand_points(hand)
    if not discard_required:
        return total
    held = [c for c, n in hand.items() if n > 0]
    if not held:
        return None
    return total - max(points(c) for c in held)


# --- the opening ----------------------------------------------------------------------------


def _trios(hand: Counter[RawCard]) -> Iterator[Counter[RawCard]]:
    """Every opening trio the hand holds, as the cards it takes."""
    ranks = {c[0] for c, n in hand.items() if n > 0 and c != JOKER}
    for rank in sorted(ranks):
        cards = [
            c for c, n in sorted(hand.items()) if c[0] == rank and c != JOKER for _ in range(n)
        ]
        seen: set[tuple[RawCard, ...]] = set()
        for size, jokers in ((3, 0), (2, 1)):
            if jokers > hand[JOKER]:
                continue
            for chosen in _combinations(cards, size):
                if chosen in seen:
                    continue
                seen.add(chosen)
                taken = Counter(chosen)
                taken[JOKER] += jokers
                yield taken


def _combinations(cards: list[RawCard], size: int) -> Iterator[tuple[RawCard, ...]]:
    if size == 0:
        yield ()
        return
    for i in range(len(cards)):
        for rest in _combinations(cards[i + 1 :], size - 1):
            yield (cards[i], *rest)


def _sequences(hand: Counter[RawCard]) -> Iterator[Counter[RawCard]]:
    """Every opening sequence: 4 positions of one suit, at most one of them a joker (which
    may stand where the hand holds the natural too, C3)."""
    suits = sorted({c[1] for c, n in hand.items() if n > 0 and c != JOKER})
    for suit in suits:
        for start in range(1, 12):
            window = [(_rank(p), suit) for p in range(start, start + 4)]
            held = [hand[c] > 0 for c in window]
            if sum(held) == 4:
                yield Counter(window)
            if not hand[JOKER] or sum(held) < 3:
                continue
            for k in range(4):
                if all(held[:k] + held[k + 1 :]):
                    yield Counter([*window[:k], JOKER, *window[k + 1 :]])


@functools.lru_cache(maxsize=200_000)
def _best_opening(hand: Hand, trios: int, sequences: int, discard_required: bool) -> int | None:
    """The fewest points left after laying ``trios`` trios and ``sequences`` sequences out of
    ``hand`` and discarding; None when they cannot be laid (memoised: the same hand is
    reached through every order of the same melds)."""
    counts = Counter(dict(hand))
    if not trios and not sequences:
        return _after_discard(counts, discard_required)
    options = _trios(counts) if trios else _sequences(counts)
    best: int | None = None
    for taken in options:
        left = _freeze(counts - taken)
        value = _best_opening(
            left, trios - (1 if trios else 0), sequences - (0 if trios else 1), discard_required
        )
        if value is not None and (best is None or value < best):
            best = value
    return best


def best_before_opening(hand: list[RawCard], deal: int, discard_required: bool = True) -> int:
    """The fewest points a player who has not opened can keep this turn (C2-C4, C6)."""
    counts = Counter(hand)
    trios, sequences = CONTRACTS[deal]
    best = _after_discard(counts, discard_required)
    opened = _best_opening(_freeze(counts), trios, sequences, discard_required)
    if opened is not None and (best is None or opened < best):
        best = opened
    assert best is not None, "an empty hand has no turn"
    return best


# --- lay-offs ----------------------------------------------------------------------------------


def _trio_layoffs(rank: int, hand: Counter[RawCard]) -> Iterator[Counter[RawCard]]:
    kinds = [c for c in sorted(hand) if hand[c] > 0 and (c == JOKER or c[0] == rank)]

    def walk(i: int) -> Iterator[Counter[RawCard]]:
        if i == len(kinds):
            yield Counter()
            return
        for rest in walk(i + 1):
            for n in range(hand[kinds[i]] + 1):
                taken = rest.copy()
                taken[kinds[i]] += n
                yield taken

    yield from walk(0)


def _sequence_layoffs(
    suit: str, low: int, high: int, joker_places: tuple[int, ...], hand: Counter[RawCard]
) -> Iterator[Counter[RawCard]]:
    """Every lay-off onto the sequence ``low``..``high`` of ``suit``: replaced jokers (their
    naturals from the hand) and runs at both ends, replaced jokers filling new positions."""
    replaceable = [p for p in joker_places if hand[(_rank(p), suit)] > 0]
    for mask in range(1 << len(replaceable)):
        replaced = [p for i, p in enumerate(replaceable) if mask >> i & 1]
        taken: Counter[RawCard] = Counter((_rank(p), suit) for p in replaced)
        if any(taken[c] > hand[c] for c in taken):
            continue
        spare = hand[JOKER] + len(replaced)  # jokers that can stand at new positions
        for low_run in _runs(suit, range(low - 1, 0, -1), hand - taken, spare):
            rest = hand - taken - low_run[0]
            for high_run in _runs(suit, range(high + 1, 15), rest, spare - low_run[1]):
                new_jokers = low_run[1] + high_run[1]
                if new_jokers < len(replaced):
                    continue  # a replaced joker must land on a new position (C5)
                from_hand = new_jokers - len(replaced)
                used = taken + low_run[0] + high_run[0]
                used[JOKER] += from_hand
                if used[JOKER] <= hand[JOKER] and all(used[c] <= hand[c] for c in used):
                    yield used


def _runs(
    suit: str, positions: range, hand: Counter[RawCard], max_jokers: int
) -> Iterator[tuple[Counter[RawCard], int]]:
    """Every run outward from a sequence end: (naturals taken, joker positions in it)."""
    yield Counter(), 0
    run: list[tuple[Counter[RawCard], int]] = [(Counter(), 0)]
    for position in positions:
        card = (_rank(position), suit)
        longer: list[tuple[Counter[RawCard], int]] = []
        for naturals, jokers in run:
            if naturals[card] < hand[card]:
                with_card = naturals.copy()
                with_card[card] += 1
                longer.append((with_card, jokers))
            if jokers < max_jokers:
                longer.append((naturals, jokers + 1))
        if not longer:
            return
        yield from longer
        run = longer


Meld = tuple[str, int, str, int, int, tuple[int, ...]]  # kind, rank, suit, low, high, jokers


def read_meld(cards: list[str]) -> Meld:
    """A table meld from its codes (test positions are written unambiguously)."""
    raw = [_parse(c) for c in cards]
    naturals = [c for c in raw if c != JOKER]
    if len({c[0] for c in naturals}) == 1 and (len(cards) < 4 or len(naturals) > 1):
        return ("trio", naturals[0][0], "", 0, 0, ())
    first = next(i for i, c in enumerate(raw) if c != JOKER)
    rank = raw[first][0]
    place = rank if rank != 1 else (1 if first == 0 else 14)
    low = place - first
    jokers = tuple(low + i for i, c in enumerate(raw) if c == JOKER)
    return ("sequence", 0, raw[first][1], low, low + len(cards) - 1, jokers)


def _parse(code: str) -> RawCard:
    code = code.split("=")[0]
    if code == "JK":
        return JOKER
    ranks = {"A": 1, "J": 11, "Q": 12, "K": 13}
    text = code[:-1]
    return (ranks[text] if text in ranks else int(text), code[-1])


def best_after_opening(
    table: list[list[str]], hand: list[RawCard], discard_required: bool = True
) -> int:
    """The fewest points an opened player can keep this turn: lay-offs, then the discard."""
    melds = [read_meld(m) for m in table]

    @functools.cache
    def walk(i: int, left: Hand) -> int | None:
        counts = Counter(dict(left))
        if i == len(melds):
            return _after_discard(counts, discard_required)
        kind, rank, suit, low, high, jokers = melds[i]
        options = (
            _trio_layoffs(rank, counts)
            if kind == "trio"
            else _sequence_layoffs(suit, low, high, jokers, counts)
        )
        best: int | None = None
        for used in options:
            value = walk(i + 1, _freeze(counts - used))
            if value is not None and (best is None or value < best):
                best = value
        return best

    result = walk(0, _freeze(Counter(hand)))
    assert result is not None, "an empty hand has no turn"
    return result


def parse_hand(codes: list[str]) -> list[RawCard]:
    return [_parse(c) for c in codes]
