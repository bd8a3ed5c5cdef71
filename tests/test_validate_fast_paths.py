"""The validator's fast paths agree with the plain computations they replace (hypothesis).

- ``readings`` tries only the sequence starts, suits and group ranks where the meld's first
  card that cannot be wild stands for itself: the same readings as trying them all;
- ``classify`` is memoised: the same verdict as an uncached classification, and rulesets that
  differ do not share verdicts;
- ``count_flow``'s subtraction is ``Counter.__sub__``;
- the wild accounting skips tables without wilds, and indexes which melds can continue which
  only for the melds that held a wild: the same outcome and links as the full computation.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from solver.core.cards import JOKER_CARD, SUITS, Card, TableCard, WildValue
from solver.core.rulesets import RULESETS, AceRule, Family, Ruleset, SuitRule
from solver.rearrangement.wilds import AfterMeld, WildAccounting, WildOutcome, account_wilds
from solver.rummy.conservation import _excess, count_flow, table_readings
from solver.rummy.melds import (
    Reading,
    _classify,
    _group_of,
    _sequence_at,
    classify,
    readings,
)
from solver.rummy.position import Move, Position
from tests.reference.bruteforce import candidates
from tests.reference.positions import REARRANGEMENT, random_position

MELD_RULESETS = [r for r in RULESETS.values() if r.family is not Family.FISHING]

_CARDS = [
    *(Card(rank, suit) for rank in range(1, 14) for suit in SUITS),
    JOKER_CARD,
    Card(0, "", "BROOM"),
]
_VALUES = st.builds(WildValue, st.integers(1, 13), st.sampled_from((None, *SUITS)))


@st.composite
def melds(draw: st.DrawFn) -> tuple[TableCard, ...]:
    """Random melds, mostly close to a sequence or a group, with wilds and annotations."""
    n = draw(st.integers(1, 9))
    shape = draw(st.sampled_from(("sequence", "group", "any")))
    if shape == "sequence":
        start = draw(st.integers(1, 14 - min(n, 13)))
        suit = draw(st.sampled_from(SUITS))
        cards = [Card(1 if p > 13 else p, suit) for p in range(start, start + n)]
    elif shape == "group":
        rank = draw(st.integers(1, 13))
        cards = [Card(rank, draw(st.sampled_from(SUITS))) for _ in range(n)]
    else:
        cards = [draw(st.sampled_from(_CARDS)) for _ in range(n)]
    out: list[TableCard] = []
    for card in cards:
        roll = draw(st.integers(0, 9))
        if roll == 0:
            card = draw(st.sampled_from((JOKER_CARD, Card(2, draw(st.sampled_from(SUITS))))))
        elif roll == 1 and card.suit:
            card = Card(draw(st.integers(1, 13)), draw(st.sampled_from(SUITS)))
        value = draw(st.one_of(st.none(), _VALUES)) if roll <= 2 else None
        out.append(TableCard(card, value))
    return tuple(out)


def all_readings(ruleset: Ruleset, cards: tuple[TableCard, ...]) -> list[Reading]:
    """``readings`` trying every start, suit and rank: the loops before the shortcut."""
    n = len(cards)
    found: list[Reading] = []
    allowed = ruleset.sequence_positions
    same_suit = ruleset.melds.sequence_suits is SuitRule.SAME_SUIT
    if n <= ruleset.melds.max_sequence:
        for start in allowed:
            positions = tuple(range(start, start + n))
            if positions[-1] not in allowed:
                break
            for suit in SUITS if same_suit else (None,):
                reading = _sequence_at(ruleset, cards, positions, suit)
                if reading is not None:
                    found.append(reading)
    if ruleset.melds.group_min <= n <= ruleset.melds.group_max:
        for rank in range(1, 14):
            group = _group_of(ruleset, cards, rank)
            if group is not None:
                found.append(group)
    unique: dict[tuple[object, ...], Reading] = {}
    for reading in found:
        unique.setdefault(reading.key, reading)
    return sorted(unique.values(), key=lambda r: -r.naturals)


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(MELD_RULESETS), melds())
def test_readings_match_the_exhaustive_search(
    ruleset: Ruleset, meld: tuple[TableCard, ...]
) -> None:
    assert readings(ruleset, meld) == all_readings(ruleset, meld)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(MELD_RULESETS), melds())
def test_cached_classify_matches_uncached(ruleset: Ruleset, meld: tuple[TableCard, ...]) -> None:
    fresh = _classify(ruleset, meld)
    assert classify(ruleset, meld) == fresh
    assert classify(ruleset, list(meld)) == fresh  # any sequence: the key is its tuple
    assert classify(dataclasses.replace(ruleset), meld) == fresh  # an equal copy


def test_cache_tells_rulesets_apart() -> None:
    carrossel = RULESETS["carrossel"]
    low_only = dataclasses.replace(  # same id, other rules
        carrossel, meld_rules=dataclasses.replace(carrossel.melds, ace=AceRule.LOW_ONLY)
    )
    meld = tuple(TableCard(Card(rank, "H")) for rank in (12, 13, 1))
    assert classify(carrossel, meld).ok
    assert not classify(low_only, meld).ok
    assert classify(carrossel, meld).ok


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.sampled_from(_CARDS), st.integers(1, 4), max_size=12),
    st.dictionaries(st.sampled_from(_CARDS), st.integers(1, 4), max_size=12),
)
def test_excess_is_counter_subtraction(a: dict[Card, int], b: dict[Card, int]) -> None:
    left, right = Counter(a), Counter(b)
    result = _excess(left, right)
    assert result == left - right
    assert list(result) == list(left - right)  # same order too


def _links(
    position: Position, after: list[AfterMeld], melds_before: set[int]
) -> set[tuple[int, int]]:
    """(before meld, after meld) pairs sharing a card natural in both, by a plain scan."""
    ruleset = position.ruleset
    out: set[tuple[int, int]] = set()
    for i, reading in enumerate(table_readings(position)):
        if i not in melds_before:
            continue
        nat = {tc.card for tc, w in zip(position.table[i], reading.wild, strict=True) if not w}
        for j, meld in enumerate(after):
            if any(
                tc.card in nat and not meld.is_wild(ruleset, k) for k, tc in enumerate(meld.cards)
            ):
                out.add((i, j))
    return out


def _moves(position: Position, rng: random.Random) -> list[Move]:
    """A few candidate plays, and each with one card moved to another meld."""
    moves = [c.move for c in itertools.islice(candidates(position), 8)]
    for move in list(moves):
        table = [list(m) for m in move.table]
        if len(table) >= 2:
            a, b = rng.sample(range(len(table)), 2)
            table[b].insert(
                rng.randint(0, len(table[b])), table[a].pop(rng.randrange(len(table[a])))
            )
            moves.append(Move(tuple(tuple(m) for m in table if m), move.to_hand))
    return moves


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(REARRANGEMENT), st.integers(0, 10**6), st.randoms(use_true_random=False))
def test_wild_accounting_shortcuts(ruleset_id: str, seed: int, rng: random.Random) -> None:
    position = random_position(ruleset_id, seed)
    for move in _moves(position, rng):
        flow = count_flow(position, move)
        verdicts = [classify(position.ruleset, meld) for meld in move.table]
        for combo in itertools.product(*[v.readings or (None,) for v in verdicts]):
            after = [AfterMeld(meld, r) for meld, r in zip(move.table, combo, strict=True)]
            full = WildAccounting(position, after, flow)
            outcome = full.run()
            assert account_wilds(position, after, flow) == outcome
            if not flow.wild_before:
                assert outcome == WildOutcome(ok=True)
            wild_melds = {w.meld for w in full.wilds}
            assert full.possible == _links(position, after, wild_melds)
