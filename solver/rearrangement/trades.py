"""Cards traded between the melds of a found move so that it lays melds before again.

Where the model's count of melds changed is only an upper bound of the table's
(``TurnModel.keeps_exact``), trading one or two cards between two melds can show a meld
before unchanged; a trade is kept only if the move stays legal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from itertools import permutations, product

from solver.core.cards import Card, TableCard, WildValue
from solver.core.rulesets import Ruleset
from solver.rearrangement.model import TurnModel
from solver.rearrangement.referee import judge_move
from solver.rummy.melds import classify
from solver.rummy.position import Meld, Move
from solver.rummy.table_change import changed_melds


def lay_again(tm: TurnModel, move: Move) -> Move:
    """The move with two cards traded between two of its melds wherever that lays a meld
    before again card for card, so that ``changed_melds`` drops (``_swaps``). Asked only
    where the model's count is an upper bound of the table's (``TurnModel.keeps_exact``):
    vatikan ``JD QH KH JK=A | QH KS AD`` with ``AD`` in hand, whose solution may lay
    ``QH KH AD | 10D JD QH KS``; one trade makes it ``QH KS AD`` (the second meld,
    unchanged) and ``10D JD QH KH``. Likewise a natural for a wild of its value (D4):
    carrossel ``AC AD AH | JK=A JK=2 3H`` becomes ``AC JK=A AH | AD JK=2 3H``, which shows
    a group before, ``AH AC JK``. A trade is kept only if the move stays legal
    (``judge_move`` without R8's searches, which a trade cannot change: the same cards
    are laid in as many melds); ``_checked`` then judges the move in full."""
    position = tm.data.position
    wanted = [Counter(tc.card for tc in meld) for meld in position.table]
    table = move.table
    changed = changed_melds(position, table)[0]
    for _ in range(len(table)):  # each trade lays one more meld again
        for after in _swaps(tm.data.ruleset, table, wanted):
            fewer = changed_melds(position, after)[0]
            if (
                fewer < changed
                and judge_move(
                    position, Move(after, move.to_hand), max_placed=None, search_rules=False
                ).legal
            ):
                table, changed = after, fewer
                break
        else:
            break
    return Move(table, move.to_hand)


def _swaps(
    rs: Ruleset, table: tuple[Meld, ...], wanted: list[Counter[Card]]
) -> Iterator[tuple[Meld, ...]]:
    """Tables where one meld is made one of ``wanted`` by trading one or two of its cards
    for as many of one other meld, both still melds: each pair two naturals of one rank (so
    each meld keeps its kind, as vatikan's groups rule needs, R7), a natural for a wild
    standing for that very card, each then standing where the other stood, or a mexe-mexe 2
    and a wild 2 swapping roles (``_traded``).
    Two at once: vatikan `AC 2C 3C 4C 5C | 2C 3D 4H 5S` lays `AC 2C 3D 4H 5C` again by
    trading the 3♣ and 4♣ for the 3♦ and 4♥."""
    for want in wanted:
        for a, meld_a in enumerate(table):
            has = Counter(tc.card for tc in meld_a)
            give, take = has - want, want - has
            k = give.total()
            if not 1 <= k <= MAX_TRADED or take.total() != k:
                continue
            from_a = list(_places(meld_a, give.elements()))
            for b, meld_b in enumerate(table):
                if b == a or not take <= Counter(tc.card for tc in meld_b):
                    continue
                # Which taken card goes where each given one was (two equal ones: one way).
                for takes in dict.fromkeys(permutations(take.elements())):
                    for at_a, at_b in product(from_a, _places(meld_b, takes)):
                        after = _trade(rs, table, a, b, at_a, at_b)
                        if after is not None:
                            yield after


MAX_TRADED = 2  # the most cards one trade of ``_swaps`` moves each way


def _places(meld: Meld, cards: Iterable[Card]) -> Iterator[tuple[int, ...]]:
    """Distinct places of ``meld`` holding ``cards``, one place per card, in order."""
    options = [[i for i, tc in enumerate(meld) if tc.card == card] for card in cards]
    for chosen in product(*options):
        if len(set(chosen)) == len(chosen):
            yield chosen


def _trade(
    rs: Ruleset,
    table: tuple[Meld, ...],
    a: int,
    b: int,
    at_a: tuple[int, ...],
    at_b: tuple[int, ...],
) -> tuple[Meld, ...] | None:
    """The table with the cards at ``at_a`` of meld ``a`` and ``at_b`` of meld ``b`` traded
    pairwise, if each pair can trade and both melds stay melds (None: not)."""
    new_a, new_b = list(table[a]), list(table[b])
    for i, j in zip(at_a, at_b, strict=True):
        traded = _traded(rs, table[a][i], table[b][j])
        if traded is None:
            return None
        new_a[i], new_b[j] = traded
    # Written out as read (a same-suit run's wild with its suit), as the rebuild writes
    # them, so that one table has one key.
    read_a = classify(rs, tuple(new_a))
    read_b = classify(rs, tuple(new_b))
    if not (read_a.ok and read_b.ok):
        return None
    after = list(table)
    after[a], after[b] = read_a.normalized, read_b.normalized
    return tuple(after)


def _traded(rs: Ruleset, x: TableCard, y: TableCard) -> tuple[TableCard, TableCard] | None:
    """``y`` where ``x`` stood and ``x`` where ``y`` stood, if they can trade places: two
    naturals of one rank; a natural and a wild standing for that card (its rank, and its
    suit where it has one), the wild then standing for it where it was; or a natural that
    may itself be wild (a mexe-mexe 2) and a wild of the natural's rank, which trade roles:
    the natural stands for the wild's value where the wild was, the wild's card is a natural
    where the natural was (``2S | 2C=5D`` to ``2C | 2S=5D``). None: they cannot.
    ``lay_again`` keeps a trade only if the table is legal."""
    if x.value is None and y.value is None:
        return (y, x) if x.card.rank == y.card.rank else None
    if x.value is not None and y.value is not None:
        return None  # two wilds: the same cards where they were
    natural, wild = (x, y) if x.value is None else (y, x)
    value, card = wild.value, natural.card
    assert value is not None
    if value.rank == card.rank and value.suit in (None, card.suit):
        # Its written suit kept: a suited wild (from a same-suit run) stands for that very
        # card (R5), an unsuited one takes its new meld's suit where it has one (``_swaps``).
        stands = TableCard(wild.card, WildValue(card.rank, value.suit))
        return (stands, natural) if wild is y else (natural, stands)
    if rs.is_wild_card(card) and wild.card.rank == card.rank and wild.card != card:
        # Where the wild stood: the natural's card with its value; where the natural stood:
        # the wild's card, natural.
        at_wild, at_natural = TableCard(card, value), TableCard(wild.card)
        return (at_wild, at_natural) if wild is x else (at_natural, at_wild)
    return None
