"""Rummikub's turn as a choice among the deck's melds: a second CP-SAT model of the same turns.

Where runs keep one suit and the ace is low only, every meld of any length splits into
melds of 3-5 cards (a run of 6 or more into shorter runs; a group is 3 or 4 cards), so a
table after the play is, up to how its runs are cut, a count of each of the deck's short
melds (``Shape``) plus the melds before that it keeps whole. The model holds:

* ``x[s]`` in 0..copies: how many melds of shape ``s`` the table after holds (new or not);
* ``keep[m]`` per meld before: it stays as it was (its own cards, whatever its length);
* per card, ``hand[c]`` played from the hand and, with jokers on the rack, ``joker[c]``: how
  many of the shapes' places of card ``c`` a joker fills;

and one row per card: the shapes' places of it, plus the kept melds holding it, equal the
table's copies of it, plus those played from the hand, plus those a joker fills (R6: every
table card stays on the table; R4: a joker stands for one card of its meld). A meld of 3-5
places holds at least one natural card wherever at most two jokers are in play (R4).

The objective weighs one unit of the primary (cards played, points played, going out) above
every meld kept, as the turn model's weighted solve does (``tries._solve_weighted``): both
questions answered in one solve.
On the bench's Rummikub positions CP-SAT proves it in about two thirds of the time it takes
on the pool and flow model (``turn.build_turn``), and the model is built once per rack's
jokers and objective, so a position writes only its numbers (bench/HISTORY.md, "Rummikub as
a choice among the deck's melds").

Only ``solve_move``'s single best move uses it, after Rummikub's opening, with no joker on
the table; everything else (several moves, table jokers, the opening) keeps the turn model.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass
from enum import Enum
from itertools import combinations

from ortools.sat.python import cp_model

from solver.core.cards import JOKER_CARD, Card, TableCard, WildValue
from solver.core.rulesets import AceRule, DeckSpec, Ruleset, SuitRule
from solver.rearrangement.model.cp import CountsScratch, FastCpModel, thread_scratch
from solver.rummy.position import Meld, Move, Position

# The rulesets whose single best move is searched on this model. Each must be a
# same-suit, ace-low ruleset with unlimited new melds (``applies`` checks it again).
DECK_MELD_RULESETS = frozenset({"rummikub"})
MAX_RACK_JOKERS = 2  # with more, a meld of three places could hold no natural card (R4)
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
        # Before the opening only new melds from the rack count (R8): the turn model's.
        and (not rs.rearrangement.opening_points or position.turn.has_opened)
        and all(tc.value is None and tc.card.is_ordinary for meld in position.table for tc in meld)
        and position.hand.count(JOKER_CARD) <= MAX_RACK_JOKERS
        and all(c.is_ordinary or c.is_joker for c in position.hand)
    )


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
    hand_vars: dict[Card, int]  # per card: the index of the count played from the hand
    joker_vars: dict[Card, int]  # per card: the index of the places jokers fill
    rows: dict[Card, int]  # per card: its row's index
    went_out_row: int | None  # GO_OUT: "went out: every hand card played", its index
    went_out_term: int | None  # GO_OUT: the flag's place in the objective


_MODELS: dict[tuple[str, DeckSpec | None, int, Measure], DeckMelds] = {}
_BUILDING = threading.Lock()


def deck_melds(position: Position, measure: Measure) -> DeckMelds:
    """The deck's model for this ruleset, rack's jokers and measure, built once."""
    rs = position.ruleset
    jokers = position.hand.count(JOKER_CARD)
    key = (rs.id, rs.deck_spec(position.players), jokers, measure)
    built = _MODELS.get(key)
    if built is None:
        with _BUILDING:
            built = _MODELS.get(key)
            if built is None:
                built = _MODELS[key] = _build(rs, position.players, jokers, measure)
    return built


def _build(rs: Ruleset, players: int, jokers: int, measure: Measure) -> DeckMelds:
    model = FastCpModel()
    rules = rs.melds
    deck = rs.deck(players)
    shapes = deck_shapes(rs, players)
    shape_vars = [model.new_int_var(0, min(deck[c] for c in s.cards), "") for s in shapes]
    places: dict[Card, list[cp_model.IntVar]] = {}
    for shape, var in zip(shapes, shape_vars, strict=True):
        for card in shape.cards:
            places.setdefault(card, []).append(var)
    hand_vars: dict[Card, cp_model.IntVar] = {}
    joker_vars: dict[Card, cp_model.IntVar] = {}
    rows: dict[Card, int] = {}
    for card in sorted(places):
        hand_vars[card] = model.new_int_var(0, 0, "")  # a position writes its hand's bound
        out = [hand_vars[card]]
        if jokers:
            joker_vars[card] = model.new_int_var(0, jokers, "")
            out.append(joker_vars[card])
        rows[card] = len(model.proto.constraints)
        # The table's copies of the card (0 here) are the row's right-hand side.
        model.add(cp_model.LinearExpr.sum(places[card]) - cp_model.LinearExpr.sum(out) == 0)
    jokers_played = None
    if jokers:
        # The jokers played as one count in the objective, not each place they fill: CP-SAT
        # proves the median position about a seventh sooner (bench/HISTORY.md).
        jokers_played = model.new_int_var(0, jokers, "")
        model.add(cp_model.LinearExpr.sum(list(joker_vars.values())) == jokers_played)
    # One unit of the primary outweighs every meld kept: a table holds fewer melds than
    # the deck has cards for, and no keep flag is worth as much as one unit.
    weight = sum(deck.values()) // min(rules.min_sequence, rules.group_min) + 1
    terms = [(v, -weight * _value(rs, card, measure)) for card, v in hand_vars.items()]
    if jokers_played is not None:
        terms.append((jokers_played, -weight * _value(rs, JOKER_CARD, measure)))
    went_out = went_out_row = None
    if measure is Measure.GO_OUT:
        flag = model.new_bool_var("")
        went_out = flag.index
        went_out_row = len(model.proto.constraints)
        played = [*hand_vars.values(), *([] if jokers_played is None else [jokers_played])]
        # The hand's size (0 here) is the row's lower bound.
        model.add(cp_model.LinearExpr.sum(played) >= 0).only_enforce_if(flag)
        terms.append((flag, 0))  # weighs one more than a whole hand: written per position
    objective = model.proto.objective
    objective.vars.extend([v.index for v, _ in terms])
    objective.coeffs.extend([c for _, c in terms])  # minimised: a maximisation's sign
    objective.scaling_factor = -1.0
    return DeckMelds(
        model=model,
        shapes=shapes,
        weight=weight,
        shape_vars=tuple(v.index for v in shape_vars),
        hand_vars={c: v.index for c, v in hand_vars.items()},
        joker_vars={c: v.index for c, v in joker_vars.items()},
        rows=rows,
        went_out_row=went_out_row,
        went_out_term=len(terms) - 1 if went_out is not None else None,
    )


def _value(rs: Ruleset, card: Card, measure: Measure) -> int:
    """What one card played counts in the primary objective."""
    return rs.points(card) if measure is Measure.POINTS else 1


_SCRATCH = threading.local()


@dataclass(frozen=True)
class MeldChoice:
    """A position's model, ready to solve, and what its answer is read through."""

    model: FastCpModel
    deck: DeckMelds
    keeps: tuple[int, ...]  # per meld before: its keep flag's index


def build(position: Position, measure: Measure) -> MeldChoice:
    """``position``'s model: the deck's copy with its numbers, keep flags and objective."""
    deck = deck_melds(position, measure)
    hand = Counter(c for c in position.hand if not c.is_joker)
    table = Counter(tc.card for meld in position.table for tc in meld)
    scratch = thread_scratch(
        _SCRATCH, deck, lambda: CountsScratch(deck.model, deck.hand_vars, deck.rows)
    )
    model = scratch.write(hand, table).clone()
    proto = model.proto
    constraints = proto.constraints
    keeps: list[int] = []
    holders: dict[Card, tuple[list[int], list[int]]] = {}  # per card: flags, copies held
    for meld in position.table:
        flag = model.new_bool_var("").index
        keeps.append(flag)
        for card, n in Counter(tc.card for tc in meld).items():
            flags, copies = holders.setdefault(card, ([], []))
            flags.append(flag)
            copies.append(n)
    # One write per row (a row reached through the proto costs more than its terms).
    for card, (flags, copies) in holders.items():
        row = constraints[deck.rows[card]].linear
        row.vars.extend(flags)
        row.coeffs.extend(copies)
    objective = proto.objective
    objective.vars.extend(keeps)
    objective.coeffs.extend([-1] * len(keeps))
    hand_size = len(position.hand)
    if deck.went_out_row is not None and deck.went_out_term is not None:
        constraints[deck.went_out_row].linear.domain[0] = hand_size
        objective.coeffs[deck.went_out_term] = -deck.weight * (hand_size + 1)
    return MeldChoice(model, deck, tuple(keeps))


def read(position: Position, choice: MeldChoice, solution: list[int]) -> Move | None:
    """The table a solution describes (None: it plays no hand card): the kept melds as they
    were, then the new melds, a joker in the place of each card it fills, runs of one suit
    that meet joined."""
    deck = choice.deck
    if not any(solution[i] for i in (*deck.hand_vars.values(), *deck.joker_vars.values())):
        return None
    kept = [position.table[m] for m, flag in enumerate(choice.keeps) if solution[flag]]
    new: list[tuple[Shape, list[TableCard]]] = []
    for shape, index in zip(deck.shapes, deck.shape_vars, strict=True):
        for _ in range(solution[index]):
            new.append((shape, [TableCard(c) for c in shape.cards]))
    for card, index in deck.joker_vars.items():
        for _ in range(solution[index]):
            _put_joker(new, card)
    return Move((*kept, *_join_runs(new)))


def _put_joker(melds: list[tuple[Shape, list[TableCard]]], card: Card) -> None:
    """A joker in the place of ``card`` in the first new meld where it is still natural."""
    for shape, meld in melds:
        for k, tc in enumerate(meld):
            if tc.card == card:
                # A joker's value carries the suit where the meld fixes one (R4).
                meld[k] = TableCard(
                    JOKER_CARD, WildValue(card.rank, card.suit if shape.run else None)
                )
                return
    raise AssertionError(f"no new meld holds {card.code} for a joker")


def _join_runs(melds: list[tuple[Shape, list[TableCard]]]) -> list[Meld]:
    """New runs of one suit where one ends just before the other starts, as one run: the
    same cards, shown as a player would lay them."""
    out: list[Meld] = []
    runs: list[tuple[Card, list[TableCard]]] = []  # each joined run: its last place, its cards
    # Shapes come by suit, then first rank: a run meets only a run that came before it.
    for shape, meld in melds:
        if not shape.run:
            out.append(tuple(meld))
            continue
        first = shape.cards[0]
        for j, (last, cards) in enumerate(runs):
            if last.suit == first.suit and last.rank + 1 == first.rank:
                cards.extend(meld)
                runs[j] = (shape.cards[-1], cards)
                break
        else:
            runs.append((shape.cards[-1], meld))
    out.extend(tuple(cards) for _, cards in runs)
    return out
