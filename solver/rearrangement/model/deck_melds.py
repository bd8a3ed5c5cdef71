"""Rummikub's turn as a choice among the deck's melds: a second CP-SAT model of the same turns.

Where runs keep one suit and the ace is low only, every meld of any length splits into
melds of 3-5 cards (a run of 6 or more into shorter runs; a group is 3 or 4 cards), so a
table after the play is, up to how its runs are cut, a count of each of the deck's short
melds (``Shape``) plus the melds before that it keeps whole. The model holds:

* ``x[s]`` in 0..copies: how many melds of shape ``s`` the table after holds (new or not);
* ``keep[m]`` per meld before: it stays as it was (its own cards, whatever its length);
* per card, ``hand[c]`` played from the hand and, with jokers in play (on the rack or the
  table), ``joker[c]``: how many of the shapes' places of card ``c`` a joker fills;

and one row per card: the shapes' places of it, plus the kept melds holding it, equal the
table's copies of it, plus those played from the hand, plus those a joker fills (R6: every
table card stays on the table; R4: a joker stands for one card of its meld). A meld of 3-5
places holds at least one natural card wherever at most two jokers are in play (R4).

The objective weighs one unit of the primary (cards played, points played, going out) above
every meld kept, as the turn model's weighted solve does (``tries._solve_weighted``): both
questions answered in one solve.
On the bench's Rummikub positions CP-SAT proves it in about two thirds of the time it takes
on the pool and flow model (``turn.build_turn``), and the model is built once per count of
jokers on the rack and the table, opening and objective, so a position writes only its
numbers (bench/HISTORY.md, "Rummikub as a choice among the deck's melds").

Only ``solve_move``'s single best move uses it; several moves keep the turn model. Jokers on
the table make it a relaxation of R5 (``TableJokerRows``), whose answer the referee
re-checks. Before Rummikub's opening every meld before is kept and the new melds are worth
the opening's points (``_opening_rows``, R8).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import combinations

from ortools.sat.python import cp_model, cp_model_helper

from solver.core.cards import JOKER_CARD, Card, TableCard, WildValue
from solver.core.rulesets import AceRule, DeckSpec, Ruleset, SuitRule
from solver.rearrangement.model.cp import CountsScratch, FastCpModel
from solver.rearrangement.wilds import before_wilds
from solver.rummy.position import Move, Position, interned_meld

# The rulesets whose single best move is searched on this model. Each must be a
# same-suit, ace-low ruleset with unlimited new melds (``applies`` checks it again).
DECK_MELD_RULESETS = frozenset({"rummikub"})
# Jokers on the rack and the table together: with more, a meld of three places could hold
# no natural card (R4).
MAX_JOKERS = 2
SHORTEST_SPLIT_RUN = 5  # every run of 6 or more is runs of 3-5: no longer shape is needed


class Measure(Enum):
    """What the primary objective counts per card played (``tries.Objective``)."""

    CARDS = "cards"  # MOST_CARDS
    POINTS = "points"  # FEWEST_POINTS: the points that leave the hand
    GO_OUT = "go_out"  # GO_OUT: going out first, then cards


@dataclass(frozen=True)
class Shape:
    """A meld of the deck: its cards in order, and whether it is a run."""

    cards: tuple[Card, ...]
    run: bool

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(c.code for c in self.cards)


def applies(position: Position) -> bool:
    """Is ``position``'s single best move searched on this model?"""
    rs = position.ruleset
    rules = rs.melds
    return (
        rs.id in DECK_MELD_RULESETS
        and rs.rearrangement.max_new_melds is None
        and rules.sequence_suits is SuitRule.SAME_SUIT
        and rules.ace is AceRule.LOW_ONLY
        and rules.group_suits_distinct
        and all(c.is_ordinary or c.is_joker for c in position.hand)
        and (table_jokers := _table_jokers(position)) is not None
        and table_jokers + position.hand.count(JOKER_CARD) <= MAX_JOKERS
    )


def _table_jokers(position: Position) -> int | None:
    """The table's jokers; None where it holds another wild, which the model has no place
    for (in these rulesets only jokers are wild)."""
    jokers = 0
    for meld in position.table:
        for tc in meld:
            if tc.card.is_joker:
                jokers += 1
            elif tc.value is not None or not tc.card.is_ordinary:
                return None
    return jokers


def _jokers(position: Position) -> tuple[int, int]:
    """The jokers on the rack and on the table of a position the model applies to."""
    return position.hand.count(JOKER_CARD), _table_jokers(position) or 0


def deck_shapes(rs: Ruleset, players: int) -> tuple[Shape, ...]:
    """Every run of 3-5 cards and every group of the deck, from the ruleset's data."""
    cards = [c for c in rs.deck(players) if c.is_ordinary]
    suits = sorted({c.suit for c in cards})
    ranks = sorted({c.rank for c in cards})
    rules = rs.melds
    shapes: list[Shape] = []
    longest = min(rules.max_sequence, SHORTEST_SPLIT_RUN)
    for suit in suits:
        for first in ranks:
            for length in range(rules.min_sequence, longest + 1):
                run = tuple(Card(first + k, suit, "") for k in range(length))
                if all(c.rank in ranks for c in run):
                    shapes.append(Shape(run, True))
    for rank in ranks:
        for size in range(rules.group_min, min(rules.group_max, len(suits)) + 1):
            for chosen in combinations(suits, size):
                shapes.append(Shape(tuple(Card(rank, s, "") for s in chosen), False))
    return tuple(shapes)


@dataclass(frozen=True)
class DeckMelds:
    """The model of a hand holding no card yet, for one rack's jokers and one measure: a
    position writes its hand's bounds and its table's copies into a copy of it."""

    model: FastCpModel
    shapes: tuple[Shape, ...]
    weight: int  # one unit of the primary in the objective: above every meld kept
    shape_vars: tuple[int, ...]  # per shape: its count's index
    shape_codes: tuple[tuple[str, ...], ...]  # per shape: its cards' codes
    hand_vars: dict[Card, int]  # per card: the index of the count played from the hand
    joker_vars: dict[Card, int]  # per card: the index of the places jokers fill
    rows: dict[Card, int]  # per card: its row's index
    keep_vars: tuple[int, ...]  # the keep flags of melds before, in the table's order
    holder_terms: dict[Card, int]  # per card: where its row's terms for the melds holding it start
    spare_vars: tuple[int, ...]  # per holder term: the variable (fixed at 0) of an unused one
    went_out_row: int | None  # GO_OUT: "went out: every hand card played", its index
    went_out_term: int | None  # GO_OUT: the flag's place in the objective
    jokers_played: int | None  # the rack's jokers played, its index (None: no joker in play)
    scale: int  # what the objective's terms are multiplied by (below them: jokers moved)
    table_jokers: TableJokerRows | None  # where jokers lie on the table before
    opening: int  # R8: the points the new melds must be worth, every meld before kept (or 0)


@dataclass(frozen=True)
class TableJokerRows:
    """The rows of a model for a table holding jokers, written whole by each position.

    A table joker keeps its value in a place of a card it may stand for (in a new meld, or
    a joker's place of a meld before kept by its cards), or is *moved* to any place. R5 moves
    it only when released by a natural of its value played from the hand; the model asks
    only for that natural to be played (not that it goes into the joker's place in a meld
    continuing the joker's), so it holds every legal move and perhaps a few more: a solution
    the referee refuses is left to the turn model (``search``). Per joker: ``moved <=
    naturals of its value played``; ``1 - moved <= jokers in places of its value, plus the
    kept melds' joker places that value fits``; with two jokers the same for both together
    (Hall's condition: each needs its own natural and place; the jokers are alike, so which
    one keeps which place is not asked). And
    ``moved <= melds that can continue its meld with that natural``: a run's joker is
    released into a run holding its tile, a group's into a group of its rank (a run holds one
    tile of a rank, so a natural of the joker's rank continues a group only in a group, and a
    run only in a run), or into a meld with the cards of a meld before that holds such a
    natural, kept (the tie-break counts melds by their cards). Not for both together: one
    meld may take both naturals."""

    moved: tuple[int, ...]  # per table joker: its "moved" flag's index
    release_rows: tuple[int, ...]  # per table joker, then both together
    place_rows: tuple[int, ...]  # per table joker, then both together
    meld_rows: tuple[int, ...]  # per table joker: a meld for its releasing natural


_MODELS: dict[tuple[str, DeckSpec | None, int, int, int, Measure], DeckMelds] = {}
_BUILDING = threading.Lock()


def deck_melds(position: Position, measure: Measure) -> DeckMelds:
    """The deck's model for this ruleset, rack's and table's jokers and measure, built once."""
    rack, table = _jokers(position)
    opening = _opening(position)
    return _model(position.ruleset, position.players, rack, table, opening, measure)


def _opening(position: Position) -> int:
    """The points the play's new melds must be worth: the ruleset's opening before the
    player has opened (R8), else 0."""
    return 0 if position.turn.has_opened else position.ruleset.rearrangement.opening_points


def build_every_model(rs: Ruleset, players: int) -> int:
    """Build the models of every count of jokers on the rack and the table and every
    measure (a server's warm-up); how many there are."""
    jokers = min(MAX_JOKERS, rs.deck(players)[JOKER_CARD])
    counts = [(rack, table) for rack in range(jokers + 1) for table in range(jokers + 1 - rack)]
    openings = sorted({0, rs.rearrangement.opening_points})
    for rack, table in counts:
        for opening in openings:
            for measure in Measure:
                _model(rs, players, rack, table, opening, measure)
    return len(counts) * len(openings) * len(Measure)


def _model(
    rs: Ruleset, players: int, rack: int, table: int, opening: int, measure: Measure
) -> DeckMelds:
    key = (rs.id, rs.deck_spec(players), rack, table, opening, measure)
    built = _MODELS.get(key)
    if built is None:
        with _BUILDING:
            built = _MODELS.get(key)
            if built is None:
                built = _MODELS[key] = _build(rs, players, rack, table, opening, measure)
    return built


def _build(
    rs: Ruleset, players: int, rack: int, table: int, opening: int, measure: Measure
) -> DeckMelds:
    """The model, step by step in the order CP-SAT meets its variables: the shapes' counts,
    each card's row, the jokers played, the opening, going out, the keep flags, the table's
    jokers, then the objective."""
    model = FastCpModel()
    deck = rs.deck(players)
    shapes = deck_shapes(rs, players)
    shape_vars = [model.new_int_var(0, min(deck[c] for c in s.cards), "") for s in shapes]
    cards = _card_rows(model, shapes, shape_vars, rack + table)
    jokers_played = _jokers_played(model, cards, rack, table)
    # One unit of the primary outweighs every meld kept: a table holds fewer melds than
    # the deck has cards for, and no keep flag is worth as much as one unit.
    weight = sum(deck.values()) // min(rs.melds.min_sequence, rs.melds.group_min) + 1
    terms = [(v, -weight * _value(rs, card, measure)) for card, v in cards.hand.items()]
    if jokers_played is not None:
        terms.append((jokers_played, -weight * _value(rs, JOKER_CARD, measure)))
    if opening:
        _opening_rows(rs, model, cards.hand, cards.jokers, jokers_played, opening, deck.total())
    went_out = went_out_row = None
    if measure is Measure.GO_OUT:
        flag, went_out_row = _went_out_row(model, cards.hand, jokers_played)
        went_out = flag.index
        terms.append((flag, 0))  # weighs one more than a whole hand: written per position
    keeps = _keep_flags(model, cards.rows, weight - 1, max(deck[c] for c in cards.hand))
    terms.extend((v, -1) for v in keeps.flags)
    went_out_term = len(terms) - len(keeps.flags) - 1 if went_out is not None else None
    table_jokers, scale = None, 1
    if table:
        # Below one meld kept, a table joker that keeps its value: where both are as good,
        # the move R5 allows without asking whether the joker was released.
        table_jokers, scale = _table_joker_rows(model, table), table + 1
        terms = [(v, c * scale) for v, c in terms]
        terms.extend((model.get_int_var_from_proto_index(m), 1) for m in table_jokers.moved)
    _minimise(model, terms)
    return DeckMelds(
        model=model,
        shapes=shapes,
        weight=weight,
        shape_vars=tuple(v.index for v in shape_vars),
        shape_codes=tuple(shape.codes for shape in shapes),
        hand_vars={c: v.index for c, v in cards.hand.items()},
        joker_vars={c: v.index for c, v in cards.jokers.items()},
        rows=cards.rows,
        keep_vars=tuple(v.index for v in keeps.flags),
        holder_terms=keeps.holder_terms,
        spare_vars=tuple(v.index for v in keeps.spares),
        went_out_row=went_out_row,
        went_out_term=went_out_term,
        scale=scale,
        jokers_played=None if jokers_played is None else jokers_played.index,
        table_jokers=table_jokers,
        opening=opening,
    )


@dataclass(frozen=True)
class _CardRows:
    """Per card of the deck's shapes: its count played from the hand, the places jokers
    fill (with jokers in play) and its row's index."""

    hand: dict[Card, cp_model.IntVar]
    jokers: dict[Card, cp_model.IntVar]
    rows: dict[Card, int]


def _card_rows(
    model: FastCpModel, shapes: Sequence[Shape], shape_vars: Sequence[cp_model.IntVar], jokers: int
) -> _CardRows:
    """Each card's row: the shapes' places of it equal the table's copies (the right-hand
    side, 0 here), plus those played from the hand, plus those a joker fills."""
    places: dict[Card, list[cp_model.IntVar]] = {}
    for shape, var in zip(shapes, shape_vars, strict=True):
        for card in shape.cards:
            places.setdefault(card, []).append(var)
    cards = _CardRows({}, {}, {})
    for card in sorted(places):
        cards.hand[card] = model.new_int_var(0, 0, "")  # a position writes its hand's bound
        out = [cards.hand[card]]
        if jokers:
            cards.jokers[card] = model.new_int_var(0, jokers, "")
            out.append(cards.jokers[card])
        cards.rows[card] = len(model.proto.constraints)
        model.add(cp_model.LinearExpr.sum(places[card]) - cp_model.LinearExpr.sum(out) == 0)
    return cards


def _jokers_played(
    model: FastCpModel, cards: _CardRows, rack: int, table: int
) -> cp_model.IntVar | None:
    """The rack's jokers played, as one count (None: no joker in play). With jokers on the
    table, their row (the table's jokers its right-hand side) is the joker card's in
    ``cards.rows``: they are in the places jokers fill or in the kept melds holding them."""
    if not rack + table:
        return None
    # One count in the objective, not each place they fill: CP-SAT proves the median
    # position about a seventh sooner (bench/HISTORY.md).
    played = model.new_int_var(0, rack, "")
    if table:
        cards.rows[JOKER_CARD] = len(model.proto.constraints)
    model.add(cp_model.LinearExpr.sum(list(cards.jokers.values())) - played == 0)
    return played


def _went_out_row(
    model: FastCpModel, hand: dict[Card, cp_model.IntVar], jokers_played: cp_model.IntVar | None
) -> tuple[cp_model.IntVar, int]:
    """GO_OUT's flag and its row's index, "went out: every hand card played" (the hand's
    size, 0 here, is the row's lower bound)."""
    flag = model.new_bool_var("")
    row = len(model.proto.constraints)
    played = [*hand.values(), *([] if jokers_played is None else [jokers_played])]
    model.add(cp_model.LinearExpr.sum(played) >= 0).only_enforce_if(flag)
    return flag, row


@dataclass(frozen=True)
class _KeepFlags:
    """The keep flags of the melds a table may hold, and the spare terms of the card rows."""

    flags: list[cp_model.IntVar]  # per meld a table may hold
    spares: list[cp_model.IntVar]  # per copy of a card
    holder_terms: dict[Card, int]  # per card: where its row's spare terms start


def _keep_flags(model: FastCpModel, rows: dict[Card, int], melds: int, copies: int) -> _KeepFlags:
    """A table holds at most as many melds as the deck has cards for, and a card is held by
    at most as many melds as the deck has copies of it: a keep flag per meld a table may
    hold (fixed at 0 until a position's meld uses it), and in each card's row a term per
    copy for the melds holding it (a spare, fixed at 0, until a position writes a flag
    there). Made last, as the flags a position added were: CP-SAT's search meets the
    variables in this order, and the flags first made its slow tail slower
    (bench/HISTORY.md)."""
    flags = [model.new_int_var(0, 0, "") for _ in range(melds)]
    spares = [model.new_int_var(0, 0, "") for _ in range(copies)]
    holder_terms: dict[Card, int] = {}
    for card, index in rows.items():
        row = model.proto.constraints[index].linear
        holder_terms[card] = len(row.vars)
        row.vars.extend([v.index for v in spares])
        row.coeffs.extend([1] * len(spares))
    return _KeepFlags(flags, spares, holder_terms)


def _minimise(model: FastCpModel, terms: Sequence[tuple[cp_model.IntVar, int]]) -> None:
    """The objective, written whole: ``terms`` carry a maximisation's sign."""
    objective = model.proto.objective
    objective.vars.extend([v.index for v, _ in terms])
    objective.coeffs.extend([c for _, c in terms])
    objective.scaling_factor = -1.0


def _opening_rows(
    rs: Ruleset,
    model: FastCpModel,
    hand_vars: dict[Card, cp_model.IntVar],
    joker_vars: dict[Card, cp_model.IntVar],
    jokers_played: cp_model.IntVar | None,
    opening: int,
    cards: int,
) -> None:
    """R8 before the opening: a play lays melds worth ``opening`` points or more, a joker
    counting as the card it stands for. Every meld before is kept (its flag's lower bound,
    written per position), so the new melds hold rack cards only."""
    opens = model.new_bool_var("")
    played = [*hand_vars.values(), *([] if jokers_played is None else [jokers_played])]
    # No card without the opening: at most every card of the deck with it.
    model.add(cp_model.LinearExpr.sum(played) <= cards * opens)
    laid = [(v, rs.points(card)) for card, v in hand_vars.items()]
    laid += [(v, rs.points(card)) for card, v in joker_vars.items()]
    model.add(
        cp_model.LinearExpr.weighted_sum([v for v, _ in laid], [p for _, p in laid])
        >= opening * opens
    )


def _table_joker_rows(model: FastCpModel, table: int) -> TableJokerRows:
    """The rows of ``TableJokerRows``, their terms but the flags left for each position."""
    moved = [model.new_bool_var("") for _ in range(table)]
    both = [moved] if table > 1 else []

    def rows(flag_sets: list[list[cp_model.IntVar]], upper: int) -> tuple[int, ...]:
        start = len(model.proto.constraints)
        for flags in flag_sets:
            model.add(cp_model.LinearExpr.sum(flags) <= upper * len(flags))
        return tuple(range(start, len(model.proto.constraints)))

    each = [[m] for m in moved]
    return TableJokerRows(
        tuple(m.index for m in moved), rows(each + both, 0), rows(each + both, -1), rows(each, 0)
    )


def _value(rs: Ruleset, card: Card, measure: Measure) -> int:
    """What one card played counts in the primary objective."""
    return rs.points(card) if measure is Measure.POINTS else 1


_FREE: dict[int, tuple[DeckMelds, list[_Scratch]]] = {}
"""Per deck model: its copies no solve holds, the one put back last at the end."""


@dataclass(frozen=True)
class MeldChoice:
    """A position's model, ready to solve, and what its answer is read through. The model
    is a copy held for this solve alone until ``release``: then another position may
    write into it."""

    model: FastCpModel
    deck: DeckMelds
    keeps: tuple[int, ...]  # per meld before: its keep flag's index
    scratch: _Scratch

    def release(self) -> None:
        """Give the copy back for the next position (the model is not to be read after)."""
        _give_back(self.scratch)


def build(position: Position, measure: Measure) -> MeldChoice | None:
    """``position``'s model: a free copy of the deck's model, with the position's numbers
    written into it (None: a table of more melds than the model has keep flags for, which no
    valid table is). The copy is this caller's until ``MeldChoice.release``; the copy given
    back last is taken first, so a process keeps as many copies as it runs solves at once
    (not one per thread and model) and the next position writes into one whose memory is
    warm and whose numbers are the last position's."""
    deck = deck_melds(position, measure)
    if len(position.table) > len(deck.keep_vars):
        return None
    scratch = _take(deck)
    try:
        scratch.write_position(position)
    except BaseException:
        _give_back(scratch)  # it knows it was stopped part-way: the next write is whole
        raise
    return MeldChoice(scratch.model, deck, deck.keep_vars[: len(position.table)], scratch)


def _take(deck: DeckMelds) -> _Scratch:
    held = _FREE.get(id(deck))
    if held is None or held[0] is not deck:  # a new model (at an id reused, perhaps)
        held = _FREE[id(deck)] = (deck, [])
    try:
        return held[1].pop()  # atomic: two threads never take the same copy
    except IndexError:
        return _Scratch(deck)


def _give_back(scratch: _Scratch) -> None:
    held = _FREE.get(id(scratch.deck))
    if held is not None and held[0] is scratch.deck:
        held[1].append(scratch)


Held = tuple[tuple[int, int], ...]  # the melds before holding a card: (keep flag, copies)
_UNKNOWN_TERM = (-1, -1)  # a holder term whose content is not known: written again


class _Scratch(CountsScratch[Card]):
    """A thread's own copy of a deck's model, solved as it is once a position has written
    its numbers into it: the hand's bounds and the table's copies of each card (the rows'
    right-hand sides, ``CountsScratch``), the keep flags of its melds and, in each card's
    row, the flags of the melds holding it. Every place written is wrapped once, and only
    what differs from the last position's numbers is written: a position costs about as
    many calls into OR-Tools as it has cards, and no copy of the model is made
    (bench/HISTORY.md)."""

    def __init__(self, deck: DeckMelds) -> None:
        super().__init__(deck.model, deck.hand_vars, deck.rows)
        self.deck = deck
        proto = self.model.proto
        variables, constraints = proto.variables, proto.constraints
        # Per card: where its row's holder terms start, and the row's variables and
        # coefficients, wrapped once.
        self._holder_rows = {
            c: (deck.holder_terms[c], constraints[j].linear.vars, constraints[j].linear.coeffs)
            for c, j in deck.rows.items()
        }
        self._flags = [variables[i].domain for i in deck.keep_vars]
        self._kept = 1 if deck.opening else 0  # a flag's lower bound: R8 keeps every meld
        self._went_out = (
            None if deck.went_out_row is None else constraints[deck.went_out_row].linear.domain
        )
        self._objective = proto.objective.coeffs
        self._suits = sorted({card.suit for card in deck.hand_vars})
        # The shapes' counts a released joker's natural may go into: per card, the runs
        # holding it; per rank, its groups.
        self._runs_holding: dict[Card, list[int]] = {}
        self._groups_of: dict[int, list[int]] = {}
        for shape, var in zip(deck.shapes, deck.shape_vars, strict=True):
            if shape.run:
                for card in shape.cards:
                    self._runs_holding.setdefault(card, []).append(var)
            else:
                self._groups_of.setdefault(shape.cards[0].rank, []).append(var)
        # The melds holding each card and the flags free (none at first); None: unknown, as
        # the counts' (``CountsScratch``).
        self._held: dict[Card, Held] | None = {}
        self._melds = 0

    def write_position(self, position: Position) -> None:
        self.write(Counter(c for c in position.hand if not c.is_joker), position.table_cards())
        held: dict[Card, list[tuple[int, int]]] = {}
        for flag, meld in zip(self.deck.keep_vars, position.table, strict=False):
            for tc in meld:
                holders = held.setdefault(tc.card, [])
                if holders and holders[-1][0] == flag:  # a second copy in the same meld
                    holders[-1] = (flag, holders[-1][1] + 1)
                else:
                    holders.append((flag, 1))
        holding = {card: tuple(holders) for card, holders in held.items()}
        melds = len(position.table)
        was_held, was_melds = self._held, self._melds
        self._held = None
        if was_held is None:
            unknown = (_UNKNOWN_TERM,) * len(self.deck.spare_vars)
            was_held = dict.fromkeys(self._holder_rows, unknown)
            for flag in self._flags[melds:]:
                flag[0] = flag[1] = 0
            was_melds = 0
        for card in was_held.keys() | holding.keys():
            now = holding.get(card, ())
            was = was_held.get(card, ())
            if was != now:
                self._hold(card, now, was)
        # The flags of this table's melds free, the rest fixed at 0 (from the first that differs).
        for k in range(min(melds, was_melds), max(melds, was_melds)):
            self._flags[k][0] = self._kept if k < melds else 0
            self._flags[k][1] = 1 if k < melds else 0
        if self.deck.table_jokers is not None:
            self._write_table_jokers(position, self.deck.table_jokers)
        if self._went_out is not None and self.deck.went_out_term is not None:
            self._went_out[0] = len(position.hand)
            weight = self.deck.weight * self.deck.scale
            self._objective[self.deck.went_out_term] = -weight * (len(position.hand) + 1)
        self._held, self._melds = holding, melds

    def _write_table_jokers(self, position: Position, rows: TableJokerRows) -> None:
        """The rows of ``TableJokerRows`` for this table's jokers, each written whole."""
        deck, constraints = self.deck, self.model.proto.constraints
        wilds = before_wilds(position)
        moved = rows.moved
        if len(wilds) != len(moved):  # applies() counted the jokers the parse read as wilds
            raise AssertionError(f"{len(wilds)} table wilds for {len(moved)} table jokers")
        # A joker of a run stands for one card; one of a group for its rank in any suit
        # (R4: it may take any missing suit there, and keep its rank elsewhere).
        values = [
            (Card(w.value.rank, w.value.suit, ""),)
            if w.value.suit
            else tuple(Card(w.value.rank, suit, "") for suit in self._suits)
            for w in wilds
        ]
        groups = [[j] for j in range(len(moved))] + (
            [list(range(len(moved)))] if len(moved) > 1 else []
        )
        for row, jokers in zip(rows.release_rows, groups, strict=True):
            cards = {c: None for j in jokers for c in values[j]}
            _write_row(
                constraints[row].linear,
                [(moved[j], 1) for j in jokers] + [(deck.hand_vars[c], -1) for c in cards],
            )
        for row, jokers in zip(rows.place_rows, groups, strict=True):
            cards = {c: None for j in jokers for c in values[j]}
            # A meld before kept holds its jokers' places, by its cards: one of them may be
            # this joker's, whichever joker stood there before.
            slots = Counter(
                deck.keep_vars[w.meld] for w in wilds if any(w.value.stands_for(c) for c in cards)
            )
            _write_row(
                constraints[row].linear,
                [(moved[j], -1) for j in jokers]
                + [(flag, -n) for flag, n in slots.items()]
                + [(deck.joker_vars[c], -1) for c in cards],
            )
        for j, wild in enumerate(wilds):
            run = wild.value.suit is not None
            shapes = self._runs_holding[values[j][0]] if run else self._groups_of[wild.value.rank]
            # The meld holding the natural may also be one with the very cards of a meld
            # before, kept: any that holds a natural of the joker's value.
            kept = [
                deck.keep_vars[m]
                for m, meld in enumerate(position.table)
                if any(tc.value is None and wild.value.stands_for(tc.card) for tc in meld)
            ]
            _write_row(
                constraints[rows.meld_rows[j]].linear,
                [(moved[j], 1)] + [(v, -1) for v in (*shapes, *kept)],
            )

    def _hold(self, card: Card, holders: Held, was: Held) -> None:
        """Write the melds holding ``card`` into its row's holder terms (a spare where none),
        each term only where it differs from what ``was`` wrote there: a write is a call
        into OR-Tools, and most terms keep their spare or their one copy."""
        spares = self.deck.spare_vars
        if len(holders) > len(spares):  # R1: the parse refuses such a table
            raise AssertionError(f"more melds hold {card.code} than the deck has copies of it")
        start, row_vars, row_coeffs = self._holder_rows[card]
        for k, spare in enumerate(spares):
            flag, copies = holders[k] if k < len(holders) else (spare, 1)
            before, had = was[k] if k < len(was) else (spare, 1)
            if before != flag:
                row_vars[start + k] = flag
            if had != copies:
                row_coeffs[start + k] = copies


def _write_row(row: cp_model_helper.LinearConstraintProto, terms: list[tuple[int, int]]) -> None:
    """A linear row's terms, all of them (its bounds stay)."""
    row.vars.clear()
    row.coeffs.clear()
    row.vars.extend([v for v, _ in terms])
    row.coeffs.extend([c for _, c in terms])


def read(position: Position, choice: MeldChoice, solution: Sequence[int]) -> Move | None:
    """The table a solution describes (None: it plays no hand card): the kept melds as they
    were, then the new melds, a joker in the place of each card it fills, runs of one suit
    that meet joined. Each new meld is the interned object of its codes, as a request's
    parse gives it (``position.interned_meld``), so the re-check and the answer find it in
    their caches. ``solution`` may be CP-SAT's response itself: only the values read here
    are read (each is a call into OR-Tools; the jokers' places only where a joker lies)."""
    deck = choice.deck
    played = (
        *deck.hand_vars.values(),
        *(() if deck.jokers_played is None else (deck.jokers_played,)),
    )
    if not any(solution[i] for i in played):
        return None
    kept = [position.table[m] for m, flag in enumerate(choice.keeps) if solution[flag]]
    new: list[tuple[Shape, list[str]]] = []
    for shape, codes, index in zip(deck.shapes, deck.shape_codes, deck.shape_vars, strict=True):
        for _ in range(solution[index]):
            new.append((shape, list(codes)))
    # Without a table joker, jokers fill places only where the rack's were played.
    if deck.table_jokers is not None or (
        deck.jokers_played is not None and solution[deck.jokers_played]
    ):
        for card, index in deck.joker_vars.items():
            for _ in range(solution[index]):
                _put_joker(new, card)
    return Move((*kept, *map(interned_meld, _join_runs(new))))


def _put_joker(melds: list[tuple[Shape, list[str]]], card: Card) -> None:
    """A joker in the place of ``card`` in the first new meld where it is still natural."""
    code = card.code
    for shape, meld in melds:
        for k, written in enumerate(meld):
            if written == code:
                # A joker's value carries the suit where the meld fixes one (R4).
                value = WildValue(card.rank, card.suit if shape.run else None)
                meld[k] = TableCard(JOKER_CARD, value).code
                return
    raise AssertionError(f"no new meld holds {code} for a joker")


def _join_runs(melds: list[tuple[Shape, list[str]]]) -> list[tuple[str, ...]]:
    """New runs of one suit where one ends just before the other starts, as one run: the
    same cards, shown as a player would lay them."""
    out: list[tuple[str, ...]] = []
    runs: list[tuple[Card, list[str]]] = []  # each joined run: its last place, its codes
    # Shapes come by suit, then first rank: a run meets only a run that came before it.
    for shape, meld in melds:
        if not shape.run:
            out.append(tuple(meld))
            continue
        first = shape.cards[0]
        for j, (last, codes) in enumerate(runs):
            if last.suit == first.suit and last.rank + 1 == first.rank:
                codes.extend(meld)
                runs[j] = (shape.cards[-1], codes)
                break
        else:
            runs.append((shape.cards[-1], meld))
    out.extend(tuple(codes) for _, codes in runs)
    return out
