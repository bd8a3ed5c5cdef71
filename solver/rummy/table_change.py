"""What a move changed on the table: the melds before and after compared as multisets.

A meld's identity is asked two ways, both here:

* ``meld_key``, as written (the referee's R6 and R8): the same cards in the same written
  order, except that a group's order does not matter. ``=`` annotations are ignored: a
  wild whose value changes while its meld keeps its cards is caught by the wild
  accounting (R5), not here.
* ``stands_key``, as the player sees it (melds changed by a hint, distinct hints): the
  same cards, in any order, each wild standing for the same rank. A meld whose wild now
  stands for another rank is a changed meld, although R6 sees it kept.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from solver.core.cards import Card, TableCard, WildValue
from solver.core.rulesets import Ruleset
from solver.rummy.melds import (
    CLASSIFY_CACHE_SIZE,
    INTERNED,
    PASSING_CACHE_SIZE,
    MeldClassification,
    RulesetKey,
    memo_by_meld_object,
    ruleset_key,
)
from solver.rummy.position import Meld, Position

T = TypeVar("T")

MeldKey = tuple[str, ...]


def meld_key(ruleset: Ruleset, cards: Sequence[TableCard]) -> MeldKey:
    """The identity of a meld: its card codes, sorted when it can only be a group (its cards
    that cannot be wild share one rank): a group's order means nothing (R3)."""
    return _keyed(ruleset_key(ruleset), cards)


# A pure function of immutable inputs asked twice per meld and call (the table before and
# after): a lookup costs a third of working the key out again.
@functools.lru_cache(maxsize=CLASSIFY_CACHE_SIZE)
def _meld_key_cached(key: RulesetKey, cards: tuple[TableCard, ...]) -> MeldKey:
    ruleset = key.ruleset
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


# A meld object's key by its id, as ``melds.classify`` keeps its verdict: the parsed melds
# are interned, so this skips hashing their cards.
_keyed = memo_by_meld_object(_meld_key_cached)


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
    rules = ruleset_key(ruleset)
    pool = Counter([_keyed(rules, meld) for meld in before])
    kept: dict[MeldKey, int] = {}
    new: list[int] = []
    for j, meld in enumerate(after):
        key = _keyed(rules, meld)
        left = pool.get(key, 0)  # not pool[key]: a Counter's miss is a Python call
        if left > 0:
            pool[key] = left - 1
            kept[key] = kept.get(key, 0) + 1
        else:
            new.append(j)
    return TableChange(Counter(kept), +pool, tuple(new))


StandsKey = tuple[tuple[Card, int], ...]


def stands_key(cards: Iterable[tuple[Card, WildValue | None]]) -> StandsKey:
    """A meld as the player sees it: each card with the rank it stands for as a wild (0:
    natural, or a mexe-mexe 2 standing for its own rank), in any order. The same cards can
    hold wilds of other ranks where another copy of a natural released them: vatikan
    `AS JK=A JK=A` laid again as `AS JK=2 JK=3`, a group become a run. A wild's suit is not
    compared: a note in a group, the naturals' in a run."""
    return tuple(sorted([(c, 0 if v is None or v.rank == c.rank else v.rank) for c, v in cards]))


def _before_key(classified: MeldClassification) -> StandsKey:
    # A meld before, its wilds' values read (a bare `JK` stands for one).
    known = _BEFORE_KEYS.get(id(classified)) or _PASSING_BEFORE.get(id(classified))
    if known is not None and known[0] is classified:
        return known[1]
    reading = classified.reading
    stands = zip(classified.cards, reading.values, reading.wild, strict=True)
    key = stands_key((tc.card, v if w else None) for tc, v, w in stands)
    _remember(_BEFORE_KEYS, _PASSING_BEFORE, classified, classified.cards, key)
    return key


def _after_key(meld: Meld) -> StandsKey:
    known = _AFTER_KEYS.get(id(meld)) or _PASSING_AFTER.get(id(meld))
    if known is not None and known[0] is meld:
        return known[1]
    key = stands_key((tc.card, tc.value) for tc in meld)
    if isinstance(meld, tuple):  # immutable: its key stays its key
        _remember(_AFTER_KEYS, _PASSING_AFTER, meld, meld, key)
    return key


# Keys by object id, an entry holding its object (so no other object has that id while it is
# there), as the meld caches keep theirs (``melds.memo_by_meld_object``): a meld the parse
# interned (a table's, or an answer's written by ``position.interned_meld``) recurs call
# after call and is kept long; any other (a meld a search rebuilt) only in a small memo for
# its own call. Working a key out again hashes and sorts every card.
_BEFORE_KEYS: dict[int, tuple[MeldClassification, StandsKey]] = {}
_AFTER_KEYS: dict[int, tuple[Meld, StandsKey]] = {}
_PASSING_BEFORE: dict[int, tuple[MeldClassification, StandsKey]] = {}
_PASSING_AFTER: dict[int, tuple[Meld, StandsKey]] = {}


def _remember(
    lasting: dict[int, tuple[T, StandsKey]],
    passing: dict[int, tuple[T, StandsKey]],
    owner: T,
    meld: Sequence[TableCard],
    key: StandsKey,
) -> None:
    interned = INTERNED.get(id(meld)) is meld
    memo = lasting if interned else passing
    if len(memo) >= (CLASSIFY_CACHE_SIZE if interned else PASSING_CACHE_SIZE):
        memo.clear()
    memo[id(owner)] = (owner, key)


def changed_melds(position: Position, table: tuple[Meld, ...]) -> tuple[int, tuple[bool, ...]]:
    """How many melds before have no meld of the very same cards after, their wilds
    standing for the same ranks (``stands_key``), and which melds after are new."""
    before = Counter(_before_key(c) for c in position.readings)
    flags = []
    for meld in table:
        key = _after_key(meld)
        if before[key] > 0:
            before[key] -= 1
            flags.append(False)
        else:
            flags.append(True)
    return sum(before.values()), tuple(flags)


def changed_indices(
    position: Position, table: tuple[Meld, ...]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The melds before that the table after does not keep (indices into the position's
    table) and the melds after that are not kept ones (indices into ``table``), by the same
    identity as ``changed_melds``: a meld before is kept by the first meld after of the very
    same cards, its wilds standing for the same ranks."""
    waiting: dict[object, list[int]] = {}
    for m, reading in enumerate(position.readings):
        waiting.setdefault(_before_key(reading), []).append(m)
    new: list[int] = []
    for j, meld in enumerate(table):
        kept = waiting.get(_after_key(meld))
        if kept:
            kept.pop(0)
        else:
            new.append(j)
    changed = sorted(m for indices in waiting.values() for m in indices)
    return tuple(changed), tuple(new)
