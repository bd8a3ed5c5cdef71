"""Carioca's melds (C3, C5): trios and same-suit sequences, as laid at the opening and as grown.

A *trio* is cards of one rank, suits free (two decks), every joker standing for that rank.
A *sequence* is consecutive positions of one suit, 1 = low ace … 14 = high ace, never
wrapping; a joker stands for the card of its position. The opening lays exact shapes
(trio of 3, sequence of 4, at most one joker each, C3); lay-offs grow them (trios past 3,
sequences up to A-low…A-high, any number of jokers, C5).

Readings reuse ``solver.rummy.melds.Reading`` so that a carioca position's table is typed
like every other rummy table. A meld with one natural card and several jokers can read as
both a trio and a sequence: it is ambiguous unless its jokers carry values (SPEC §2).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from solver.core.cards import SUIT_GLYPHS, TableCard, WildValue, rank_name
from solver.core.rulesets import ContractRules, Ruleset, rank_of_position
from solver.rummy.melds import MeldClassification, MeldKind, Reading, ambiguity_reason

LOW_ACE, HIGH_ACE = 1, 14
TABLE_MIN_TRIO = 3  # a trio on the table was laid with 3 cards and may only grow (C5)
TABLE_MIN_SEQUENCE = 4  # likewise a sequence, laid with 4 (C5)
MAX_SEQUENCE = 14  # A-low … A-high with two physical aces (C5)


def _codes(cards: Sequence[TableCard]) -> str:
    return " ".join(tc.code for tc in cards)


def _trio_reading(cards: Sequence[TableCard], rank: int) -> Reading | None:
    """The cards as a trio of ``rank``: naturals of that rank, jokers standing for it."""
    values: list[WildValue] = []
    wild: list[bool] = []
    for tc in cards:
        card = tc.card
        if card.is_joker:
            if tc.value is not None and tc.value.rank != rank:
                return None
            values.append(WildValue(rank, None))
            wild.append(True)
        elif card.rank == rank and tc.value is None:
            values.append(WildValue(rank, card.suit))
            wild.append(False)
        else:
            return None
    if all(wild):
        return None
    return Reading(MeldKind.GROUP, tuple(values), tuple(wild), (), None, rank)


def _sequence_reading(cards: Sequence[TableCard], start: int, suit: str) -> Reading | None:
    """The cards as the sequence of ``suit`` from position ``start``, in the listed order."""
    positions = tuple(range(start, start + len(cards)))
    if start < LOW_ACE or positions[-1] > HIGH_ACE:
        return None
    values: list[WildValue] = []
    wild: list[bool] = []
    for tc, position in zip(cards, positions, strict=True):
        rank = rank_of_position(position)
        card = tc.card
        if card.is_joker:
            declared = tc.value
            if declared is not None and (
                declared.rank != rank or declared.suit not in (None, suit)
            ):
                return None
            values.append(WildValue(rank, suit))
            wild.append(True)
        elif card.rank == rank and card.suit == suit and tc.value is None:
            values.append(WildValue(rank, suit))
            wild.append(False)
        else:
            return None
    if all(wild):
        return None
    return Reading(MeldKind.SEQUENCE, tuple(values), tuple(wild), positions, suit, 0)


def _sequence_starts(cards: Sequence[TableCard]) -> list[tuple[int, str]]:
    """Where a sequence could start: its first natural card pins the suit and, but for an
    ace (low or high), the position."""
    for index, tc in enumerate(cards):
        if tc.card.is_joker:
            continue
        rank, suit = tc.card.rank, tc.card.suit
        places = (LOW_ACE, HIGH_ACE) if rank == 1 else (rank,)
        return [(place - index, suit) for place in places]
    return []


def readings(cards: Sequence[TableCard], min_sequence: int = TABLE_MIN_SEQUENCE) -> list[Reading]:
    """Every reading of the cards as a carioca meld of any size (trio first)."""
    found: list[Reading] = []
    natural = next((tc.card for tc in cards if not tc.card.is_joker), None)
    if natural is None:
        return found
    trio = _trio_reading(cards, natural.rank)
    if trio is not None and len(cards) >= TABLE_MIN_TRIO:
        found.append(trio)
    if min_sequence <= len(cards) <= MAX_SEQUENCE:
        for start, suit in _sequence_starts(cards):
            sequence = _sequence_reading(cards, start, suit)
            if sequence is not None:
                found.append(sequence)
    return found


def _basic_problem(ruleset_id: str, cards: Sequence[TableCard]) -> str:
    """What is wrong whatever meld the cards would be: foreign cards, values on naturals."""
    for tc in cards:
        card = tc.card
        if card.special and not card.is_joker:
            return f"{card.code} is not a card of {ruleset_id}"
        if tc.value is not None and not card.is_joker:
            return f"{tc.code}: only a wild card may carry a value after '='"
    if cards and all(tc.card.is_joker for tc in cards):
        return f"{_codes(cards)}: a meld needs at least one natural card (C3)"
    return ""


def _why_no_reading(cards: Sequence[TableCard]) -> str:
    """Why the cards are neither a trio nor a sequence on a carioca table, in a sentence."""
    text = _codes(cards)
    naturals = [tc.card for tc in cards if not tc.card.is_joker]
    if len(cards) < TABLE_MIN_TRIO:
        return f"{text}: a carioca meld has at least 3 cards (C3)"
    if len({c.rank for c in naturals}) == 1:
        return f"{text}: a joker's written value fits neither the trio's rank nor its place (C3)"
    if len(cards) < TABLE_MIN_SEQUENCE:
        return f"{text}: a trio is one rank and a sequence has at least 4 cards (C3)"
    if len({c.suit for c in naturals}) > 1:
        return f"{text}: a sequence's cards must all be of one suit (C3)"
    if len(cards) > MAX_SEQUENCE:
        return f"{text}: a sequence has at most 14 cards, A-low to A-high (C5)"
    return (
        f"{text} is neither a trio (one rank) nor a sequence (consecutive cards of one suit "
        "in ascending order, ace low or high, no wrap) (C3, C5)"
    )


def classify_table_meld(ruleset: Ruleset, cards: Sequence[TableCard]) -> MeldClassification:
    """A carioca table meld as laid and grown (C5): trios of 3 or more, sequences of 4-14."""
    return _classify_table(ruleset.id, tuple(cards))


@functools.lru_cache(maxsize=4096)
def _classify_table(ruleset_id: str, cards: tuple[TableCard, ...]) -> MeldClassification:
    problem = _basic_problem(ruleset_id, cards)
    if problem:
        return MeldClassification(cards, (), problem)
    found = readings(cards)
    if not found:
        return MeldClassification(cards, (), _why_no_reading(cards))
    if len(found) > 1:
        return MeldClassification(cards, tuple(found), ambiguity_reason(cards, found))
    return MeldClassification(cards, tuple(found))


@dataclass(frozen=True)
class OpeningCheck:
    """A new meld of the opening turn, judged against C3's exact shapes."""

    reading: Reading | None  # the table reading, when the cards are a carioca meld at all
    shape_ok: bool  # an opening trio of exactly 3 or sequence of exactly 4, ≤ 1 joker
    reason: str  # why not, "" when shape_ok


def check_opening_meld(
    ruleset: Ruleset, rules: ContractRules, cards: Sequence[TableCard]
) -> OpeningCheck:
    """Is this new meld one opening meld (C3)? Tells a too-long meld (an extra card laid in
    the opening turn, C4) from no meld at all, and counts the jokers (at most one, C3)."""
    text = _codes(cards)
    problem = _basic_problem(ruleset.id, cards)
    if problem:
        return OpeningCheck(None, False, problem)
    found = readings(cards, min_sequence=rules.opening_sequence_size)
    if not found:
        if len(cards) == 3 and len({tc.card.rank for tc in cards if not tc.card.is_joker}) > 1:
            return OpeningCheck(
                None, False, f"{text}: an opening sequence has exactly 4 cards of one suit (C3)"
            )
        return OpeningCheck(None, False, _why_no_reading(cards))
    jokers = sum(1 for tc in cards if tc.card.is_joker)
    if jokers > rules.opening_wilds_per_meld:
        return OpeningCheck(
            found[0],
            False,
            f"{text}: an opening meld holds at most {rules.opening_wilds_per_meld} joker, "
            f"not {jokers} (C3)",
        )
    if len(found) > 1:
        return OpeningCheck(None, False, ambiguity_reason(cards, found))
    reading = found[0]
    size = (
        rules.opening_trio_size if reading.kind is MeldKind.GROUP else rules.opening_sequence_size
    )
    if len(cards) != size:
        return OpeningCheck(reading, False, "")
    return OpeningCheck(reading, True, "")


def describe(reading: Reading) -> str:
    """``a trio of 8s`` or ``the sequence 4-5-6-7 in ♠``."""
    if reading.kind is MeldKind.GROUP:
        return f"a trio of {rank_name(reading.rank)}s"
    ranks = "-".join(rank_name(rank_of_position(p)) for p in reading.positions)
    return f"the sequence {ranks} in {SUIT_GLYPHS[reading.suit or 'S']}"


def read_continuation(previous: Reading, cards: Sequence[TableCard]) -> Reading | None:
    """The cards read as a lay-off onto ``previous`` (C5): a trio of the same rank, or a
    sequence of the same suit whose natural cards keep their positions. None when the cards
    cannot continue that meld."""
    if not cards or len(cards) > MAX_SEQUENCE:
        return None
    if previous.kind is MeldKind.GROUP:
        return _trio_reading(cards, previous.rank)
    suit = previous.suit or ""
    for start, natural_suit in _sequence_starts(cards):
        if natural_suit == suit:
            reading = _sequence_reading(cards, start, suit)
            if reading is not None:
                return reading
    return None
