"""The brute-force reference for ValidateMove's suggestion (issue #53) and the illegal
proposals it is tested on.

``nearest`` lists every legal move of a small position (``bruteforce.Enumeration``, each
judged by the referee, R8's maximal add applied from the enumeration itself, as
``bruteforce.solve`` does) and picks by the three keys of docs/validate.md "Suggestions":
the most of the proposal's hand cards laid and no other, then the most proposal melds kept
exactly, then the fewest melds before changed. It shares nothing with the CP-SAT search
(``solver.rearrangement.suggest``) but the referee.

``proposals`` makes illegal proposals the way players make them: starting from a legal move
or the table as it was, a card moved between melds, a wild's value changed, a table card
taken back, an extra hand card added, a meld split or two merged.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from solver.core.cards import Card, TableCard, WildValue
from solver.core.rulesets import Ruleset
from solver.rearrangement.referee import judge_move
from solver.rummy.melds import classify
from solver.rummy.position import Meld, Move, Position
from tests.reference.bruteforce import (
    Candidate,
    Enumeration,
    base_validator,
    melds_changed,
    solve,
)

Keys = tuple[int, int, int]  # (hand cards laid, proposal melds kept, -melds changed)


@dataclass(frozen=True)
class Nearest:
    """The reference's best keys and one move reaching them (None: no suggestion)."""

    keys: Keys | None
    witness: Move | None
    wanted: Counter[Card]


def hand_cards_laid(position: Position, proposal: Move) -> Counter[Card]:
    """The proposal's hand cards, read from the issue's own words: the hand cards on its
    table beyond the table's own copies (a card in ``to_hand`` left the table), clipped to
    the hand."""
    hand = Counter(position.hand)
    before = position.table_cards()
    after = proposal.table_cards()
    back = Counter(proposal.to_hand)
    out: Counter[Card] = Counter()
    for card in hand:
        extra = after[card] - (before[card] - min(back[card], before[card]))
        out[card] = max(0, min(extra, hand[card]))
    return +out


def stands(meld: Sequence[TableCard]) -> tuple[tuple[str, int], ...]:
    """A meld's cards, each with the rank it stands for as a wild (0: as itself)."""
    return tuple(sorted((tc.card.code, _wild_rank(tc)) for tc in meld))


def _wild_rank(tc: TableCard) -> int:
    return 0 if tc.value is None or tc.value.rank == tc.card.rank else tc.value.rank


def proposal_melds_kept(ruleset: Ruleset, proposal: Move, table: Sequence[Meld]) -> int:
    """How many of the proposal's melds ``table`` holds exactly, each matched once: the
    same cards, each wild standing for the same rank (a valid meld's bare ``JK`` read as
    the referee reads it)."""
    left = Counter(stands(meld) for meld in table)
    kept = 0
    for written in proposal.table:
        meld = _read(ruleset, written)
        key = stands(meld)
        if left[key] > 0:
            left[key] -= 1
            kept += 1
    return kept


def _read(ruleset: Ruleset, meld: Meld) -> Meld:
    """The meld with its wilds' values written out, read in order if written out of order
    (by the rank each card stands for, aces low, then high): kept means the same cards."""
    for ace in (None, 1, 14):
        ordered = meld if ace is None else tuple(sorted(meld, key=lambda tc: _rank(tc, ace)))
        classified = classify(ruleset, ordered)
        if classified.ok:
            return classified.normalized
    return meld


def _rank(tc: TableCard, ace: int) -> int:
    rank = tc.value.rank if tc.value is not None else tc.card.rank
    return ace if rank == 1 else rank


def keys_of(position: Position, proposal: Move, table: Sequence[Meld], laid: int) -> Keys:
    kept = proposal_melds_kept(position.ruleset, proposal, table)
    return (laid, kept, -melds_changed(position, table))


class Oracle:
    """One position's legal moves, listed once and then asked about many proposals."""

    def __init__(self, position: Position) -> None:
        self.position = position
        self.enumeration = Enumeration(position)
        optima = solve(position)
        self.any_play = optima.any_play
        self.largest_add = optima.add_only.value if optima.add_only else 0
        self.max_placed = optima.max_placed
        self._legal: list[Candidate] | None = None

    def legal_moves(self) -> list[Candidate]:
        if self._legal is None:
            self._legal = [c for c in self._candidates() if self._legal_play(c)]
        return self._legal

    def _candidates(self) -> Iterator[Candidate]:
        for split in self.enumeration.splits():
            yield from self.enumeration.tables(split)

    def _legal_play(self, c: Candidate) -> bool:
        maximal_rule = self.position.ruleset.rearrangement.add_must_be_maximal
        if maximal_rule and c.new_melds <= 0 and len(c.played) != self.largest_add:
            return False
        return base_validator(self.position, c.move).legal

    def is_illegal(self, proposal: Move) -> bool:
        verdict = judge_move(self.position, proposal, max_placed=self.max_placed)
        return not verdict.legal

    def nearest(self, proposal: Move) -> Nearest:
        wanted = hand_cards_laid(self.position, proposal)
        best: Keys | None = None
        witness: Move | None = None
        if not self.any_play:
            return Nearest(None, None, wanted)
        for c in self.legal_moves():
            played = Counter(c.played)
            if played - wanted:
                continue  # a hand card the proposal did not lay
            keys = keys_of(self.position, proposal, c.move.table, len(c.played))
            if best is None or keys > best:
                best, witness = keys, c.move
        return Nearest(best, witness, wanted)


# ------------------------------------------------------------------------------------------
# Proposals as players make them


def _copy(table: Sequence[Meld]) -> list[list[TableCard]]:
    return [list(meld) for meld in table]


def _move_card(table: list[list[TableCard]], rng: random.Random, position: Position) -> None:
    if len(table) < 2:
        return
    a, b = rng.sample(range(len(table)), 2)
    if table[a]:
        card = table[a].pop(rng.randrange(len(table[a])))
        table[b].insert(rng.randrange(len(table[b]) + 1), card)


def _change_wild(table: list[list[TableCard]], rng: random.Random, position: Position) -> None:
    wilds = [
        (i, j)
        for i, meld in enumerate(table)
        for j, tc in enumerate(meld)
        if position.ruleset.is_wild_card(tc.card)
    ]
    if not wilds:
        return
    i, j = rng.choice(wilds)
    card = table[i][j].card
    table[i][j] = TableCard(card, WildValue(rng.randint(1, 13), None))


def _take_back(table: list[list[TableCard]], rng: random.Random, position: Position) -> None:
    melds = [i for i, meld in enumerate(table) if meld]
    if melds:
        i = rng.choice(melds)
        table[i].pop(rng.randrange(len(table[i])))


def _add_hand_card(table: list[list[TableCard]], rng: random.Random, position: Position) -> None:
    if not position.hand:
        return
    card = rng.choice(position.hand)
    if table and rng.random() < 0.8:
        i = rng.randrange(len(table))
        table[i].insert(rng.randrange(len(table[i]) + 1), TableCard(card, None))
    else:
        table.append([TableCard(card, None)])


def _split(table: list[list[TableCard]], rng: random.Random, position: Position) -> None:
    long = [i for i, meld in enumerate(table) if len(meld) >= 2]
    if long:
        i = rng.choice(long)
        cut = rng.randrange(1, len(table[i]))
        table[i], rest = table[i][:cut], table[i][cut:]
        table.append(rest)


def _merge(table: list[list[TableCard]], rng: random.Random, position: Position) -> None:
    if len(table) >= 2:
        a, b = sorted(rng.sample(range(len(table)), 2))
        table[a] += table.pop(b)


MUTATIONS = (_move_card, _change_wild, _take_back, _add_hand_card, _split, _merge)


def _start(oracle: Oracle, rng: random.Random) -> Move:
    """A legal move when there is one (half the time), else the table as it was."""
    legal = oracle.legal_moves()
    if legal and rng.random() < 0.5:
        return rng.choice(legal).move
    return Move(oracle.position.table)


def proposals(oracle: Oracle, rng: random.Random, count: int, tries: int = 40) -> list[Move]:
    """Up to ``count`` distinct illegal proposals, each one or two mutations of a start."""
    out: list[Move] = []
    seen: set[tuple[tuple[str, ...], ...]] = set()
    for _ in range(tries):
        if len(out) >= count:
            break
        start = _start(oracle, rng)
        table = _copy(start.table)
        for mutate in rng.sample(MUTATIONS, rng.choice((1, 1, 2))):
            mutate(table, rng, oracle.position)
        melds = tuple(tuple(meld) for meld in table if meld)
        key = tuple(tuple(tc.code for tc in meld) for meld in melds)
        if key in seen:
            continue
        seen.add(key)
        proposal = Move(melds, start.to_hand)
        if oracle.is_illegal(proposal):
            out.append(proposal)
    return out
