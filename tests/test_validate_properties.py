"""Properties of ``validate_move`` on random legal moves (hypothesis).

A legal move is built backwards: a random table of valid melds (with annotated wilds) is the
table *after* the play; taking natural end cards off some melds, and at most the allowed
number of whole new melds, gives the table *before* and the cards the hand laid. Then:

- the move is legal, and its normalised table re-validates as a legal move with the same
  cards played;
- the table after, taken as a position, re-validates with nothing played as a legal pass;
- removing any card of the table before from the move's table makes it illegal with
  TABLE_CARD_REMOVED;
- the order of the move's melds does not change the verdict.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from solver.core.cards import JOKER_CARD, SUITS, Card, TableCard, WildValue
from solver.core.rulesets import RULESETS, Family, Ruleset, SuitRule, rank_of_position
from solver.core.violations import ViolationCode
from solver.rearrangement.referee import Verdict
from solver.rearrangement.search import validate_move
from solver.rummy.position import Meld, Move, Position, Turn, parse_move, parse_position

REARRANGEMENT = [r for r in RULESETS.values() if r.family is Family.REARRANGEMENT]
PLAYERS = {"carrossel": 3, "mexe-mexe": 3}  # two decks, so duplicates occur


@dataclass
class Built:
    ruleset: Ruleset
    players: int
    before: list[list[str]]
    after: list[list[str]]
    hand: list[str]
    turn: Turn


def _wild_cards(ruleset: Ruleset) -> list[Card]:
    return [c for c in [JOKER_CARD, *(Card(2, s) for s in SUITS)] if ruleset.is_wild_card(c)]


def _meld(rng: random.Random, ruleset: Ruleset, deck: Counter[Card]) -> list[TableCard] | None:
    """A random valid meld drawn from ``deck`` (which it depletes), wilds annotated."""
    if rng.random() < 0.5:
        positions = list(ruleset.sequence_positions)
        length = rng.randint(3, 6)
        start = rng.choice(positions[: len(positions) - length + 1])
        same = ruleset.melds.sequence_suits is SuitRule.SAME_SUIT
        suit = rng.choice(SUITS)
        cards = []
        for pos in range(start, start + length):
            rank = rank_of_position(pos)
            cards.append(Card(rank, suit if same else rng.choice(SUITS)))
        values = [WildValue(c.rank, c.suit if same else None) for c in cards]
    else:
        rank = rng.randint(1, 13)
        suits = rng.sample(SUITS, rng.randint(3, 4))
        cards = [Card(rank, s) for s in suits]
        values = [WildValue(rank, None) for _ in cards]
    out = [TableCard(c) for c in cards]
    wilds = _wild_cards(ruleset)
    if wilds and rng.random() < 0.5:
        k = rng.randrange(len(out))
        out[k] = TableCard(rng.choice(wilds), values[k])
    need = Counter(tc.card for tc in out)
    if any(deck[c] < n for c, n in need.items()):
        return None
    if ruleset.twos_wild and any(tc.card.rank == 2 and tc.value is None for tc in out):
        return None  # keep natural 2s out: which reading wins is melds.py's business
    deck.subtract(need)
    return out


def _release(
    rng: random.Random,
    ruleset: Ruleset,
    deck: Counter[Card],
    after: list[list[TableCard]],
    before: list[list[TableCard]],
    hand: list[Card],
) -> None:
    """R5's seed move: a hand card takes a wild's place and the wild joins another meld.

    On success the first two melds of ``after`` are the ones involved, and ``before`` gets
    their versions before the play.
    """
    wilds = [c for c in _wild_cards(ruleset) if deck[c] > 0]
    plain = [m for m in after if all(tc.value is None for tc in m)]
    if not wilds or len(plain) < 2:
        return
    home, other = rng.sample(plain, 2)
    naturals = [k for k, tc in enumerate(home) if tc.value is None]
    k = rng.choice(naturals)
    card = home[k].card
    same = ruleset.melds.sequence_suits is SuitRule.SAME_SUIT
    ranks = {tc.card.rank for tc in home}
    value = WildValue(card.rank, card.suit if same and len(ranks) > 1 else None)
    wild = rng.choice(wilds)
    other_ranks = {tc.card.rank for tc in other}
    if len(other_ranks) == 1:
        if len(other) > 3:
            return
        extended = [*other, TableCard(wild, WildValue(other[0].card.rank, None))]
    else:
        last = other[-1].card
        top = 14 if last.rank == 1 and other[-2].card.rank == 13 else last.rank
        if top + 1 not in ruleset.sequence_positions:
            return
        suit = last.suit if same else None
        extended = [*other, TableCard(wild, WildValue(rank_of_position(top + 1), suit))]
    deck[wild] -= 1
    home_before = list(home)
    home_before[k] = TableCard(wild, value)
    hand.append(card)
    after.remove(home)
    after.remove(other)
    after[:0] = [home, extended]
    before.extend([home_before, list(other)])


def _codes(meld: list[TableCard]) -> list[str]:
    return [tc.code for tc in meld]


def build(rng: random.Random) -> Built:
    ruleset = rng.choice(REARRANGEMENT)
    players = PLAYERS.get(ruleset.id, 2)
    deck = ruleset.deck(players)
    after: list[list[TableCard]] = []
    for _ in range(rng.randint(1, 5)):
        meld = _meld(rng, ruleset, deck)
        if meld is not None:
            after.append(meld)
    before: list[list[TableCard]] = []
    hand: list[Card] = []
    if rng.random() < 0.5:
        _release(rng, ruleset, deck, after, before, hand)
    limit = ruleset.rearrangement.max_new_melds
    new_allowed = limit if limit is not None else 99
    for meld in after[len(before) :]:
        if new_allowed > 0 and rng.random() < 0.25 and all(tc.value is None for tc in meld):
            new_allowed -= 1
            hand.extend(tc.card for tc in meld)
            continue
        kept = list(meld)
        if len(kept) > 3 and rng.random() < 0.6:
            # Take a natural card off an end (sequences) or anywhere (groups of 4).
            k = rng.choice([0, len(kept) - 1])
            if kept[k].value is None and sum(tc.value is None for tc in kept) > 1:
                hand.append(kept.pop(k).card)
        before.append(kept)
    extras = [c for c, n in deck.items() for _ in range(n)]
    hand.extend(rng.sample(extras, min(len(extras), rng.randint(0, 3))))
    drawn = 1 if ruleset.id in ("carrossel", "mexe-mexe") else 0
    turn = Turn(cards_drawn=drawn, has_melded_sequence=True, has_opened=True)
    rng.shuffle(after)
    return Built(
        ruleset,
        players,
        [_codes(m) for m in before],
        [_codes(m) for m in after],
        [c.code for c in hand],
        turn,
    )


def parsed(b: Built) -> tuple[Position, Move]:
    position = parse_position(b.ruleset.id, b.players, b.before, b.hand, b.turn)
    return position, parse_move(position, b.after)


def judge(position: Position, move: Move) -> Verdict:
    # Shangai/manipulation's search rules are exercised by the vectors, not here.
    return validate_move(position, move, search_rules=False)


@settings(max_examples=150, deadline=None)
@given(st.randoms(use_true_random=False))
def test_built_moves_are_legal_and_revalidate(rng: random.Random) -> None:
    b = build(rng)
    position, move = parsed(b)
    verdict = judge(position, move)
    assert verdict.legal, (b, [str(v) for v in verdict.violations])
    again = judge(position, Move(verdict.table))
    assert again.legal and again.table == verdict.table
    assert Counter(again.played) == Counter(verdict.played)
    # The table after, as a position: repeating it is a legal pass.
    after_codes = [[tc.code for tc in meld] for meld in verdict.table]
    later = parse_position(
        b.ruleset.id, b.players, after_codes, [c.code for c in verdict.hand_after], b.turn
    )
    passed = judge(later, parse_move(later, after_codes))
    assert passed.legal and not passed.played and passed.hand_after == verdict.hand_after


@settings(max_examples=100, deadline=None)
@given(st.randoms(use_true_random=False))
def test_removing_a_table_card_is_caught(rng: random.Random) -> None:
    b = build(rng)
    position, move = parsed(b)
    before = position.table_cards()
    after = move.table_cards()
    for j, meld in enumerate(move.table):
        for k, tc in enumerate(meld):
            if before[tc.card] == 0 or after[tc.card] > before[tc.card]:
                continue  # a card the hand laid: taking it back is just playing less
            table = list(move.table)
            table[j] = meld[:k] + meld[k + 1 :]
            if not table[j]:
                del table[j]
            verdict = judge(position, Move(tuple(table)))
            assert not verdict.legal
            assert ViolationCode.TABLE_CARD_REMOVED in verdict.codes, (b, j, k)


@settings(max_examples=100, deadline=None)
@given(st.randoms(use_true_random=False))
def test_meld_order_does_not_matter(rng: random.Random) -> None:
    b = build(rng)
    position, move = parsed(b)
    first = judge(position, move)
    shuffled: list[Meld] = list(move.table)
    rng.shuffle(shuffled)
    second = judge(position, Move(tuple(shuffled)))
    assert first.legal == second.legal
    assert Counter(first.codes) == Counter(second.codes)
    assert Counter(first.table) == Counter(second.table)
