"""The turn model a search solves: copied from the deck's model where that applies, else built
for the position alone."""

from __future__ import annotations

from ortools.sat.python import cp_model

from solver.rearrangement.model.cp import FastCpModel
from solver.rearrangement.model.data import ModelOptions, TurnData, collect_data
from solver.rearrangement.model.deck import from_deck
from solver.rearrangement.model.pool_deck import pool_from_deck
from solver.rearrangement.model.turn import TurnVariables, build_turn
from solver.rummy.position import Position


class TurnModel:
    """The CP-SAT model of the legal tables after one play from ``position``: ``data``
    is what it was built from, ``variables`` what the search reads and rebuilds from.
    Rummikub's positions copy the whole deck's model (``deck``); mexe-mexe's suggestion
    copies the whole deck's pool and builds the rest (``pool_deck``, where its options ask
    it); others build their own. ``copy_deck=False`` builds it for the position alone in
    any case (the pool's own tests)."""

    def __init__(self, position: Position, options: ModelOptions, copy_deck: bool = True) -> None:
        self.data: TurnData = collect_data(position, options)
        self.model: cp_model.CpModel
        self.variables: TurnVariables
        copied = from_deck(self.data) if copy_deck else None
        if copied is not None:
            self.model, self.variables = copied
            return
        pooled = pool_from_deck(self.data) if copy_deck else None
        if pooled is None:
            self.model = FastCpModel()
            self.variables = build_turn(self.model, self.data)
        else:
            self.model, pool = pooled
            self.variables = build_turn(self.model, self.data, pool)
