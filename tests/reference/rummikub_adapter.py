"""Our Rummikub positions, answered by the public ``rummikub-solver`` package (test-only).

``rummikub-solver`` 1.0.0 (Martijn Pieters, MIT) is an integer linear program after Den Hertog
and Hulshof (2006): it lists every *set* a tile may end in, and chooses how many copies of each
set to lay so that the table's tiles plus the chosen rack tiles are exactly covered, maximising
the number of rack tiles placed (``SolverMode.TILE_COUNT``). What we learned from its source
(``rummikub_solver/_ruleset.py``, ``_solver.py``):

* **Rules.** ``RuleSet(numbers=13, repeats=2, colours=4, jokers=2, min_len=3)`` are its
  defaults, and the standard game: numbers 1-13, four colours, two copies, two jokers, sets of
  at least 3. Tiles are integers: colour index × 13 + number (1-52), the joker is 53. Its colour
  order is black, blue, orange, red, which we write S, C, D, H (SPEC §1).
* **Input.** A ``GameState`` holds two multisets, ``table`` and ``rack``; the table's melds are
  *not* given, only its tiles (any rearrangement is allowed). ``initial=False`` says the player
  has opened. ``RuleSet.solve(state, SolverMode.TILE_COUNT)`` returns a ``ProposedSolution``
  (``tiles`` taken from the rack, ``sets`` = the whole table after) or ``None`` when no tile
  can be placed.
* **Objective.** ``TILE_COUNT`` maximises the number of rack tiles placed, jokers included.
  ``TOTAL_VALUE`` ("value") means to maximise the numbers placed, but its objective is
  ``sum(tiles[:, newaxis] @ tilevalue[newaxis, :])``: the sum of an outer product, which is
  ``sum(tiles) * sum(tilevalue)`` = 364 × the tile count. So it too maximises the tile count
  (with rack ``JS QS KS KH KD`` it lays the run worth 36, not the group worth 39).
  ``INITIAL`` is the 30-point opening (it maximises number tiles, jokers not counted).
* **The joker restriction.** Its set list (``RuleSet._runs``, ``_groups``,
  ``_combine_with_jokers``) holds runs of 3-5 tiles and groups of 3-4 tiles, and puts a joker
  only (i) anywhere in a **3-tile** run or group (one or two jokers, at least one number),
  or (ii) in an **inner** place of a **4- or 5-tile run** (both ends are numbers). It never
  puts a joker in a 4-tile group, nor at either end of a 4- or 5-tile run. Longer runs are
  unions of 3-5-tile pieces, so a joker in a long run is allowed only where the run can be cut
  into pieces that obey (i)-(ii). The author's reason: such a joker is "redundant" (it could be
  left out). For a most-tiles objective it is not: with ``5H 6H 7H`` on the table and a joker
  on the rack, it places nothing, while ``5H 6H 7H JK=8H`` is a legal play of one tile.
* **Table jokers are free.** A joker on the table is just a tile of the table multiset, so it
  may stand for anything after the play. Our rule R5 fixes its value unless released.

* **The opening turn.** With ``GameState.initial`` set (the player has not opened), its
  ``RuleSet.solve`` answers a different question than SPEC R8 asks. Its first stage lays rack
  tiles worth ≥ 30 (``SolverMode.INITIAL``, maximising number tiles, jokers not counted); a
  second stage then rearranges the table with the rest of the rack in the same turn. SPEC R8
  (and the published Rummikub rules) leave every table meld as it was until the player has
  opened. Its pre-check (``RuleSet._state_ideal_number_counts``) also builds the rack's
  numbers as a *set*, so a rack whose opening needs two tiles of one number
  (``AS 2S 3S 9D 9H 9S``: 6 + 27 points) is judged unable to open. ``opening_answer`` asks
  its integer program our question instead: its opening constraints (rack tiles only, sets
  worth ≥ 30, a joker worth the number it stands for) with the tile-count objective.

To tell these differences apart, this module also answers with two *widened* versions of the
same integer program (the package's own solver class, with our set list):

* ``JokerModel.ANYWHERE`` — every run of 3-5 and group of 3-4 with up to two jokers anywhere
  (at least one number): exactly our rules' melds, as far as tile counts go (a longer run
  always cuts into 3-5-tile pieces, each with a number, since there are only two jokers).
  Table jokers stay free, so for any position this is an **upper bound** of our optimum, and
  with no joker on the table it **is** our optimum.
* ``JokerModel.TABLE_JOKERS_FIXED`` — the same set list, and every table joker replaced by a
  natural tile of the value it stands for (up to three copies of a tile may then exist, so
  ``repeats=3``). Every play it finds is legal for us (an unreleased joker may move keeping its
  value, R5), so it is a **lower bound** of our optimum; releasing a joker can only add.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache, cached_property
from itertools import combinations

import cvxpy as cp
import numpy as np
from rummikub_solver import GameState, Joker, RuleSet, SolverMode, Tile

from solver.core.cards import JOKER_CARD, Card, WildValue
from solver.rummy.position import Position

# rummikub-solver's colour order (black, blue, orange, red) in our suit letters (SPEC §1).
COLOUR_SUITS = ("S", "C", "D", "H")
NUMBERS = 13
JOKER_TILE = len(COLOUR_SUITS) * NUMBERS + 1  # 53


class JokerModel(Enum):
    """Which version of the integer program answers (see the module docstring)."""

    PUBLISHED = "published"  # rummikub-solver exactly as released
    ANYWHERE = "anywhere"  # our meld list, table jokers free: an upper bound of ours
    TABLE_JOKERS_FIXED = "table_jokers_fixed"  # our meld list, table jokers as naturals


def tile_of(card: Card) -> int:
    """Our card as the package's tile number (colour index × 13 + number; joker 53)."""
    if card.is_joker:
        return JOKER_TILE
    if not card.is_ordinary or not 1 <= card.rank <= NUMBERS:
        raise ValueError(f"{card.code} is not a Rummikub tile")
    return COLOUR_SUITS.index(card.suit) * NUMBERS + card.rank


def card_of(tile: Tile | int) -> Card:
    """The package's tile number as our card."""
    number = int(tile)
    if number == JOKER_TILE:
        return JOKER_CARD
    colour, rank = divmod(number - 1, NUMBERS)
    return Card(rank + 1, COLOUR_SUITS[colour])


class AnywhereJokerRuleSet(RuleSet):
    """The package's rule set with our meld list: a joker may stand anywhere (R2-R4)."""

    @cached_property
    def sets(self) -> Sequence[tuple[Tile, ...]]:
        numbers = list(self.tiles[: self.colours * self.numbers])
        joker = self.tiles[-1]
        plain: list[list[Tile]] = []
        for colour in range(self.colours):
            row = numbers[colour * self.numbers : (colour + 1) * self.numbers]
            for length in range(self.min_len, 2 * self.min_len):
                plain.extend(row[s : s + length] for s in range(self.numbers - length + 1))
        for number in range(self.numbers):
            column = numbers[number :: self.numbers]
            for size in range(self.min_len, self.colours + 1):
                plain.extend(list(c) for c in combinations(column, size))
        found: set[tuple[Tile, ...]] = set()
        for tiles in plain:
            for wilds in range(min(self.jokers, len(tiles) - 1) + 1):
                for where in combinations(range(len(tiles)), wilds):
                    found.add(
                        tuple(sorted(joker if i in where else t for i, t in enumerate(tiles)))
                    )
        return sorted(found)


@cache
def rule_set(model: JokerModel, repeats: int = 2) -> RuleSet:
    """One rule set per model, built once: building compiles the integer program (~2 s)."""
    if model is JokerModel.PUBLISHED:
        return RuleSet(repeats=repeats)
    return AnywhereJokerRuleSet(repeats=repeats)


@dataclass(frozen=True)
class TheirAnswer:
    """What the integer program lays: rack tiles placed and the whole table after."""

    model: JokerModel
    placed: tuple[Card, ...]
    sets: tuple[tuple[Card, ...], ...]
    seconds: float  # wall time of RuleSet.solve alone

    @property
    def count(self) -> int:
        return len(self.placed)

    def describe(self) -> str:
        melds = " | ".join(" ".join(c.code for c in s) for s in self.sets)
        placed = " ".join(c.code for c in self.placed)
        return f"{self.model.value}: places {self.count} ({placed}) -> {melds}"


def table_tiles(position: Position, model: JokerModel) -> list[Card]:
    """The table as the program sees it: a multiset; jokers free or made natural."""
    out: list[Card] = []
    for meld, reading in zip(position.table, position.readings, strict=True):
        values = reading.reading.values
        for tc, value in zip(meld, values, strict=True):
            if tc.card.is_joker and model is JokerModel.TABLE_JOKERS_FIXED:
                out.append(_natural(value, tc.code))
            else:
                out.append(tc.card)
    return out


def _natural(value: WildValue, code: str) -> Card:
    if value.suit is None:
        raise ValueError(
            f"{code}: a joker standing for a rank only (in a group) has no single natural "
            "twin; TABLE_JOKERS_FIXED needs table jokers in runs"
        )
    return Card(value.rank, value.suit)


def solve_tiles(
    table: Iterable[Card], rack: Iterable[Card], model: JokerModel = JokerModel.PUBLISHED
) -> TheirAnswer:
    """Maximise rack tiles placed (``SolverMode.TILE_COUNT``) for a table and a rack."""
    table_list, rack_list = list(table), list(rack)
    most = max(Counter(c for c in table_list + rack_list if not c.is_joker).values(), default=0)
    rules = rule_set(model, repeats=max(2, most))
    state: GameState = rules.new_game()
    state.initial = False
    state.add_table(*(tile_of(c) for c in table_list))
    state.add_rack(*(tile_of(c) for c in rack_list))
    start = time.perf_counter()
    solution = rules.solve(state, SolverMode.TILE_COUNT)
    seconds = time.perf_counter() - start
    if solution is None:
        return TheirAnswer(model, (), (), seconds)
    placed = tuple(sorted(card_of(t) for t in solution.tiles))
    sets = tuple(tuple(card_of(t) for t in _ordered(s)) for s in solution.sets)
    return TheirAnswer(model, placed, sets, seconds)


def _ordered(tiles: tuple[Tile, ...]) -> list[Tile]:
    """Numbers first in ascending order, jokers last (for display only)."""
    return sorted(tiles, key=lambda t: (isinstance(t, Joker), int(t)))


def their_answer(position: Position, model: JokerModel = JokerModel.PUBLISHED) -> TheirAnswer:
    """Answer one of our Rummikub positions (the player has opened) with the program."""
    if position.ruleset.id != "rummikub":
        raise ValueError(f"rummikub-solver plays Rummikub, not {position.ruleset.id}")
    return solve_tiles(table_tiles(position, model), position.hand, model)


@cache
def _opening_problem(model: JokerModel) -> cp.Problem:
    """The program's opening constraints (sets worth ≥ 30 from the rack alone) with its
    tile-count objective: every rack tile counts, jokers included (our MOST_CARDS)."""
    program = rule_set(model)._solver  # the package's compiled program (private, pinned 1.0.0)
    opening = program._problems[SolverMode.INITIAL]
    return cp.Problem(cp.Maximize(cp.sum(program.tiles)), opening.constraints)


def opening_answer(position: Position, model: JokerModel = JokerModel.ANYWHERE) -> TheirAnswer:
    """The most rack tiles an opening play lays (SPEC R8: new melds of rack tiles only, worth
    ≥ 30 together; the table stays as it was), by the package's own integer program."""
    if position.ruleset.id != "rummikub":
        raise ValueError(f"rummikub-solver plays Rummikub, not {position.ruleset.id}")
    rules = rule_set(model)
    program = rules._solver
    state: GameState = rules.new_game()
    state.add_rack(*(tile_of(c) for c in position.hand))
    program.rack.value = state.rack_array
    program.table.value = np.zeros_like(state.table_array)  # the table is not theirs to use
    problem = _opening_problem(model)
    start = time.perf_counter()
    value = problem.solve(solver=program.backend)
    seconds = time.perf_counter() - start
    if value is None or np.isinf(value) or program.tiles.value is None:
        return TheirAnswer(model, (), (), seconds)
    placed: list[Card] = []
    for index, count in enumerate(np.rint(program.tiles.value).astype(int)):
        placed.extend([card_of(index + 1)] * int(count))
    sets: list[tuple[Card, ...]] = []
    for index, count in enumerate(np.rint(program.sets.value).astype(int)):
        tiles = rules.sets[index]
        sets.extend([tuple(card_of(t) for t in _ordered(tiles))] * int(count))
    return TheirAnswer(model, tuple(sorted(placed)), tuple(sets), seconds)
