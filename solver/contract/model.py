"""The CP-SAT model of one carioca turn: an opening (C2-C4) or lay-offs (C5), then a discard.

Built in the order data → variables → constraints → objective. Every decision is a Boolean
(a candidate opening meld's copy, a card laid on a table meld, the discard), so that a found
move is excluded from the next solve by one clause (``exclude``) when more moves are asked.

Before opening the model picks whole opening melds from a list of candidates read off the
hand (trios of exactly 3, sequences of exactly 4, at most one joker each, C3). After opening
it lays cards off: onto a trio any card of its rank or a joker; onto a sequence a run of
cards at either end (up to A-low…A-high) and naturals that replace its jokers, each replaced
joker moving to a new end position of that same sequence (C5).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from ortools.sat.python import cp_model
from ortools.util.python.sorted_interval_list import Domain

from solver.contract.melds import HIGH_ACE, LOW_ACE
from solver.core.cards import JOKER_CARD, Card, TableCard, sort_key
from solver.core.rulesets import Contract, Ruleset, rank_of_position
from solver.rummy.melds import MeldKind, Reading
from solver.rummy.position import Meld

# The objective's tiers, each weight above the most the tiers below it can add up to.
POINTS_WEIGHT = 10_000  # points left come first: a hand holds well under 1,000 points
JOKERS_WEIGHT = 1_000  # then fewer jokers spent, laid or discarded (at most 4 in a deck)
MELDS_WEIGHT = 10  # then fewer table melds changed (at most 60 melds)
JOKER_DISCARD_WEIGHT = 1  # last, keep from discarding a joker: the next player may take it
MAX_LAID_PER_MELD = 14  # no meld holds more cards than a 14-card sequence
CARDS_WEIGHT = 100_000_000  # OBJECTIVE_MOST_CARDS: cards laid before everything else

Literal = cp_model.IntVar


_BOOLEAN = Domain(0, 1)


class LeanCpModel(cp_model.CpModel):
    """A CpModel without the camelCase aliases OR-Tools makes on every instance (making them
    cost about a millisecond, more than the rest of a carioca model) and without variable
    names (storing one is half of a new variable's cost). Nothing here reads either: the
    variables are found through the tuple-keyed dicts of ``TurnModel``."""

    def __init__(self) -> None:
        super().__init__()
        self._variables_proto = self.model_proto  # a property of the C++ base: read once

    def _add_pre_pep8_methods(self) -> None:
        pass

    def new_bool_var(self, name: str) -> cp_model.IntVar:
        return cp_model.IntVar(self._variables_proto).with_domain(_BOOLEAN)

    def new_int_var(
        self, lb: cp_model.IntegralT, ub: cp_model.IntegralT, name: str
    ) -> cp_model.IntVar:
        return cp_model.IntVar(self._variables_proto).with_domain(Domain(lb, ub))


@dataclass(frozen=True)
class TurnData:
    """What one turn's model needs to know (pure data, no protobuf)."""

    ruleset: Ruleset
    hand: Counter[Card]  # natural cards and jokers
    table: tuple[Meld, ...]
    readings: tuple[Reading, ...]
    opened: bool
    contract: Contract
    discard_required: bool = True  # False: the unseen stock card is the discard (draw.py)
    most_cards: bool = False  # OBJECTIVE_MOST_CARDS: lay the most cards, then fewest points

    @property
    def jokers(self) -> int:
        return sum(n for card, n in self.hand.items() if card.is_joker)


# --- opening candidates (C3) ------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """One opening meld the hand can lay: its cards in the order they are written."""

    kind: MeldKind
    cards: tuple[Card, ...]  # naturals and jokers in written order

    def meld(self) -> Meld:
        return tuple(TableCard(c) for c in self.cards)


def _trio_candidates(data: TurnData, size: int) -> Iterator[Candidate]:
    """Trios of ``size`` (3): naturals of one rank, suits free, or one card fewer and a joker."""
    by_rank: dict[int, list[Card]] = {}
    for card, count in sorted(data.hand.items(), key=lambda item: sort_key(item[0])):
        if not card.is_joker:
            by_rank.setdefault(card.rank, []).extend([card] * count)
    joker = next((c for c in data.hand if c.is_joker), None)
    for naturals in by_rank.values():
        for chosen in sorted(set(itertools.combinations(naturals, size))):
            yield Candidate(MeldKind.GROUP, chosen)
        if joker is not None and size >= 2:
            for chosen in sorted(set(itertools.combinations(naturals, size - 1))):
                yield Candidate(MeldKind.GROUP, (*chosen, joker))


def _sequence_candidates(data: TurnData, size: int) -> Iterator[Candidate]:
    """Sequences of ``size`` (4) in one suit, ace low or high: all natural, or with one joker
    in any place (also where the player holds the natural, C3)."""
    joker = next((c for c in data.hand if c.is_joker), None)
    for suit in ("C", "D", "H", "S"):
        for start in range(LOW_ACE, HIGH_ACE - size + 2):
            window = [Card(rank_of_position(p), suit) for p in range(start, start + size)]
            held = [data.hand[c] >= 1 for c in window]
            if all(held):
                yield Candidate(MeldKind.SEQUENCE, tuple(window))
            if joker is None:
                continue
            for k in range(size):
                if all(held[:k] + held[k + 1 :]):
                    cards = (*window[:k], joker, *window[k + 1 :])
                    yield Candidate(MeldKind.SEQUENCE, cards)


def opening_candidates(data: TurnData) -> tuple[Candidate, ...]:
    """Every opening meld the hand can lay by itself (C3), in a fixed order."""
    rules = data.ruleset.contract
    out: list[Candidate] = []
    if data.contract.trios:
        out.extend(_trio_candidates(data, rules.opening_trio_size))
    if data.contract.sequences:
        out.extend(_sequence_candidates(data, rules.opening_sequence_size))
    return tuple(out)


# --- the model --------------------------------------------------------------------------------


@dataclass
class TurnModel:
    """The CP-SAT model of one turn and the variables a move is read from."""

    data: TurnData
    model: cp_model.CpModel = field(default_factory=LeanCpModel)
    decisions: list[Literal] = field(default_factory=list)  # every Boolean a move is read from
    used: dict[Card, list[tuple[int, Literal]]] = field(default_factory=dict)  # card -> uses
    candidates: tuple[Candidate, ...] = ()
    candidate_copies: dict[tuple[int, int], Literal] = field(default_factory=dict)
    trio_adds: dict[tuple[int, Card, int], Literal] = field(default_factory=dict)
    end_naturals: dict[tuple[int, int], Literal] = field(default_factory=dict)  # (meld, pos)
    end_jokers: dict[tuple[int, int], Literal] = field(default_factory=dict)
    replaced: dict[tuple[int, int], Literal] = field(default_factory=dict)  # (meld, old pos)
    meld_changed: dict[int, Literal] = field(default_factory=dict)
    discards: dict[Card, Literal] = field(default_factory=dict)
    points_left: cp_model.LinearExprT = 0
    cards_laid: cp_model.LinearExprT = 0

    def use(self, card: Card, literal: Literal, times: int = 1) -> None:
        """Record that ``literal`` takes ``times`` copies of ``card`` from the hand."""
        self.used.setdefault(card, []).append((times, literal))

    def new_decision(self, name: str) -> Literal:
        literal = self.model.new_bool_var(name)
        self.decisions.append(literal)
        return literal


def _add_opening(turn: TurnModel) -> None:
    """Whole opening melds, exactly the contract's (C2, C4), or none at all."""
    data = turn.data
    turn.candidates = opening_candidates(data)
    opens = turn.model.new_bool_var("opens")
    by_kind: dict[MeldKind, list[Literal]] = {MeldKind.GROUP: [], MeldKind.SEQUENCE: []}
    for m, candidate in enumerate(turn.candidates):
        wanted = (
            data.contract.trios if candidate.kind is MeldKind.GROUP else data.contract.sequences
        )
        copies = min([wanted, *(data.hand[c] // n for c, n in Counter(candidate.cards).items())])
        previous: Literal | None = None
        for copy in range(copies):
            literal = turn.new_decision(f"open_{m}_{copy}")
            if previous is not None:
                turn.model.add_implication(literal, previous)  # copies in order: one reading
            previous = literal
            turn.candidate_copies[m, copy] = literal
            by_kind[candidate.kind].append(literal)
            for card, count in Counter(candidate.cards).items():
                turn.use(card, literal, count)
    turn.model.add(sum(by_kind[MeldKind.GROUP]) == data.contract.trios * opens)
    turn.model.add(sum(by_kind[MeldKind.SEQUENCE]) == data.contract.sequences * opens)


def _add_trio_layoffs(turn: TurnModel, index: int, reading: Reading) -> list[Literal]:
    """Any card of the trio's rank, and any number of jokers (C5)."""
    data = turn.data
    laid: list[Literal] = []
    for card, count in sorted(data.hand.items(), key=lambda item: sort_key(item[0])):
        if not (card.is_joker or card.rank == reading.rank):
            continue
        previous: Literal | None = None
        for copy in range(count):
            literal = turn.new_decision(f"trio_{index}_{card.code}_{copy}")
            if previous is not None:
                turn.model.add_implication(literal, previous)
            previous = literal
            turn.trio_adds[index, card, copy] = literal
            turn.use(card, literal)
            laid.append(literal)
    return laid


def _add_replacements(turn: TurnModel, index: int, reading: Reading) -> list[Literal]:
    """A natural from the hand on a joker's place of the sequence (C5), one per place."""
    suit = reading.suit or ""
    replaced: list[Literal] = []
    for position, wild in zip(reading.positions, reading.wild, strict=True):
        natural = Card(rank_of_position(position), suit)
        if wild and turn.data.hand[natural]:
            literal = turn.new_decision(f"replace_{index}_{position}")
            turn.replaced[index, position] = literal
            turn.use(natural, literal)
            replaced.append(literal)
    return replaced


def _add_end_runs(
    turn: TurnModel, index: int, reading: Reading, spare_jokers: int
) -> tuple[list[Literal], list[Literal]]:
    """Runs outward from both ends, each place a natural from the hand or a joker, no gap up
    to A-low and A-high (C5). Returns (naturals laid, jokers placed)."""
    data, model = turn.data, turn.model
    suit = reading.suit or ""
    naturals: list[Literal] = []
    jokers: list[Literal] = []
    low, high = reading.positions[0], reading.positions[-1]
    for side in (range(low - 1, LOW_ACE - 1, -1), range(high + 1, HIGH_ACE + 1)):
        inner: Literal | None = None  # the filled flag of the place next to this one, inward
        gaps = 0  # places on this side so far that only a joker can fill
        for position in side:
            natural = Card(rank_of_position(position), suit)
            gaps += 0 if data.hand[natural] else 1
            if gaps > spare_jokers:
                break  # a run cannot reach this place, nor any beyond it
            options: list[Literal] = []
            if data.hand[natural]:
                literal = turn.new_decision(f"end_{index}_{position}")
                turn.end_naturals[index, position] = literal
                turn.use(natural, literal)
                options.append(literal)
                naturals.append(literal)
            if spare_jokers:
                literal = turn.new_decision(f"endjk_{index}_{position}")
                turn.end_jokers[index, position] = literal
                options.append(literal)
                jokers.append(literal)
            filled = model.new_bool_var(f"filled_{index}_{position}")
            model.add(sum(options) == filled)
            if inner is not None:
                model.add_implication(filled, inner)  # a run from the meld's end: no gap
            inner = filled
    return naturals, jokers


def _add_sequence_layoffs(turn: TurnModel, index: int, reading: Reading) -> list[Literal]:
    """Naturals on joker places and runs at both ends; a replaced joker moves to a new end
    place of the same sequence, never elsewhere (C5). Returns what the meld takes."""
    data, model = turn.data, turn.model
    replaced = _add_replacements(turn, index, reading)
    naturals, end_jokers = _add_end_runs(turn, index, reading, data.jokers + len(replaced))
    # Jokers at new ends are the replaced ones (which must move there) plus hand jokers.
    hand_jokers = model.new_int_var(0, data.jokers, f"hand_jokers_{index}")
    model.add(sum(end_jokers) == sum(replaced) + hand_jokers)
    joker = next((c for c in data.hand if c.is_joker), None)
    if joker is not None:
        turn.use(joker, hand_jokers)
    return [*replaced, *naturals, hand_jokers]


def _add_layoffs(turn: TurnModel) -> None:
    """Lay-offs onto every meld on the table, own or another player's (C5)."""
    for index, reading in enumerate(turn.data.readings):
        if reading.kind is MeldKind.GROUP:
            laid = _add_trio_layoffs(turn, index, reading)
        else:
            laid = _add_sequence_layoffs(turn, index, reading)
        changed = turn.model.new_bool_var(f"changed_{index}")
        for literal in laid:
            turn.model.add(literal <= MAX_LAID_PER_MELD * changed)
        turn.model.add(changed <= sum(laid))  # changed exactly when something is laid
        turn.meld_changed[index] = changed


def _add_discard(turn: TurnModel) -> None:
    """One card of the hand after the play is discarded (C6); none when the stock's unseen
    card will be the discard (the draw decision's baseline, draw.py)."""
    data = turn.data
    for card in sorted(data.hand, key=sort_key):
        if data.hand[card]:
            literal = turn.new_decision(f"discard_{card.code}")
            turn.discards[card] = literal
            turn.use(card, literal)
    turn.model.add(sum(turn.discards.values()) == (1 if data.discard_required else 0))


def _add_hand_limits(turn: TurnModel) -> None:
    """No card is used more often than the hand holds it."""
    for card, uses in turn.used.items():
        turn.model.add(sum(times * literal for times, literal in uses) <= turn.data.hand[card])


def _add_objective(turn: TurnModel) -> None:
    """Fewest points left, then fewest jokers spent, then fewest melds changed, then no
    joker discarded; with OBJECTIVE_MOST_CARDS the cards laid come first."""
    data = turn.data
    spent: list[Literal] = []
    points: list[int] = []
    laid: list[int] = []
    jokers: list[int] = []
    discards = set(id(literal) for literal in turn.discards.values())
    for card, uses in turn.used.items():
        value = data.ruleset.points(card)
        for times, literal in uses:
            spent.append(literal)
            points.append(value * times)
            laid.append(0 if id(literal) in discards else times)
            jokers.append(times if card.is_joker else 0)
    total = data.ruleset.hand_points(data.hand.elements())
    turn.points_left = total - cp_model.LinearExpr.weighted_sum(spent, points)
    turn.cards_laid = cp_model.LinearExpr.weighted_sum(spent, laid)
    weights = [
        -POINTS_WEIGHT * p + JOKERS_WEIGHT * j - (CARDS_WEIGHT * n if data.most_cards else 0)
        for p, j, n in zip(points, jokers, laid, strict=True)
    ]
    changed = list(turn.meld_changed.values())
    joker_discard = [lit for card, lit in turn.discards.items() if card.is_joker]
    turn.model.minimize(
        cp_model.LinearExpr.weighted_sum(
            spent + changed + joker_discard,
            weights + [MELDS_WEIGHT] * len(changed) + [JOKER_DISCARD_WEIGHT] * len(joker_discard),
        )
    )


def build(data: TurnData, objective: bool = True) -> TurnModel:
    """The whole model of the turn; without ``objective`` the caller sets its own (the
    suggestion's nearness, suggest.py)."""
    turn = TurnModel(data)
    if data.opened:
        _add_layoffs(turn)
    else:
        _add_opening(turn)
    _add_discard(turn)
    _add_hand_limits(turn)
    if objective:
        _add_objective(turn)
    return turn


def exclude(turn: TurnModel, solver: cp_model.CpSolver) -> None:
    """Forbid the move just found: at least one decision must differ."""
    turn.model.add_bool_or([d.Not() if solver.boolean_value(d) else d for d in turn.decisions])


# --- reading a move off a solution ------------------------------------------------------------


def opening_melds(turn: TurnModel, solver: cp_model.CpSolver) -> list[Meld]:
    """The new melds, trios first, each kind in candidate order."""
    chosen = [
        turn.candidates[m]
        for (m, _copy), literal in sorted(turn.candidate_copies.items())
        if solver.boolean_value(literal)
    ]
    chosen.sort(key=lambda c: c.kind is MeldKind.SEQUENCE)
    return [c.meld() for c in chosen]


def _trio_after(turn: TurnModel, solver: cp_model.CpSolver, index: int) -> Meld:
    before = list(turn.data.table[index])
    added = [
        card
        for (meld, card, _copy), literal in sorted(
            turn.trio_adds.items(), key=lambda item: (item[0][0], sort_key(item[0][1]), item[0][2])
        )
        if meld == index and solver.boolean_value(literal)
    ]
    naturals = [TableCard(c) for c in added if not c.is_joker]
    jokers = [TableCard(c) for c in added if c.is_joker]
    return tuple(before + naturals + jokers)


def _sequence_after(turn: TurnModel, solver: cp_model.CpSolver, index: int) -> Meld:
    reading = turn.data.readings[index]
    suit = reading.suit or ""
    joker = TableCard(JOKER_CARD)
    cards: dict[int, TableCard] = {}
    for position, tc in zip(reading.positions, turn.data.table[index], strict=True):
        literal = turn.replaced.get((index, position))
        if literal is not None and solver.boolean_value(literal):
            cards[position] = TableCard(Card(rank_of_position(position), suit))
        else:
            cards[position] = TableCard(tc.card) if tc.card.is_joker else tc
    for (meld, position), literal in turn.end_naturals.items():
        if meld == index and solver.boolean_value(literal):
            cards[position] = TableCard(Card(rank_of_position(position), suit))
    for (meld, position), literal in turn.end_jokers.items():
        if meld == index and solver.boolean_value(literal):
            cards[position] = joker
    return tuple(cards[p] for p in sorted(cards))


def table_after(turn: TurnModel, solver: cp_model.CpSolver) -> tuple[Meld, ...]:
    """The whole table after the play: the melds before (grown by lay-offs), then new ones."""
    data = turn.data
    if not data.opened:
        return data.table + tuple(opening_melds(turn, solver))
    out: list[Meld] = []
    for index, reading in enumerate(data.readings):
        if not solver.boolean_value(turn.meld_changed[index]):
            out.append(data.table[index])
        elif reading.kind is MeldKind.GROUP:
            out.append(_trio_after(turn, solver, index))
        else:
            out.append(_sequence_after(turn, solver, index))
    return tuple(out)


def discard_of(turn: TurnModel, solver: cp_model.CpSolver) -> Card | None:
    for card, literal in turn.discards.items():
        if solver.boolean_value(literal):
            return card
    return None


def changed_melds(turn: TurnModel, solver: cp_model.CpSolver) -> tuple[int, ...]:
    return tuple(i for i, lit in sorted(turn.meld_changed.items()) if solver.boolean_value(lit))
