"""A second reference for mid and large tables: the primary optima as a plain integer program.

The brute force (``bruteforce.py``) enumerates, so it stops at small positions. For tables of
30-100 cards with no wild card on them, this module states R2-R4 and R6-R8 afresh as a
set-cover integer program and solves it with SCIP (OR-Tools' linear solver: branch and bound
on the LP relaxation, no code shared with CP-SAT nor with ``solver/model.py``):

* a **run** is a count per template (first and last rank position; 3-13 cards, R2), and each
  of its places takes one card of that rank, of any suit where suits do not matter (so only
  the count of cards per place and suit is needed), or of the template's suit, or a joker;
* a **group** is a count per set of 1-4 distinct natural suits of one rank with jokers for
  missing suits, 3-4 cards in all (R3, R4);
* every table card is laid again and the hand gives the rest (R6); the melds after number at
  most one more than before (R6), and no more groups than before in vatikan until a sequence
  is laid (R7); shangai and manipulation's add, a play that lays no new meld, must place as
  many cards as any add can (R8), which leaves the most cards unchanged but not the fewest
  points (``fewest_points`` asks both kinds of play).

It answers what ``solve_move`` proves for the three objectives: the most cards placed, the
fewest hand points left, and whether the hand can go out; and for carrossel whether a play
can leave a hand worth 1-5 points, so that the player may knock (R10, ``knock_reach``). Up
to two jokers in the hand are free wilds (a joker stands for any missing card of a run or
suit of a group). Exact answers about wild cards on the table (their values, releases and
lineage, R5 and R7) and mexe-mexe's 2s are the brute force's business; for up to two jokers
on the table the program gives bounds (``TableJokers``): made free wilds they allow more
than R5 does, kept at their value in runs and never released they allow less (in vatikan,
R7 forbids some of those moves, so only the first bound holds there).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import Enum
from itertools import combinations

from ortools.linear_solver import pywraplp

from solver.core.cards import SUITS, Card, WildValue
from solver.core.rulesets import SuitRule, rank_of_position
from solver.rummy.melds import MeldKind
from solver.rummy.position import Position

MIN_RUN, MAX_RUN = 3, 13  # R2
MIN_GROUP, MAX_GROUP = 3, 4  # R3
TIME_LIMIT_MS = 120_000


class TableJokers(Enum):
    """How the program treats jokers on the table (R5 itself is the brute force's)."""

    REFUSED = "refused"  # the program answers exactly: no joker on the table
    FREE = "free"  # free wilds, like the hand's: more than R5 allows, an upper bound
    FIXED_IN_RUNS = "fixed_in_runs"  # keep their value, only in runs: a lower bound


@dataclass(frozen=True)
class MipOptima:
    """The primary optima (None: no legal play)."""

    most_cards: int | None
    fewest_points: int | None
    go_out: bool
    can_knock: bool = False  # R10: a play leaving 1..threshold points (carrossel)


class _Program:
    """One integer program of this turn's plays; ``solve`` asks it one question."""

    def __init__(self, position: Position, table_jokers: TableJokers) -> None:
        rs = position.ruleset
        table_cards = [tc.card for meld in position.table for tc in meld]
        # A table joker with the value it stands for (R5).
        fixed: list[WildValue] = []
        for classified in position.readings:
            reading = classified.reading
            assert reading is not None
            fixed += [v for v, w in zip(reading.values, reading.wild, strict=True) if w]
        wilds = [c for c in table_cards if rs.is_wild_card(c)]
        if any(not c.is_joker for c in wilds) or (wilds and table_jokers is TableJokers.REFUSED):
            raise ValueError("the integer program takes no wild card but jokers on the table")
        hand_wilds = [c for c in position.hand if rs.is_wild_card(c)]
        if any(not c.is_joker for c in hand_wilds) or len(wilds + hand_wilds) >= MIN_RUN:
            # A mexe-mexe 2 may be natural or wild; three wilds could make a run alone (R4).
            raise ValueError("the integer program takes at most two jokers")
        if rs.rearrangement.opening_points and not position.turn.has_opened:
            raise ValueError("the integer program does not lay openings (R8)")
        self.table = Counter(table_cards)
        self.hand = Counter(position.hand)
        self.solver = pywraplp.Solver.CreateSolver("SCIP")
        s = self.solver
        s.SetTimeLimit(TIME_LIMIT_MS)  # these take ~0.1 s; never hang a test run
        places = list(rs.sequence_positions)
        same_suit = rs.melds.sequence_suits is SuitRule.SAME_SUIT
        supply = Counter({c: n for c, n in (self.table + self.hand).items() if not c.is_joker})
        free_table = len(wilds) if table_jokers is TableJokers.FREE else 0
        jokers = len(hand_wilds) + free_table  # free wilds
        in_jokers: list[pywraplp.LinearExpr] = []  # free wilds laid, wherever they stand
        # FIXED_IN_RUNS: each table joker on one run place of its value, never released.
        fixed_places: list[list[pywraplp.Variable]] = (
            [[] for _ in fixed] if table_jokers is TableJokers.FIXED_IN_RUNS else []
        )
        # Runs: a template per (first, last) place, per suit where runs keep one suit.
        run_suits: tuple[str | None, ...] = SUITS if same_suit else (None,)
        self.runs: list[pywraplp.Variable] = []
        covering: dict[tuple[int, str | None], list[pywraplp.Variable]] = {}
        for suit in run_suits:
            for i, first in enumerate(places):
                for last in places[i + MIN_RUN - 1 : i + MAX_RUN]:
                    x = s.IntVar(0, 8, "")
                    self.runs.append(x)
                    for p in range(first, last + 1):
                        covering.setdefault((p, suit), []).append(x)
        # Cards laid in runs, per place and suit (any suit may fill a place if suits don't
        # matter), or a joker: the place's runs take exactly one card each. With at most two
        # jokers every run of three or more still holds a natural (R4).
        in_runs: dict[Card, list[pywraplp.Variable]] = {}
        for (p, suit), xs in covering.items():
            rank = rank_of_position(p)
            fills = []
            for x_suit in SUITS if suit is None else (suit,):
                card = Card(rank, x_suit)
                if supply[card]:
                    z = s.IntVar(0, supply[card], "")
                    in_runs.setdefault(card, []).append(z)
                    fills.append(z)
            if jokers:
                w = s.IntVar(0, jokers, "")
                in_jokers.append(w)
                fills.append(w)
            for value, at in zip(fixed, fixed_places, strict=False):
                if value.rank == rank and (not same_suit or value.suit == suit):
                    f = s.BoolVar("")
                    at.append(f)
                    fills.append(f)
            s.Add(sum(fills) == sum(xs))
        for at in fixed_places:
            s.Add(sum(at) == 1)  # no such place: no play of this kind
        # Groups: a count per set of distinct natural suits of a rank, and jokers standing
        # for missing suits (R3; at least one natural, R4).
        self.groups: list[pywraplp.Variable] = []
        in_groups: dict[Card, list[pywraplp.Variable]] = {}
        for rank in range(1, 14):
            for naturals in range(1, MAX_GROUP + 1):
                for suits in combinations(SUITS, naturals):
                    held = [Card(rank, x) for x in suits]
                    if not all(supply[c] for c in held):
                        continue
                    for wild in range(min(jokers, MAX_GROUP - naturals) + 1):
                        if naturals + wild < MIN_GROUP:
                            continue
                        g = s.IntVar(0, min(supply[c] for c in held), "")
                        self.groups.append(g)
                        for c in held:
                            in_groups.setdefault(c, []).append(g)
                        if wild:
                            in_jokers.append(wild * g)
        # R6: the table's cards all stay; the hand gives what else is laid.
        self.laid: dict[Card, pywraplp.Variable] = {
            c: s.IntVar(0, n, "") for c, n in self.hand.items()
        }
        for card in supply:
            used = in_runs.get(card, []) + in_groups.get(card, [])
            s.Add(sum(used) == self.table[card] + self.laid.get(card, 0))
        if jokers:
            from_hand = self.laid[hand_wilds[0]] if hand_wilds else 0
            s.Add(sum(in_jokers) == free_table + from_hand)
        self.played = sum(self.laid.values())
        s.Add(self.played >= 1)
        before = len(position.table)
        self.net = sum(self.runs) + sum(self.groups) - before
        if rs.rearrangement.max_new_melds is not None:
            s.Add(self.net <= rs.rearrangement.max_new_melds)
        if rs.rearrangement.first_meld_sequence and not position.turn.has_melded_sequence:
            groups_before = sum(1 for r in position.readings if r.reading.kind is MeldKind.GROUP)
            s.Add(sum(self.groups) <= groups_before)
        left = sum(rs.points(c) * n for c, n in self.hand.items())
        self.points_after = left - sum(rs.points(c) * v for c, v in self.laid.items())

    def solve(self, maximize_played: bool, extra: list[pywraplp.LinearConstraint]) -> int | None:
        """The best value, or None when these plays do not exist."""
        s = self.solver
        added = [s.Add(c) for c in extra]
        if maximize_played:
            s.Maximize(self.played)
        else:
            s.Minimize(self.points_after)
        status = s.Solve()
        value = round(s.Objective().Value()) if status == pywraplp.Solver.OPTIMAL else None
        for constraint in added:  # back to the turn's own constraints
            constraint.SetBounds(-s.infinity(), s.infinity())
        if status not in (pywraplp.Solver.OPTIMAL, pywraplp.Solver.INFEASIBLE):
            raise RuntimeError(f"SCIP ended with status {status}")
        return value


def mip_optima(position: Position, table_jokers: TableJokers = TableJokers.REFUSED) -> MipOptima:
    """Most cards, fewest points, going out and the knock for a position with no wild on the
    table and at most two jokers in the hand, whose turn allows a play (the caller checks
    R8's draw rules)."""
    program = _Program(position, table_jokers)
    n = sum(program.hand.values())
    most = program.solve(True, [])
    if most is None:
        return MipOptima(None, None, False)
    if position.ruleset.rearrangement.add_must_be_maximal:
        # R8: an add (no new meld) must place the most cards any add can.
        largest_add = program.solve(True, [program.net <= 0])
        meld_points = program.solve(False, [program.net == 1])
        add_points = (
            None
            if largest_add is None
            else program.solve(False, [program.net <= 0, program.played == largest_add])
        )
        fewest = min(p for p in (meld_points, add_points) if p is not None)
    else:
        fewest_or_none = program.solve(False, [])
        assert fewest_or_none is not None
        fewest = fewest_or_none
    knock = False
    if threshold := position.ruleset.knock_threshold:
        lowest_above_zero = program.solve(False, [program.points_after >= 1])
        knock = lowest_above_zero is not None and lowest_above_zero <= threshold
    return MipOptima(most, fewest, most == n, knock)
