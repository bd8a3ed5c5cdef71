"""What a move changed on the table: melds compared as a multiset, ignoring order and notes.

Two melds are the same when they hold the same cards in the same written order, except
that a group's order does not matter. ``=`` annotations are ignored: a wild whose value
changes while its meld keeps its cards is caught by the wild accounting (R5), not here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from solver.core.cards import TableCard
from solver.core.rulesets import Ruleset
from solver.rummy.position import Meld

MeldKey = tuple[str, ...]


def meld_key(ruleset: Ruleset, cards: Sequence[TableCard]) -> MeldKey:
    """The identity of a meld: its card codes, sorted when it can only be a group (its cards
    that cannot be wild share one rank): a group's order means nothing (R3)."""
    codes = tuple([tc.card.code for tc in cards])
    rank = None
    for tc in cards:
        if ruleset.is_wild_card(tc.card):
            continue
        if rank is None:
            rank = tc.card.rank
        elif tc.card.rank != rank:
            return codes  # two ranks: a sequence, whose order is its identity
    return tuple(sorted(codes))


@dataclass(frozen=True)
class TableChange:
    """The melds a move kept, and those it made or unmade."""

    kept: Counter[MeldKey]
    gone: Counter[MeldKey]  # melds of the table before that are not in the table after
    new: tuple[int, ...]  # indices of the move's melds that were not on the table before

    @property
    def changed(self) -> bool:
        return bool(self.gone) or bool(self.new)


def table_change(ruleset: Ruleset, before: Sequence[Meld], after: Sequence[Meld]) -> TableChange:
    """Match the melds after against those before, as multisets."""
    pool = Counter(meld_key(ruleset, meld) for meld in before)
    kept: Counter[MeldKey] = Counter()
    new: list[int] = []
    for j, meld in enumerate(after):
        key = meld_key(ruleset, meld)
        if pool[key] > 0:
            pool[key] -= 1
            kept[key] += 1
        else:
            new.append(j)
    return TableChange(kept, +pool, tuple(new))
