"""The CP-SAT model of one rearrangement turn: which table can the player leave?

The table after a play is split in three parts, so that the model stays small on big
tables yet exact under every ruling:

* **kept melds** — a boolean per meld before: left exactly as it was (this also measures
  how much a hint disturbs the table). A kept meld of natural cards whose exact shape the
  pool has (a same-suit run by its ends and suit, a group by its rank and suits) is *linked*:
  it is one of the pool's melds of that shape, so keeping it and rebuilding it from the pool
  are one solution, not two the search must tell apart. Other kept melds leave the pool
  with their cards. A natural meld that a release can leave behind is also kept when a
  slot holds its very cards (``KeptMelds.in_slot``): melds changed are counted by cards;
* **the pool** — melds that need no identity: integer counts of run templates
  (start, end[, suit]) and of groups, per set of suits where no wild can join a group of
  that rank, else per rank and size (the searches count any-suit runs as a flow along the
  places instead, ``run_flow``). Natural groups with per-suit counts ≤ the number of
  groups always split into groups of distinct suits (Gale–Ryser), so counts suffice.
  Wilds fill places of the pool too; that each meld still holds a natural (R4) is a count
  for groups and, for runs, a condition on windows of places (``pool._build_run_naturals``).
  A lone free wild in same-suit runs and distinct-suit groups is instead counted as a
  stand-in for the card code whose place it takes (``pool._build_stand_ins``);
* **explicit slots** — a few fully modelled melds (positions, suits, cards) for every meld
  that must *continue* a meld before (R5 releases, R7 lineage): those need their identity.
  Each is a run or a group only, as the wilds it may hold allow (``data._slot_kinds``).

Card conservation is counted per card code, so duplicate cards of two decks are
interchangeable, exactly as the physical cards are. A wild on the table has one fate:
kept in its unchanged meld, placed with its old value (in the pool, or in a slot where
it must stay in its meld's line, R7), or released (R5) by a natural card of its value
played from the hand into a slot that continues its meld.

The model is built in steps, each a function that adds one family of constraints and
returns a frozen record of the variables it made: ``data`` (what the turn holds), ``pool``,
``slots``, ``constraints`` (kept melds, wild fates, releases, conservation) and
``objective`` (what a play measures, and the turn's rules on it); ``turn`` runs them in
order into one ``TurnVariables``, which ``rebuild`` and the search read. A rummikub position
copies instead the model of the whole deck, built once (``deck``); ``TurnModel``
(``turn_model``) chooses.
"""

from solver.rearrangement.model.cp import FastCpModel, sum_of
from solver.rearrangement.model.data import (
    NO_ADD,
    STAND_IN_WILDS,
    Code,
    GroupKey,
    ModelOptions,
    RunKey,
    Shape,
    TableWild,
    TurnData,
    turn_options,
)
from solver.rearrangement.model.slots import MeldSlot
from solver.rearrangement.model.turn import TurnVariables, structural_vars
from solver.rearrangement.model.turn_model import TurnModel

__all__ = [
    "NO_ADD",
    "STAND_IN_WILDS",
    "Code",
    "FastCpModel",
    "GroupKey",
    "MeldSlot",
    "ModelOptions",
    "RunKey",
    "Shape",
    "TableWild",
    "TurnData",
    "TurnModel",
    "TurnVariables",
    "structural_vars",
    "sum_of",
    "turn_options",
]
