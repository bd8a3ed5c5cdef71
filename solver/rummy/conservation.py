"""Card conservation (R6, R5's mexe-mexe exception) as multisets of card codes.

Two decks hold two copies of most cards, so nothing here tracks physical cards: it only
counts, code by code, how the cards of the table before and of the hand end up.

For every code ``c``::

    back[c]    = the copies the move sends from the table to the hand (``to_hand``)
    stays[c]   = before[c] - back[c]            copies that must still be on the table
    played[c]  = max(0, after[c] - stays[c])    copies that came from the hand
    removed[c] = max(0, stays[c] - after[c])    copies that vanished

Which copies go back is decided by the wild accounting (``solver.rearrangement.wilds``); here
only the counts that no assignment can fix are reported.

A hand copy laid while a copy of the same code goes back to the hand (a mexe-mexe 2 laid,
an identical released 2 taken back) leaves the table and the hand as they were: the pair
is a *swap* and lays nothing (docs/rules.md, "What counts as laid"). Conservation still
counts it gross (the hand must hold the copy it lays); what the play lays is net of it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from solver.core.cards import Card, sort_key
from solver.core.violations import Violation, ViolationCode
from solver.rummy.melds import Reading, card_text, classify
from solver.rummy.position import Move, Position


@dataclass(frozen=True)
class CardFlow:
    """Where the cards of a move come from and go, counted by code."""

    before: Counter[Card]  # the table before the play
    after: Counter[Card]  # the table after the play
    hand: Counter[Card]
    back: Counter[Card]  # table copies sent to the hand (at most what was on the table)
    played: Counter[Card]  # copies laid beyond what stayed: they must come from the hand
    removed: Counter[Card]  # table copies missing from the table and not sent back
    wild_before: Counter[Card]  # copies acting as wilds on the table before

    # Computed once per flow: the validator reads each of these on every move it judges.
    @cached_property
    def from_hand(self) -> Counter[Card]:
        """Copies laid from the hand, swaps included (only those the hand really holds)."""
        return self.played & self.hand

    @cached_property
    def swapped(self) -> Counter[Card]:
        """Copies laid from the hand while a copy of the same code goes back: no play."""
        return self.from_hand & self.back if self.back else Counter()

    @cached_property
    def laid(self) -> Counter[Card]:
        """The hand cards the play lays on the table, net of swaps (read, never changed:
        without a card sent back it is ``from_hand`` itself)."""
        return self.from_hand - self.back if self.back else self.from_hand

    @property
    def played_cards(self) -> tuple[Card, ...]:
        return tuple(sorted(self.laid.elements(), key=sort_key))

    @property
    def played_count(self) -> int:
        return sum(self.laid.values())

    @property
    def laid_any(self) -> bool:
        """Whether any card joined the table beyond swaps (from the hand or from nowhere)."""
        swapped = self.swapped
        if not swapped:  # the usual move: every count in ``played`` is positive
            return bool(self.played)
        return any(n > swapped[c] for c, n in self.played.items())


def table_readings(position: Position) -> tuple[Reading, ...]:
    """The reading of every meld of the table before (classified here if the position was
    built by hand without them). The position's melds are valid: ``parse_position`` checks."""
    verdicts = position.readings
    if len(verdicts) != len(position.table):
        verdicts = tuple(classify(position.ruleset, meld) for meld in position.table)
    return tuple(v.reading for v in verdicts)


def count_flow(position: Position, move: Move) -> CardFlow:
    """Count the flow of cards for a move, without judging it."""
    before = position.table_cards()
    after = move.table_cards()
    to_hand = Counter(move.to_hand)
    back = to_hand & before
    stays = _excess(before, back) if back else before  # most moves send nothing back
    wild_before: Counter[Card] = Counter()
    for meld, reading in zip(position.table, table_readings(position), strict=True):
        if True not in reading.wild:  # most melds hold no wild: no card to look at
            continue
        for tc, is_wild in zip(meld, reading.wild, strict=True):
            if is_wild:
                wild_before[tc.card] += 1
    return CardFlow(
        before=before,
        after=after,
        hand=Counter(position.hand),
        back=back,
        played=_excess(after, stays),
        removed=_excess(stays, after),
        wild_before=wild_before,
    )


def _excess(a: Counter[Card], b: Counter[Card]) -> Counter[Card]:
    """``a - b`` for counts that are never negative, in ``a``'s order: ``Counter.__sub__``
    calls ``__missing__`` for every code absent from ``b``, a cost on every large table."""
    return Counter({card: n - b.get(card, 0) for card, n in a.items() if n > b.get(card, 0)})


def _copies(card: Card, count: int) -> str:
    text = card_text(card)
    return text if count == 1 else f"{count} × {text}"


def conservation_violations(position: Position, move: Move, flow: CardFlow) -> list[Violation]:
    """R6 (nothing leaves the table, new cards come from the hand) and R5's to_hand rule.

    A missing wild is also a WILD_TO_HAND: a card that leaves the table can only have gone
    to the hand, and the wild rules forbid that (docs/rules.md, "missing wilds").
    """
    return [
        *_removed_violations(position, flow),
        *_to_hand_violations(position, move, flow),
        *_played_violations(move, flow),
    ]


def _removed_violations(position: Position, flow: CardFlow) -> Iterator[Violation]:
    """Each card missing from the table after the play (R6), and a wild among them (R5)."""
    for card, count in sorted(flow.removed.items(), key=lambda kv: sort_key(kv[0])):
        were = "was" if count == 1 else "were"
        yield Violation(
            ViolationCode.TABLE_CARD_REMOVED,
            f"{_copies(card, count)} {were} on the table before and "
            f"{'is' if count == 1 else 'are'} missing after the play; no card may leave the "
            "table (R6)",
            "R6",
            -1,
            (card.code,) * count,
        )
        # Copies sent back are wilds first (a natural going back is reported below), so
        # the naturals still due on the table are those minus any natural sent back.
        naturals_back = max(0, flow.back[card] - flow.wild_before[card])
        naturals_due = flow.before[card] - flow.wild_before[card] - naturals_back
        wild_missing = count - naturals_due
        if wild_missing > 0 and flow.wild_before[card] > 0:
            hint = (
                " unless it is released and listed in to_hand"
                if position.ruleset.rearrangement.released_wild_to_hand
                else "; a released wild must go into another meld"
            )
            yield Violation(
                ViolationCode.WILD_TO_HAND,
                f"{card_text(card)} acted as a wild on the table and left it: a wild may "
                f"not go to the hand{hint} (R5)",
                "R5",
                -1,
                (card.code,) * wild_missing,
            )


def _to_hand_violations(position: Position, move: Move, flow: CardFlow) -> Iterator[Violation]:
    """Each card of ``to_hand`` that was not on the table, or that no rule lets go back."""
    for card, count in sorted(Counter(move.to_hand).items(), key=lambda kv: sort_key(kv[0])):
        absent = count - flow.before[card]
        if absent > 0:
            yield Violation(
                _to_hand_code(position, card),
                f"to_hand lists {_copies(card, absent)}, which "
                f"{'was' if absent == 1 else 'were'} not on the table before the play; "
                "only a card taken from the table can "
                "go back to the hand (R5, R6)",
                "R6",
                -1,
                (card.code,) * absent,
            )
        naturals_back = flow.back[card] - flow.wild_before[card]
        if naturals_back > 0:
            what = (
                f"{card_text(card)} is an ordinary card where it stands"
                if position.ruleset.is_wild_card(card)
                else f"{card_text(card)} is not a wild card"
            )
            yield Violation(
                ViolationCode.TABLE_CARD_REMOVED,
                f"{what}: it may not go from the table to the hand (R6)",
                "R6",
                -1,
                (card.code,) * naturals_back,
            )


def _played_violations(move: Move, flow: CardFlow) -> Iterator[Violation]:
    """Each card new on the table beyond the hand's copies of it (R6)."""
    for card, count in sorted(flow.played.items(), key=lambda kv: sort_key(kv[0])):
        missing = count - flow.hand[card]
        if missing <= 0:
            continue
        holds = flow.hand[card]
        held = "no" if holds == 0 else f"only {holds}"
        yield Violation(
            ViolationCode.CARD_NOT_IN_HAND,
            f"{_copies(card, count)} {'is' if count == 1 else 'are'} new on the table, "
            f"but the hand holds {held} {card_text(card)} (R6)",
            "R6",
            _meld_holding(move, card),
            (card.code,) * missing,
        )


def _to_hand_code(position: Position, card: Card) -> ViolationCode:
    if position.ruleset.is_wild_card(card):
        return ViolationCode.WILD_TO_HAND
    return ViolationCode.TABLE_CARD_REMOVED


def _meld_holding(move: Move, card: Card) -> int:
    """The one meld of the move holding ``card``, or -1 when several (or none) do."""
    holders = [m for m, meld in enumerate(move.table) if any(tc.card == card for tc in meld)]
    return holders[0] if len(holders) == 1 else -1
