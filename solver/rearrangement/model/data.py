"""What the turn model is built from: the position's cards, wilds and melds, read once.

``collect_data`` reads the table and the hand and decides which parts of the model are
needed at all (slots, stand-ins, linked melds); the build steps only read its record.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from solver.core.cards import SUITS, Card, WildValue
from solver.core.rulesets import Ruleset, SuitRule
from solver.rummy.melds import MeldKind, Reading
from solver.rummy.position import Position

Code = tuple[int, str]  # a natural card: (rank, suit)
RunKey = tuple[int, int, str | None]  # a pool run: first and last position, suit (None: any)
GroupKey = tuple[int, tuple[str, ...]]  # a pool group of naturals: rank, suits in SUITS order
# A natural meld's exact cards as a slot would hold them: a run's (position, suit) places,
# or a group's rank and suits.
Shape = tuple[tuple[tuple[int, str], ...], None] | tuple[None, GroupKey]

NO_ADD = -1  # ModelOptions.add_size when the largest add is unknown: only meld plays (R8)
STAND_IN_WILDS = 1  # the most free wilds counted as stand-ins for card codes (``stand_in``)


@dataclass(frozen=True)
class TableWild:
    """A card acting as a wild on the table before the play."""

    card: Card
    value: WildValue
    meld: int


@dataclass(frozen=True)
class ModelOptions:
    """What the turn allows; ``turn_options`` fills these from the ruleset and turn."""

    max_new_melds: int | None
    keep_all: bool = False  # rummikub before opening: the table stays as it was
    opening_points: int = 0  # rummikub: the new melds' value from the rack
    groups_may_grow: bool = True  # vatikan before a sequence: no more groups than before
    add_size: int | None = None  # shangai: an add must place exactly this many (NO_ADD: no add)
    # R4's windows for the pool's runs are left out and kept to be checked against a
    # solution and added where it needs them (``pool.RunNaturals``, the suggestion's
    # search). Not compared: the model holds the same tables once they are added, so a
    # deck's model (which has no such windows) still serves (``deck.from_deck``).
    defer_run_naturals: bool = field(default=False, compare=False)
    # The pool's any-suit runs counted as a flow along the places (``run_flow``), a
    # smaller model with the same tables. The searches of ``search`` ask for it; the
    # suggestion's proposed melds name their run templates, so its model keeps them.
    run_flow: bool = field(default=False, compare=False)
    # The pool copied from the whole deck's where that applies (``pool_deck``, the
    # suggestion's first try on mexe-mexe). Not compared: the model holds the same tables.
    pool_from_deck: bool = field(default=False, compare=False)
    # A flag per rank: it has a pool group or not (``group_flags``). The same tables; the
    # search branches on the flags. The searches of ``search`` ask for it per ruleset.
    group_flags: bool = field(default=False, compare=False)
    # A lone free wild counted as a stand-in for a card code (``pool._build_stand_ins``):
    # the same tables, a smaller model. The suggestion's retry turns it off, since its
    # count of a proposed meld cannot tell the stand-in from the natural it stands for.
    stand_ins: bool = field(default=True, compare=False)


def turn_options(
    position: Position, max_new_melds: int | None, add_size: int | None
) -> ModelOptions:
    """The options of ``position``'s turn: rummikub's opening, vatikan's first sequence."""
    rs = position.ruleset
    turn = position.turn
    opening = bool(rs.rearrangement.opening_points) and not turn.has_opened
    return ModelOptions(
        max_new_melds=None if opening else max_new_melds,
        keep_all=opening,
        opening_points=rs.rearrangement.opening_points if opening else 0,
        groups_may_grow=not (rs.rearrangement.first_meld_sequence and not turn.has_melded_sequence),
        add_size=add_size,
    )


@dataclass(frozen=True)
class TurnData:
    """The facts of one turn that the model's build steps read."""

    position: Position
    ruleset: Ruleset
    options: ModelOptions
    same_suit: bool  # sequences are of one suit
    positions: list[int]  # the ruleset's sequence positions, in order
    before: list[Reading]  # each meld before, as read
    natural_melds: list[bool]  # per meld before: no wild and no card that could be one
    wilds: list[TableWild]  # the cards acting as wilds on the table
    table_count: Counter[Card]
    hand_count: Counter[Card]
    wild_capable: list[Card]  # cards in play that may act as wilds
    natural_supply: Counter[Code]  # per card code, the cards that may stand as that natural
    codes: list[Code]  # the card codes in play, sorted
    releasable: list[int]  # wilds a natural of the hand may release (R5)
    wild_supply: int  # wild-capable cards in play
    wild_runs_possible: bool  # wilds alone could make a run (mexe-mexe's 2s)
    stand_in: bool  # the lone free wild is counted as a stand-in (``pool._build_stand_ins``)
    n_slots: int
    slot_runs: bool  # a slot may be a run
    slot_groups: bool  # a slot may be a group
    linkable_runs: dict[int, RunKey]  # natural runs before the pool can hold as they are
    linkable_groups: dict[int, GroupKey]  # likewise groups, if the pool counts their suits
    match_shapes: dict[int, Shape]  # melds before a slot could rebuild card for card
    # The model's count of melds changed is the table's (not only an upper bound): D4.
    keeps_exact: bool
    # ``meld_naturals``, made when first asked (only wilds ask it).
    naturals_memo: list[list[Counter[Code]]] = field(repr=False, compare=False)

    @property
    def meld_naturals(self) -> list[Counter[Code]]:
        """Per meld before, its natural cards by code."""
        return _memo_naturals(self.naturals_memo, self.position, self.before)

    def all_natural(self, m: int) -> bool:
        """Meld ``m`` before holds no wild and no card that could be one (a mexe-mexe 2)."""
        return self.natural_melds[m]

    def release_codes(self, wild: TableWild) -> list[Code]:
        """The hand's natural card codes that could release ``wild`` (R5)."""
        return release_codes(self.hand_count, wild)


def natural_code(card: Card) -> Code:
    return (card.rank, card.suit)


def release_codes(hand_count: Counter[Card], wild: TableWild) -> list[Code]:
    return [natural_code(c) for c in hand_count if wild.value.stands_for(c)]


def collect_data(position: Position, options: ModelOptions) -> TurnData:
    """Read the turn once: cards and wilds, what may be released, linked or matched."""
    rs = position.ruleset
    same_suit = rs.melds.sequence_suits is SuitRule.SAME_SUIT
    positions = list(rs.sequence_positions)
    before: list[Reading] = [c.reading for c in position.readings]
    natural_melds, wilds, table_count = _read_table(position, before, same_suit)
    linkable_runs, linkable_groups = _find_linkable(position, before, natural_melds, same_suit)
    hand_count: Counter[Card] = Counter(position.hand)
    all_cards = set(table_count) | set(hand_count)
    wild_capable = sorted(c for c in all_cards if rs.is_wild_card(c))
    supply = _natural_supply(all_cards, table_count, hand_count)
    memo: list[list[Counter[Code]]] = []

    def meld_naturals() -> list[Counter[Code]]:
        return _memo_naturals(memo, position, before)

    # A wild can only be released by a natural of its value held in the hand (R5).
    keep_all = options.keep_all
    releasable = [i for i, w in enumerate(wilds) if release_codes(hand_count, w) and not keep_all]
    keeps_exact = _keeps_exact_by_trades(rs, wilds, meld_naturals, releasable)
    # Explicit melds only where identity matters: one per possible release (R5), and
    # in vatikan one per table wild, which must stay in its meld's line (R7).
    lineage = len(wilds) if rs.rearrangement.wild_lineage and not keep_all else 0
    # With enough wild cards for a run of wilds alone (mexe-mexe's 2s), the pool's runs
    # must be shown to hold a natural each (R4, ``pool._build_run_naturals``).
    wild_supply = sum(table_count[c] + hand_count[c] for c in wild_capable)
    stand_in = options.stand_ins and _lone_wilds_stand_in(rs, wilds, wild_supply)
    n_slots = len(releasable) + lineage
    occupants = range(len(wilds)) if lineage else releasable
    slot_runs, slot_groups = _slot_kinds(wilds, meld_naturals, positions, occupants)
    data = TurnData(
        position=position,
        ruleset=rs,
        options=options,
        same_suit=same_suit,
        positions=positions,
        before=before,
        natural_melds=natural_melds,
        wilds=wilds,
        table_count=table_count,
        hand_count=hand_count,
        wild_capable=wild_capable,
        natural_supply=supply,
        codes=sorted(supply),
        releasable=releasable,
        wild_supply=wild_supply,
        wild_runs_possible=wild_supply >= rs.melds.min_sequence,
        stand_in=stand_in,
        n_slots=n_slots,
        slot_runs=slot_runs,
        slot_groups=slot_groups,
        linkable_runs=linkable_runs,
        linkable_groups=linkable_groups,
        match_shapes={},
        keeps_exact=keeps_exact,
        naturals_memo=memo,
    )
    shapes, matches_exact = _find_matchable(data)
    if not shapes and matches_exact:
        return data
    return replace(data, match_shapes=shapes, keeps_exact=keeps_exact and matches_exact)


def _natural_supply(
    cards: set[Card], table_count: Counter[Card], hand_count: Counter[Card]
) -> Counter[Code]:
    """The cards in play per natural code: every ordinary card may stand as a natural."""
    supply: Counter[Code] = Counter()
    for card in cards:
        if card.is_ordinary:
            supply[natural_code(card)] += table_count[card] + hand_count[card]
    return supply


def _lone_wilds_stand_in(rs: Ruleset, wilds: Sequence[TableWild], wild_supply: int) -> bool:
    """A lone free wild in same-suit runs and distinct-suit groups stands for one card
    code, so the pool is counted as if without wilds (``pool._build_stand_ins``): where no
    wild is on the table and too few are in play to make a meld of wilds."""
    return (
        rs.melds.sequence_suits is SuitRule.SAME_SUIT
        and rs.melds.group_suits_distinct
        and not wilds
        and 0 < wild_supply <= STAND_IN_WILDS
        and wild_supply < min(rs.melds.min_sequence, rs.melds.group_min)
    )


def _read_table(
    position: Position, before: Sequence[Reading], same_suit: bool
) -> tuple[list[bool], list[TableWild], Counter[Card]]:
    """Per meld before, whether it is all natural (asked often: read once); the cards
    acting as wilds, with the value each keeps; and the table's cards."""
    rs = position.ruleset
    natural_melds: list[bool] = []
    wilds: list[TableWild] = []
    table_cards: list[Card] = []
    for m, meld in enumerate(position.table):
        reading = before[m]
        cards = [tc.card for tc in meld]
        table_cards += cards
        if not any(reading.wild):
            natural_melds.append(not any(rs.is_wild_card(c) for c in cards))
            continue
        for tc, value, is_wild in zip(meld, reading.values, reading.wild, strict=True):
            if is_wild:
                # R4/R5: a wild's value carries a suit only where it stood in a
                # same-suit sequence; a suit written on a group wild is a note.
                if reading.kind is MeldKind.GROUP or not same_suit:
                    value = WildValue(value.rank, None)
                wilds.append(TableWild(tc.card, value, m))
        natural_melds.append(False)
    return natural_melds, wilds, Counter(table_cards)


def _memo_naturals(
    memo: list[list[Counter[Code]]], position: Position, before: Sequence[Reading]
) -> list[Counter[Code]]:
    """Per meld before, its natural cards by code, made once into ``memo``: only wilds ask
    it, and most tables have none."""
    if not memo:
        memo.append(
            [
                Counter(
                    [natural_code(tc.card) for tc, w in zip(meld, r.wild, strict=True) if not w]
                )
                for meld, r in zip(position.table, before, strict=True)
            ]
        )
    return memo[0]


def _keeps_exact_by_trades(
    rs: Ruleset,
    wilds: Sequence[TableWild],
    meld_naturals: Callable[[], list[Counter[Code]]],
    releasable: Sequence[int],
) -> bool:
    """False where cards of one code in different melds can trade places (D4). A meld then
    shows its very cards though its own wild left, which its keep flag counts as a change,
    so the model's count of melds changed is only an upper bound of the table's
    (docs/solver.md, "Objectives and tie-break"). So it is where a slot could hold a
    natural meld's cards with others (``_find_matchable``).

    * Two table wilds of one card code, each keeping its value (R5).
    * A table wild and a natural of its very card (mexe-mexe's 2s, each of which may be
      wild). The natural can take the wild's place while the wild itself goes back to the
      hand, released (`2C=J JH JS` beside `2D 2C 2H`, the hand's J♣ releasing the 2♣), or
      the wild, standing for its own card's rank, takes the natural's place: ``2C=2C``, or
      ``2S=2D`` from a run in a group of 2s whose natural 2♠ went to stand for a card
      elsewhere (`2S=2D 3D 4D 5D 6D | 2S 2D=2 2C`, hand `5S 5H 7D`; the group is shown
      again as `2C 2S=2D 2D=2`, since a 2 standing for a 2 is compared as a natural). A
      wild that stays on the table with a value of another rank needs no trade: the model
      already lays the natural as a wild of that value and keeps the wild's meld.
    """
    wild_melds: dict[Card, set[int]] = {}
    for w in wilds:
        wild_melds.setdefault(w.card, set()).add(w.meld)
    keeps_exact = all(len(melds) < 2 for melds in wild_melds.values())
    to_hand = set(releasable) if rs.rearrangement.released_wild_to_hand else set()
    for i, w in enumerate(wilds):
        # Of its own rank, the wild is its card as the table is compared (``changed_melds``).
        if i not in to_hand and w.value.rank != w.card.rank:
            continue
        code = natural_code(w.card)
        if any(nat[code] for m, nat in enumerate(meld_naturals()) if m != w.meld):
            keeps_exact = False
    return keeps_exact


def _slot_kinds(
    wilds: Sequence[TableWild],
    meld_naturals: Callable[[], list[Counter[Code]]],
    positions: Sequence[int],
    occupants: Iterable[int],
) -> tuple[bool, bool]:
    """Whether a slot may be a run, and a group. A slot releases a wild or, in vatikan,
    holds one in its meld's line (R7); either way it holds a card of the wild's value (the
    hand's natural, or the wild itself) and a natural of the wild's meld (R5, R7): of
    another rank, only a run holds both; of the same rank, only a group (or a run with an
    ace at both ends). Other melds need no identity and are the pool's, so where every
    such wild sits in a run the slots have no group part, and the reverse: a smaller model
    where a joker can be released."""
    slot_runs = slot_groups = False
    aces_twice = 1 in positions and 14 in positions
    for i in occupants:
        w = wilds[i]
        for rank, _ in meld_naturals()[w.meld]:
            if rank != w.value.rank or (rank == 1 and aces_twice):
                slot_runs = True
            if rank == w.value.rank:
                slot_groups = True
    return slot_runs, slot_groups


def _find_matchable(data: TurnData) -> tuple[dict[int, Shape], bool]:
    """Natural melds before that a slot could rebuild card for card, and whether the
    model's count of melds changed stays exact.

    A slot continues the meld of a wild it releases, so it may end up holding exactly
    the cards of *another* meld before: ``JK=JH QH KH`` beside ``JH QH KH``, the hand's
    J♥ releasing the joker. The table then shows that other meld unchanged, though its
    own cards went elsewhere; melds changed are counted by cards (``changed_melds``), so
    the model must count it kept too, or its tie-break proves a count that a table it
    cannot see beats (docs/solver.md). Candidates are the melds a release leaves: the
    releasing hand card with naturals of the released wild's meld, nothing else. A slot
    that also takes other cards can match still other melds (vatikan
    ``JD QH KH JK=A | QH KS AD`` with ``AD`` in hand: the slot ``QH KS AD`` takes the
    first meld's Q♥), but each candidate adds variables that slow the tie-break's search,
    so those are not candidates: where one exists the model's count is only an upper
    bound of the table's and ``keeps_exact`` is false (``trades.lay_again`` then
    swaps cards to lay such melds again). So it is where a meld with wilds holds the
    hand's card and a natural of the released wild's meld: the slot could hold it too.
    """
    shapes: dict[int, Shape] = {}
    exact = True
    if not data.n_slots:
        return shapes, exact
    wanted = [
        (data.release_codes(w), data.meld_naturals[w.meld], w.meld)
        for w in (data.wilds[i] for i in data.releasable)
    ]
    for m, meld in enumerate(data.position.table):
        reading = data.before[m]
        codes = data.meld_naturals[m]
        # What a releasing slot holding this meld takes besides the hand's card; it
        # needs a natural of the released wild's meld (R5's continuation).
        rests = [
            (rest, origin)
            for released, origin, home in wanted
            if home != m
            for code in released
            if codes[code]
            for rest in (codes - Counter({code: 1}),)
            if rest & origin
        ]
        if not rests:
            continue
        if not data.all_natural(m):
            # A meld with wilds of its own, which may join the slot keeping their
            # values (mexe-mexe: `2S=10H JH QH KH AH` beside `QH KH 2H=AH`, the hand's
            # A♥ releasing the 2♥): not counted.
            exact = False
            continue
        if reading.kind is MeldKind.SEQUENCE and data.slot_runs:
            places = zip(reading.positions, (tc.card.suit for tc in meld), strict=True)
            shape: Shape = (tuple(sorted(places)), None)
        elif reading.kind is MeldKind.GROUP and data.slot_groups:
            suits = tuple(x for x in SUITS if (reading.rank, x) in codes)
            shape = (None, (reading.rank, suits))
        else:
            continue
        if any(not rest - origin for rest, origin in rests):
            shapes[m] = shape
        else:
            exact = False
    return shapes, exact


def _find_linkable(
    position: Position, before: Sequence[Reading], natural_melds: Sequence[bool], same_suit: bool
) -> tuple[dict[int, RunKey], dict[int, GroupKey]]:
    """Melds before that the pool can hold as they are (see ``model``'s docstring); a
    group's link is confirmed by ``links.link_melds`` once the pool counts its suits."""
    rs = position.ruleset
    runs: dict[int, RunKey] = {}
    groups: dict[int, GroupKey] = {}
    for m, meld in enumerate(position.table):
        if not natural_melds[m]:
            continue
        reading = before[m]
        if reading.kind is MeldKind.SEQUENCE and same_suit and reading.suit:
            ends = (min(reading.positions), max(reading.positions))
            runs[m] = (*ends, reading.suit)
        elif reading.kind is MeldKind.GROUP and rs.melds.group_suits_distinct:
            suits = {tc.card.suit for tc in meld}
            groups[m] = (reading.rank, tuple(x for x in SUITS if x in suits))
    return runs, groups
