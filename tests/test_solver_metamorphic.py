"""Metamorphic checks on tables too big for the brute-force reference.

No rule of the six rearrangement games depends on which suit is which (points go by rank,
R3's distinct suits and a same-suit sequence's one suit are relations between cards), nor
on the order in which the table's melds or the hand's cards are listed. So renaming the
suits consistently, or listing melds and hand in another order, must leave every optimum
the solver proves unchanged: the cards placed, the hand points left, going out. A model
that broke a symmetry wrongly (an ordering constraint between melds, a suit handled apart)
would prove different optima for the same position. Mexe-mexe's tables hold 1-6 wild 2s
written with their value (``2H=7S``), the class of position that is slowest to solve.

The tie-break (fewest melds changed) is not compared: it is the best found within a work
limit, which meets a different search on a reordered table, and a meld with a wild rebuilt
from other cards is not counted unchanged by the model (docs/solver.md, "Objectives and
tie-break"; tests/reference/DISAGREEMENTS.md, D4).
"""

from __future__ import annotations

import random

from bench.positions import SIZES, PositionSpec, random_position
from solver.core.rulesets import RULESETS
from solver.rearrangement.search import Objective, SolveResult, primary_key, solve_move
from solver.rearrangement.turns import draws_before_play
from solver.rummy.position import Position, Turn, parse_position
from tests.reference.positions import REARRANGEMENT

SUITS = "CDHS"
POSITIONS = 2  # per ruleset and size
LIMIT_MS = 20_000


def _renamed(code: str, names: dict[str, str]) -> str:
    """A card code (``7H``, ``JK=9H``, ``2C=7H``, ``JK``) with its suits renamed."""
    parts = code.split("=")
    return "=".join(p[:-1] + names[p[-1]] if p[-1:] in names and p != "JK" else p for p in parts)


def _variants(spec: PositionSpec, rng: random.Random) -> dict[str, Position]:
    shuffled = list(SUITS)
    rng.shuffle(shuffled)
    names = dict(zip(SUITS, shuffled, strict=True))
    table = [list(meld) for meld in spec.table]
    hand = list(spec.hand)
    renamed_table = [[_renamed(c, names) for c in meld] for meld in table]
    renamed_hand = [_renamed(c, names) for c in hand]
    rng.shuffle(table)
    rng.shuffle(hand)
    return {
        "suits renamed": parse_position(
            spec.ruleset, spec.players, renamed_table, renamed_hand, spec.turn
        ),
        "reordered": parse_position(spec.ruleset, spec.players, table, hand, spec.turn),
    }


def _optimum(result: SolveResult, objective: Objective) -> tuple[int, ...]:
    return primary_key(result.moves[0], objective) if result.moves else ()


def test_renaming_suits_and_reordering_keep_every_proved_optimum() -> None:
    compared = 0
    for rid in REARRANGEMENT:
        drawn = draws_before_play(RULESETS[rid])
        for size in ("mid", "large"):
            rng = random.Random(f"metamorphic/{rid}/{size}")
            for _ in range(POSITIONS):
                spec = random_position(
                    rng,
                    rid,
                    table_size=SIZES[size],
                    hand_size=(6, 16),
                    table_jokers=rng.randint(0, 2),
                    table_twos=rng.randint(1, 6) if rid == "mexe-mexe" else 0,
                    hand_jokers=rng.randint(0, 2),
                    hand_melds=rng.randint(0, 2),
                    turn=Turn(cards_drawn=drawn, has_opened=True),
                )
                variants = _variants(spec, rng)
                for objective in Objective:
                    base = solve_move(spec.position(), objective, 1, LIMIT_MS)
                    assert base.optimal, spec.describe()
                    for name, position in variants.items():
                        other = solve_move(position, objective, 1, LIMIT_MS)
                        assert other.optimal, (name, spec.describe())
                        assert _optimum(other, objective) == _optimum(base, objective), (
                            f"{objective.name}, {name}: {spec.describe()}"
                        )
                        compared += 1
    assert compared == len(REARRANGEMENT) * 2 * POSITIONS * len(Objective) * 2
