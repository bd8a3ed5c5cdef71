"""Which moves are the same: a table's identity as the player sees it (its melds by
``table_change.stands_key``), and the clause that excludes a found solution from later
solves."""

from __future__ import annotations

from ortools.sat.python import cp_model

from solver.rearrangement.model import TurnModel, structural_vars
from solver.rummy.position import Move
from solver.rummy.table_change import StandsKey, stands_key

# A move as the player sees it (``table_key``): the table's melds, the cards taken back.
TableKey = tuple[tuple[StandsKey, ...], tuple[str, ...]]


def forbid(tm: TurnModel, solver: cp_model.CpSolver) -> None:
    """Exclude this exact solution (its structural variables) from later solves.

    One clause: some variable differs. A boolean is its own literal. The integers at 0 are
    all still 0 unless their sum is at least 1, and those at their upper bound likewise
    (one literal each way); only those in between need a literal of their own. On a
    two-deck table most integers are 0, so a further move's model grows by a few
    variables rather than by one per integer (800 on a mid vatikan table).
    """
    m = tm.model
    values = list(solver.response_proto.solution)  # one read, not a call per variable
    domains = m.proto.variables
    diffs: list[cp_model.IntVar] = []
    at_zero: list[cp_model.IntVar] = []
    below_top: list[cp_model.LinearExprT] = []
    for var in structural_vars(tm.variables):
        value = values[var.index]
        # This model's own bounds, not ``var.proto``'s: a model copied from the deck's
        # (model/deck.py) shares the deck's variables, whose protos keep the deck's bounds.
        # Not ``domain[-1]`` on the field: it does not count from the end; nor a list of
        # it, which costs three times the two reads.
        domain = domains[var.index].domain
        lo, hi = domain[0], domain[len(domain) - 1]
        if lo == 0 and hi == 1:
            diffs.append(var if value == 0 else ~var)  # type: ignore[arg-type]
        elif value == lo == 0:
            at_zero.append(var)
        elif value == hi:
            below_top.append(hi - var)
        else:
            d = m.new_bool_var("")
            m.add(var != value).only_enforce_if(d)
            diffs.append(d)
    for terms in (at_zero, below_top):
        if terms:
            d = m.new_bool_var("")
            m.add(cp_model.LinearExpr.sum(terms) >= 1).only_enforce_if(d)
            diffs.append(d)
    m.add_bool_or(diffs)


def table_key(move: Move) -> TableKey:
    """A move as the player sees it: each meld's cards with the rank each wild stands for
    (``stands_key``), in any order (a kept group keeps its old order, the same group laid
    from the pool's counts is written in suit order), and the cards taken back to the hand.
    A wild's written suit is not part of it: in a group it is a note (``JK=9`` and ``JK=9S``
    beside 9♣ 9♥ are one group), in a run the naturals fix it."""
    table = tuple(sorted(stands_key((tc.card, tc.value) for tc in meld) for meld in move.table))
    return table, tuple(sorted(card.code for card in move.to_hand))
