"""The brute-force reference checked on its own: before it may judge the CP-SAT model.

- its meld catalogue equals hand-counted sets, and equals what ``classify`` accepts among
  every arrangement of a few cards (enumerated with python-constraint2);
- its exact covers equal hand counts and a naive set-partition enumeration;
- its optima on the SPEC's seed examples are the ones the SPEC states;
- the position generators give valid, deterministic, small positions within the deck.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest
from constraint import FunctionConstraint, Problem

from solver.core.cards import SUITS, Card, TableCard, WildValue, parse_card, parse_table_card
from solver.core.rulesets import RULESETS, SuitRule, rank_of_position
from solver.rummy.melds import MeldKind, classify
from solver.rummy.position import Meld, Position, Turn, parse_position
from tests.reference.bruteforce import (
    Enumeration,
    candidates,
    catalogue,
    format_move,
    solve,
    turn_allows_play,
)
from tests.reference.positions import MAX_HAND, MAX_TOTAL, REARRANGEMENT, random_spec


def _counts(codes: str) -> Counter[Card]:
    return Counter(parse_card(c) for c in codes.split())


def _catalogue_codes(ruleset_id: str, codes: str, size: int | None = None) -> set[str]:
    melds = catalogue(RULESETS[ruleset_id], _counts(codes))
    return {
        " ".join(tc.code for tc in m.cards) for m in melds if size is None or len(m.cards) == size
    }


# ------------------------------------------------------------------------------------------
# The catalogue, against hand counts (R2-R4)

HAND_COUNTED = [
    ("carrossel", "7H 8S 9D", {"7H 8S 9D"}),
    ("carrossel", "7H 8S JK", {"JK=6 7H 8S", "7H 8S JK=9"}),
    ("carrossel", "7H 7S JK", {"7H 7S JK=7"}),  # a wild's value in a group is its rank (R4)
    ("rummikub", "7H 7S JK", {"7H 7S JK=7", "7H 7S JK=7C", "7H 7S JK=7D"}),  # or a free suit
    ("carrossel", "AH 2S 3D", {"AH 2S 3D"}),  # ace low
    ("carrossel", "QH KS AD", {"QH KS AD"}),  # ace high
    ("carrossel", "KS AD 2H", set()),  # no wrap (R2)
    ("shangai", "QH KS AD", set()),  # ace low only
    ("shangai", "AH 2S 3D", {"AH 2S 3D"}),
    ("manipulation", "AH 2S 3D", set()),  # ace high only
    ("manipulation", "QH KS AD", {"QH KS AD"}),
    ("mexe-mexe", "AH 2H 3H", {"AH 2H 3H", "AH 2H=2H 3H"}),  # a 2 natural or wild (R4)
    ("mexe-mexe", "5H 6H 2C", {"2C=4H 5H 6H", "5H 6H 2C=7H"}),  # a wild 2 of another suit
    ("mexe-mexe", "5H 6S 7H", set()),  # same suit (R2)
    ("rummikub", "7H 7H 7S", set()),  # distinct suits in a group (R3)
]


@pytest.mark.parametrize(("ruleset_id", "cards", "expected"), HAND_COUNTED)
def test_r2_r4_catalogue_of_three_cards_is_the_hand_counted_one(
    ruleset_id: str, cards: str, expected: set[str]
) -> None:
    assert _catalogue_codes(ruleset_id, cards) == expected


def test_r2_r4_catalogue_with_two_jokers() -> None:
    # three sequences (the 7 first, middle or last) and one group of 7s: 4 melds of 3 cards
    assert _catalogue_codes("carrossel", "7H JK JK", size=3) == {
        "JK=5 JK=6 7H",
        "JK=6 7H JK=8",
        "7H JK=8 JK=9",
        "7H JK=7 JK=7",
    }


def test_r2_no_sequence_longer_than_thirteen() -> None:
    cards = " ".join(f"{r}H" for r in ("A", *map(str, range(2, 11)), "J", "Q", "K")) + " AS"
    lengths = {len(m.cards) for m in catalogue(RULESETS["carrossel"], _counts(cards))}
    assert max(lengths) == 13  # A-2-…-K or 2-…-K-A, never A-…-K-A


# ------------------------------------------------------------------------------------------
# The catalogue, against classify over every arrangement (python-constraint2)


def _slot_options(ruleset_id: str, available: Counter[Card]) -> list[TableCard]:
    """What one slot of a meld may hold: a card as itself, or a wild card with any value
    (ranks near the naturals present; suits only where sequences are same-suit, R4)."""
    ruleset = RULESETS[ruleset_id]
    positions = {p for c in available if c.is_ordinary for p in (c.rank, 14 if c.rank == 1 else 0)}
    ranks = sorted(
        {rank_of_position(q) for p in positions if p for q in range(p - 2, p + 3) if 1 <= q <= 14}
    )
    suited = ruleset.melds.sequence_suits is SuitRule.SAME_SUIT
    suits: tuple[str | None, ...] = (None, *SUITS) if suited else (None,)
    options = [TableCard(c) for c in sorted(available) if c.is_ordinary]
    for card in sorted(available):
        if ruleset.is_wild_card(card):
            options += [TableCard(card, WildValue(r, s)) for r in ranks for s in suits]
    return options


def _arrangements(ruleset_id: str, available: Counter[Card], size: int) -> Iterator[Meld]:
    """Every ordered choice of ``size`` slot options using no card more often than held."""
    options = _slot_options(ruleset_id, available)
    problem = Problem()
    slots = [f"slot{i}" for i in range(size)]
    problem.addVariables(slots, list(range(len(options))))

    def within(*chosen: int) -> bool:
        used = Counter(options[i].card for i in chosen)
        return all(available[c] >= k for c, k in used.items())

    problem.addConstraint(FunctionConstraint(within), slots)
    for solution in problem.getSolutionIter():
        yield tuple(options[solution[s]] for s in slots)


def _key(kind: MeldKind, meld: Meld) -> tuple[str, tuple[str, ...]]:
    codes = tuple(tc.code for tc in meld)
    return (kind.value, tuple(sorted(codes)) if kind is MeldKind.GROUP else codes)


def _classify_accepts(ruleset_id: str, available: Counter[Card], size: int) -> set[object]:
    """Melds classify reads one way, with every wild annotated and no natural annotated."""
    ruleset = RULESETS[ruleset_id]
    found: set[object] = set()
    for meld in _arrangements(ruleset_id, available, size):
        verdict = classify(ruleset, meld)
        if not verdict.ok:
            continue
        reading = verdict.reading
        if all((tc.value is not None) == w for tc, w in zip(meld, reading.wild, strict=True)):
            # JK=8 and JK=8H are one value in a hearts run (SPEC §2): compare normal forms
            found.add(_key(reading.kind, reading.normalized(meld)))
    return found


MAX_ARRANGEMENTS = 450_000
CROSS_CHECK_SETS = [
    ("carrossel", "7H 8S 9D 7S JK"),
    ("carrossel", "QH KS AD 2C JK"),
    ("vatikan", "5C 5D 6C 7H JK"),
    ("shangai", "AH 2S 3D 3C 4H"),
    ("manipulation", "JH QS KD AC AH"),
    ("rummikub", "9H 10H 9S 9C JK"),
    ("rummikub", "AH 2H 3H JK 3S"),
    ("mexe-mexe", "AH 2H 3H 2C"),
    ("mexe-mexe", "2C 2D 3D"),
    ("mexe-mexe", "9C 9D 2S 10C"),
    ("mexe-mexe", "QH KH 2S AH"),
]


@pytest.mark.parametrize(("ruleset_id", "cards"), CROSS_CHECK_SETS)
def test_r2_r4_catalogue_equals_what_classify_accepts(ruleset_id: str, cards: str) -> None:
    available = _counts(cards)
    options = len(_slot_options(ruleset_id, available))
    sizes = [n for n in (3, 4) if options**n <= MAX_ARRANGEMENTS]  # keep the CSP small
    assert 3 in sizes
    for size in sizes:
        expected = _classify_accepts(ruleset_id, available, size)
        melds = catalogue(RULESETS[ruleset_id], available)
        got = {_key(MeldKind(m.kind), m.cards) for m in melds if len(m.cards) == size}
        assert got == expected, (size, sorted(map(str, got ^ expected))[:10])


def test_every_catalogue_meld_has_the_intended_single_reading() -> None:
    rng = random.Random(4)
    for ruleset_id in REARRANGEMENT:
        ruleset = RULESETS[ruleset_id]
        deck = sorted(ruleset.deck(2).elements())
        for _ in range(15):
            available = Counter(rng.sample(deck, 8))
            for meld in catalogue(ruleset, available):
                verdict = classify(ruleset, meld.cards)
                assert verdict.ok, (ruleset_id, meld.cards, verdict.reason)
                assert verdict.reading.kind.value == meld.kind
                wild = tuple(tc.value is not None for tc in meld.cards)
                assert verdict.reading.wild == wild, (ruleset_id, meld.cards)
                assert verdict.normalized == meld.cards  # written in normal form


# ------------------------------------------------------------------------------------------
# Exact covers: hand counts and a naive set-partition enumeration


@pytest.mark.parametrize(
    ("ruleset_id", "cards", "expected"),
    [
        ("carrossel", "3H 4H 5H 3S 4S 5S", 4),  # the 3H run takes a 4 and a 5: 2 x 2 ways
        ("carrossel", "3C 3D 3H 3S", 1),  # one group of four
        ("carrossel", "JK 7H 8S 9D", 2),  # JK=6 in front or JK=10 behind
        ("carrossel", "3C 3D 3H 3S 4C", 0),
    ],
)
def test_exact_covers_of_a_whole_table(ruleset_id: str, cards: str, expected: int) -> None:
    # All the cards in the hand and all of them laid: the covers of exactly that multiset.
    position = parse_position(ruleset_id, 3, [], cards.split(), Turn(cards_drawn=1))
    enumeration = Enumeration(position)
    everything = tuple(enumeration.h)
    assert len(enumeration.tables((everything, (0,) * len(everything)))) == expected


def _set_partitions(items: list[int]) -> Iterator[list[list[int]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in _set_partitions(rest):
        yield [[first], *partition]
        for i in range(len(partition)):
            yield [*partition[:i], [first, *partition[i]], *partition[i + 1 :]]


def _naive_tables(cards: list[Card], melds: list[Meld]) -> set[tuple[tuple[str, ...], ...]]:
    """Every table of catalogue melds using exactly ``cards``, by brute set partition."""
    by_cards: dict[tuple[Card, ...], list[Meld]] = {}
    for meld in melds:
        by_cards.setdefault(tuple(sorted(tc.card for tc in meld)), []).append(meld)
    out: set[tuple[tuple[str, ...], ...]] = set()
    for partition in _set_partitions(list(range(len(cards)))):
        blocks = [by_cards.get(tuple(sorted(cards[i] for i in b)), []) for b in partition]
        if not all(blocks):
            continue
        stack: list[list[Meld]] = [[]]
        for options in blocks:
            stack = [[*done, m] for done in stack for m in options]
        for table in stack:
            out.add(tuple(sorted(tuple(tc.code for tc in m) for m in table)))
    return out


@pytest.mark.parametrize("ruleset_id", REARRANGEMENT)
def test_exact_covers_equal_a_naive_set_partition(ruleset_id: str) -> None:
    checked = 0
    for seed in range(200):
        spec = random_spec(ruleset_id, seed)
        position = spec.build()
        cards = sorted(position.table_cards().elements()) + sorted(position.hand)
        if len(cards) > 8:
            continue
        enumeration = Enumeration(position)
        everything = tuple(t + h for t, h in zip(enumeration.t, enumeration.h, strict=True))
        got = list(enumeration.covers(everything))
        tables = {
            tuple(sorted(tuple(tc.code for tc in enumeration.melds[i].cards) for i in chosen))
            for chosen in got
        }
        assert len(tables) == len(got), "a table was produced twice"
        assert tables == _naive_tables(cards, [m.cards for m in enumeration.melds]), spec
        checked += 1
    assert checked >= 20


@pytest.mark.parametrize("ruleset_id", REARRANGEMENT)
def test_candidates_are_distinct_and_conserve_cards(ruleset_id: str) -> None:
    for seed in range(60):
        position = random_spec(ruleset_id, seed).build()
        seen: set[object] = set()
        for c in candidates(position):
            assert c.move not in seen
            seen.add(c.move)
            after = c.move.table_cards()
            expected = position.table_cards() - Counter(c.move.to_hand) + Counter(c.played)
            assert after == expected
            assert Counter(c.hand_after) == (
                Counter(position.hand) - Counter(c.played) + Counter(c.move.to_hand)
            )
            assert c.played, "a candidate lays at least one hand card (R6)"


# ------------------------------------------------------------------------------------------
# The optima on the SPEC's seed examples


def _position(ruleset_id: str, table: str, hand: str, turn: Turn | None = None) -> Position:
    melds = [m.split() for m in table.split("|")] if table else []
    return parse_position(ruleset_id, 2, melds, hand.split(), turn or Turn(cards_drawn=1))


def test_r5_a_five_alone_cannot_use_the_joker() -> None:
    """Seed: with 7-8-Jk(9) on the table, a 5 alone cannot make 5-Jk(6)-7-8."""
    optima = solve(_position("carrossel", "7H 8S JK=9", "5C"))
    assert not optima.any_play


def test_r5_a_five_and_a_nine_release_the_joker() -> None:
    """Seed: a 5 and a 9 make 5-Jk(6)-7-8-9."""
    optima = solve(_position("carrossel", "7H 8S JK=9", "5C 9D"))
    assert optima.most_cards is not None and optima.go_out is not None
    assert optima.most_cards.value == 2
    assert format_move(optima.most_cards.witness.move) == "5C JK=6 7H 8S 9D"
    assert optima.most_cards.witness.releases


def test_r8_an_add_must_be_maximal() -> None:
    """Seed: with 8-9-10 on the table and 7 and J in hand, both must go."""
    position = _position("shangai", "8H 9S 10D", "7C JC", Turn())
    optima = solve(position)
    assert optima.add_only is not None and optima.add_only.value == 2
    assert optima.most_cards is not None and optima.most_cards.value == 2
    assert optima.fewest_points is not None and optima.fewest_points.value == 0


def test_r8_a_meld_play_need_not_be_maximal() -> None:
    """A meld play (net +1 meld) is legal even when an add would lay more (R8)."""
    position = _position("shangai", "8H 9S 10D", "7C JC 4S 4H 4D", Turn())
    optima = solve(position)
    assert optima.add_only is not None and optima.add_only.value == 2
    assert optima.most_cards is not None and optima.most_cards.value == 5


def test_r5_mexe_mexe_released_two_goes_to_the_hand() -> None:
    """A full group: the released 2 has no place on the table, only the hand (R5)."""
    optima = solve(_position("mexe-mexe", "9C 9D 9H 2C=9", "9S"))
    assert optima.most_cards is not None
    assert format_move(optima.most_cards.witness.move) == "9C 9D 9H 9S  to_hand: 2C"
    assert optima.go_out is None  # the 2 comes back to the hand


def test_r8_turn_rules_of_the_reference() -> None:
    assert not turn_allows_play(_position("carrossel", "", "5C", Turn(cards_drawn=3)))
    assert turn_allows_play(_position("carrossel", "", "5C", Turn(stock_empty=True)))
    assert not turn_allows_play(_position("mexe-mexe", "", "5C", Turn(cards_drawn=0)))
    assert not turn_allows_play(_position("vatikan", "", "5C", Turn(cards_drawn=1)))
    assert turn_allows_play(_position("shangai", "", "5C", Turn(cards_drawn=2)))
    optima = solve(_position("carrossel", "7H 8S 9D", "10C", Turn(cards_drawn=3)))
    assert not optima.any_play and not optima.notes


# ------------------------------------------------------------------------------------------
# The generators


@pytest.mark.parametrize("ruleset_id", REARRANGEMENT)
def test_generated_positions_are_valid_small_and_deterministic(ruleset_id: str) -> None:
    ruleset = RULESETS[ruleset_id]
    for seed in range(300):
        spec = random_spec(ruleset_id, seed)
        assert spec == random_spec(ruleset_id, seed)
        position = spec.build()  # parse_position: valid melds, counts within the deck (R1)
        cards = sum(len(m) for m in position.table) + len(position.hand)
        assert 1 <= len(position.hand) <= MAX_HAND
        assert cards <= MAX_TOTAL
        wilds = [c for c in position.table_cards().elements() if ruleset.is_wild_card(c)]
        wilds += [c for c in position.hand if ruleset.is_wild_card(c)]
        assert len(wilds) <= 3
        for meld in position.table:
            assert classify(ruleset, meld).ok


def test_generated_positions_use_the_wild_notation() -> None:
    joker_codes: Counter[tuple[str, bool]] = Counter()
    for ruleset_id in ("carrossel", "vatikan", "rummikub", "mexe-mexe"):
        for seed in range(200):
            for meld in random_spec(ruleset_id, seed).table:
                for code in meld:
                    tc = parse_table_card(code)
                    if tc.value is not None:
                        joker_codes[(ruleset_id, tc.value.suit is not None)] += 1
    assert joker_codes[("rummikub", True)] > 10  # JK=9H
    assert joker_codes[("carrossel", False)] > 10  # JK=9
    assert joker_codes[("mexe-mexe", True)] > 10  # 2C=7H
