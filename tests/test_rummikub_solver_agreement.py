"""Issue 4, evidence 2: the most Rummikub tiles placed, against the public ``rummikub-solver``.

``rummikub-solver`` (test-only dependency) answers the same question as our
``solve_move(position, Objective.MOST_CARDS)`` for a player who has opened: how many rack
tiles can be laid, rearranging the table freely. Where the rules coincide, the two counts
must be equal. They differ in two documented ways (``tests/reference/rummikub_adapter.py``):

1. **Its joker restriction.** It lets a joker stand only in a 3-tile run or group, or in an
   inner place of a 4-5-tile run; never in a 4-tile group nor at the end of a run of 4 or
   more (unless the run can be cut into pieces that obey this). Our rules (R2-R4) let a
   joker stand anywhere in any run or group. So where the restriction bites, we place
   *more*; where it does not, exactly as many.
2. **Table jokers.** For it a joker on the table is free; for us it keeps its value unless a
   natural tile of that value from the rack releases it (R5).

The main sample therefore has jokers on the rack only (0-2), and three answers are compared
on each position: ours; the package as published; and the package's own integer program with
its set list widened to our melds (``JokerModel.ANYWHERE``), which, with no table joker, is
our rules exactly. We require ours == widened (always) and published <= ours, with equality
wherever widened == published: so every difference with the published package is explained
by its joker restriction, and only by it.

A third sample is of players who have **not** opened: there the package's ``solve`` answers
another question (it rearranges the table after the opening, and its pre-check misses some
openings), so ours is compared with its own integer program asked our question
(``opening_answer``), and two hand-made positions show each difference.

A second, smaller sample puts jokers on the table (in runs, value written): there the exact
answer depends on R5, so we check the bounds that hold under R5 — the widened program with
table jokers turned into natural tiles of their value (a play that never releases a joker)
is a lower bound, and with table jokers free an upper bound.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from rummikub_solver import SolverMode

from bench.positions import PositionSpec, random_position
from solver.core.cards import parse_card
from solver.rearrangement.search import Objective, SolveResult, solve_move
from solver.rummy.position import Position, Turn, parse_position
from tests.reference.rummikub_adapter import (
    JokerModel,
    TheirAnswer,
    card_of,
    opening_answer,
    rule_set,
    their_answer,
    tile_of,
)

SEED = 20240604
N_RACK_JOKERS = 200  # issue 4: at least 200 random positions
N_TABLE_JOKERS = 40
N_OPENING = 100
TIME_LIMIT_MS = 60_000  # generous: a test must not depend on machine speed
OPENED = Turn(has_opened=True, cards_drawn=0)
NOT_OPENED = Turn(has_opened=False, cards_drawn=0)


def _position(table: list[str], hand: str, turn: Turn = OPENED) -> Position:
    return parse_position("rummikub", 4, [m.split() for m in table], hand.split(), turn)


def _ours(position: Position) -> tuple[int, SolveResult]:
    """Tiles our solver places (most cards), after checking it proved the optimum."""
    result = solve_move(position, Objective.MOST_CARDS, 1, TIME_LIMIT_MS)
    assert result.optimal, f"not proved optimal within {TIME_LIMIT_MS} ms"
    if not result.moves:
        return 0, result
    best = result.moves[0]
    before = sum(len(meld) for meld in position.table)
    after = sum(len(meld) for meld in best.move.table)
    assert after - before == best.cards_played, "the move's table does not add up"
    return best.cards_played, result


def _table_text(result: SolveResult) -> str:
    if not result.moves:
        return "(no play)"
    return " | ".join(" ".join(tc.code for tc in meld) for meld in result.moves[0].move.table)


# ------------------------------------------------------------------------------------------
# Hand-made: the restriction biting


RESTRICTION_CASES = [
    # table, rack, tiles rummikub-solver lays, tiles we lay (all of the rack)
    pytest.param(["5H 6H 7H"], "JK", 0, 1, id="joker-ends-a-4-run-on-the-table"),
    pytest.param([], "5H 6H 7H JK", 3, 4, id="joker-ends-a-4-run-from-the-rack"),
    pytest.param([], "5S 5H 5D JK", 3, 4, id="joker-in-a-4-group"),
    pytest.param(["9C 10C JC QC"], "JK", 0, 1, id="joker-ends-a-5-run"),
    pytest.param(["5S 5H 5D"], "JK", 0, 1, id="joker-joins-a-3-group"),
]


@pytest.mark.parametrize(("table", "hand", "theirs", "ours"), RESTRICTION_CASES)
def test_joker_restriction_bites(table: list[str], hand: str, theirs: int, ours: int) -> None:
    """rummikub-solver never puts a joker in a 4-tile group or at the end of a run of 4+.

    Its set list (``RuleSet._combine_with_jokers``) lets a joker into 3-tile sets anywhere
    and into 4-5-tile runs only between two numbers, because such a joker is "redundant":
    the meld is valid without it. For a most-tiles objective it is not redundant: laying it
    is one more tile. With ``5H 6H 7H`` on the table and a joker on the rack it lays nothing;
    we lay ``5H 6H 7H JK=8H`` (R2-R4: a joker may stand for any missing tile, here the 8H at
    the end). Likewise ``5S 5H 5D JK``: it lays three tiles and keeps the joker, we lay the
    four-tile group with the joker as the missing 5C. The widened program (our meld list on
    its own solver) agrees with us, which shows the set list is the whole difference.
    """
    position = _position(table, hand)
    published = their_answer(position, JokerModel.PUBLISHED)
    widened = their_answer(position, JokerModel.ANYWHERE)
    count, result = _ours(position)
    assert published.count == theirs, published.describe()
    assert count == ours == len(position.hand), _table_text(result)
    assert ours > theirs
    assert widened.count == ours, widened.describe()


def test_their_value_mode_counts_tiles() -> None:
    """Why we compare with ``TILE_COUNT``: its "value" mode maximises the tile count too.

    ``SolverMode.TOTAL_VALUE`` sums an outer product, ``tiles × tilevalue``, which is the tile
    count times 364 (the sum of all tile numbers). With ``JS QS KS KH KD`` it lays the run
    J-Q-K (36 points) although the group of kings (39) is worth more.
    """
    rules = rule_set(JokerModel.PUBLISHED)
    state = rules.new_game()
    state.initial = False
    state.add_rack(*(tile_of(parse_card(code)) for code in ["JS", "QS", "KS", "KH", "KD"]))
    by_value = rules.solve(state, SolverMode.TOTAL_VALUE)
    assert by_value is not None
    assert sorted(card_of(t).code for t in by_value.tiles) == ["JS", "KS", "QS"]


def test_release_beats_a_fixed_table_joker() -> None:
    """R5: 6H from the rack releases ``JK=6H``; the joker then completes the group of 8s.

    The lower-bound program (table joker = a natural 6H) cannot do this and lays 3; ours and
    the free-joker upper bound lay 4.
    """
    position = _position(["5H JK=6H 7H"], "6H 8S 8D 8C")
    assert their_answer(position, JokerModel.TABLE_JOKERS_FIXED).count == 3
    assert their_answer(position, JokerModel.ANYWHERE).count == 4
    assert _ours(position)[0] == 4


# ------------------------------------------------------------------------------------------
# Random positions, jokers on the rack only: equality except where the restriction bites


@dataclass(frozen=True)
class Comparison:
    spec: PositionSpec
    ours: int
    published: TheirAnswer
    widened: TheirAnswer
    our_table: str

    @property
    def bites(self) -> bool:
        """The joker restriction costs the published package tiles here."""
        return self.widened.count > self.published.count

    def report(self) -> str:
        return (
            f"{self.spec.describe()}\n  ours: {self.ours} -> {self.our_table}\n"
            f"  {self.published.describe()}\n  {self.widened.describe()}"
        )


def rack_specs(
    seed: int, n: int, turn: Turn, name: str, smallest_hand: int, hand_melds: tuple[int, ...]
) -> Iterator[PositionSpec]:
    """Random positions with tables up to 90 tiles, racks up to 20 and 0-2 rack jokers."""
    rng = random.Random(seed)
    for i in range(n):
        yield random_position(
            rng,
            "rummikub",
            table_size=(0, 90),
            hand_size=(smallest_hand, 20),
            hand_jokers=rng.choices((0, 1, 2), weights=(4, 3, 3))[0],
            hand_melds=rng.choice(hand_melds),
            players=4,
            turn=turn,
            name=f"{name}-{seed}-{i}",
        )


def rack_joker_specs() -> Iterator[PositionSpec]:
    return rack_specs(SEED, N_RACK_JOKERS, OPENED, "rack-jokers", 1, (0, 0, 1, 2))


def _compare(spec: PositionSpec) -> Comparison:
    position = spec.position()
    ours, result = _ours(position)
    published = their_answer(position, JokerModel.PUBLISHED)
    # The widened program cannot place more when the published one lays the whole rack, nor
    # when no joker is in play (its extra sets all hold a joker): no need to ask it then.
    jokers = any(card.is_joker for card in position.hand)
    if jokers and published.count < len(position.hand):
        widened = their_answer(position, JokerModel.ANYWHERE)
    else:
        widened = published
    return Comparison(spec, ours, published, widened, _table_text(result))


@pytest.fixture(scope="module")
def rack_joker_runs() -> list[Comparison]:
    runs: list[Comparison] = []
    for spec in rack_joker_specs():
        try:
            runs.append(_compare(spec))
        except Exception as exc:  # name the position that broke the whole sample
            raise AssertionError(f"{spec.describe()}\n  {type(exc).__name__}: {exc}") from exc
    return runs


def test_sample_covers_the_issue(rack_joker_runs: list[Comparison]) -> None:
    """≥ 200 positions, tables up to 90 tiles, racks up to 20, jokers, and some bites."""
    specs = [c.spec for c in rack_joker_runs]
    assert len(specs) >= 200
    assert max(s.table_size for s in specs) <= 90
    assert max(len(s.hand) for s in specs) <= 20
    assert sum(s.table_size >= 70 for s in specs) >= 20
    assert sum(len(s.hand) >= 15 for s in specs) >= 20
    assert sum("JK" in s.hand for s in specs) >= 80
    assert sum(c.ours > 0 for c in rack_joker_runs) >= 150
    assert sum(c.bites for c in rack_joker_runs) >= 1


def test_equal_where_the_rules_coincide(rack_joker_runs: list[Comparison]) -> None:
    """Where the restriction does not bite, we place exactly as many tiles as rummikub-solver."""
    bad = [c for c in rack_joker_runs if not c.bites and c.ours != c.published.count]
    assert not bad, f"{len(bad)} disagreements:\n" + "\n".join(c.report() for c in bad)


def test_at_least_as_many_where_the_restriction_bites(rack_joker_runs: list[Comparison]) -> None:
    """Everywhere ours ≥ published, and ours equals the widened program (our rules exactly)."""
    bad = [c for c in rack_joker_runs if c.ours < c.published.count or c.ours != c.widened.count]
    assert not bad, f"{len(bad)} disagreements:\n" + "\n".join(c.report() for c in bad)


# ------------------------------------------------------------------------------------------
# Random positions with table jokers: bounds that hold under R5


def table_joker_specs(seed: int = SEED, count: int = N_TABLE_JOKERS) -> Iterator[PositionSpec]:
    rng = random.Random(seed + 1)
    for i in range(count):
        on_table = rng.randint(1, 2)
        yield random_position(
            rng,
            "rummikub",
            table_size=(6, 90),
            hand_size=(1, 20),
            table_jokers=on_table,
            hand_jokers=rng.randint(0, 2 - on_table),
            jokers_in_groups=False,  # a group joker stands for a rank, with no single twin
            players=4,
            turn=OPENED,
            name=f"table-jokers-{seed}-{i}",
        )


@pytest.mark.parametrize("spec", list(table_joker_specs()), ids=lambda s: s.name)
def test_table_jokers_within_bounds(spec: PositionSpec) -> None:
    """fixed-table-jokers (never releasing) ≤ ours ≤ free table jokers (both widened)."""
    position = spec.position()
    assert any("JK=" in code for meld in spec.table for code in meld)
    ours, result = _ours(position)
    low = their_answer(position, JokerModel.TABLE_JOKERS_FIXED)
    high = their_answer(position, JokerModel.ANYWHERE)
    assert low.count <= ours <= high.count, (
        f"{spec.describe()}\n  ours: {ours} -> {_table_text(result)}\n"
        f"  {low.describe()}\n  {high.describe()}"
    )


# ------------------------------------------------------------------------------------------
# The opening turn: the same rule asked of its program, and where its solve() differs

# SPEC R8, rummikub: "until `has_opened`, the play leaves every table meld as it was and lays
# any number of new melds made of hand tiles only, worth ≥ 30 points together (a joker counts
# as the value it stands for)."


def _published_opening(position: Position) -> int:
    """Tiles the package as released lays for a player who has not opened (its default
    ``solve``: the opening, then a second stage on the table)."""
    rules = rule_set(JokerModel.PUBLISHED)
    state = rules.new_game()
    assert state.initial
    state.add_table(*(tile_of(tc.card) for meld in position.table for tc in meld))
    state.add_rack(*(tile_of(card) for card in position.hand))
    solution = rules.solve(state)
    return 0 if solution is None else len(solution.tiles)


def test_opening_leaves_the_table_as_it_was() -> None:
    """R8: the opening turn lays ``JS QS KS`` (36 points) and may not touch ``5H 6H 7H``.

    rummikub-solver lays the run, then in a second stage adds the 8H to ``5H 6H 7H`` in the
    same turn: 4 tiles where the rule allows 3. Its own program asked our question agrees.
    """
    position = _position(["5H 6H 7H"], "JS QS KS 8H", NOT_OPENED)
    count, result = _ours(position)
    assert count == 3
    assert [tc.code for tc in result.moves[0].move.table[0]] == ["5H", "6H", "7H"]
    assert _published_opening(position) == 4
    assert opening_answer(position).count == 3


def test_their_pre_check_misses_an_opening_of_repeated_numbers() -> None:
    """``AS 2S 3S`` (6) and ``9D 9H 9S`` (27) open with 33 points; rummikub-solver lays nothing.

    Its pre-check sums the rack's numbers as a set, {1, 2, 3, 9} = 15 < 30, and gives up before
    its program runs; the program itself (``opening_answer``, published set list) lays all six.
    """
    position = _position([], "AS 2S 3S 9D 9H 9S", NOT_OPENED)
    assert _ours(position)[0] == 6
    assert _published_opening(position) == 0
    assert opening_answer(position, JokerModel.PUBLISHED).count == 6


def opening_specs() -> Iterator[PositionSpec]:
    return rack_specs(SEED + 2, N_OPENING, NOT_OPENED, "opening", 3, (0, 1, 2))


@pytest.fixture(scope="module")
def opening_runs() -> list[tuple[PositionSpec, int, TheirAnswer, SolveResult]]:
    runs = []
    for spec in opening_specs():
        position = spec.position()
        ours, result = _ours(position)
        runs.append((spec, ours, opening_answer(position), result))
    return runs


def test_opening_sample_covers_the_rule(
    opening_runs: list[tuple[PositionSpec, int, TheirAnswer, SolveResult]],
) -> None:
    """Openings made and missed, big racks and tables, jokers laid."""
    assert len(opening_runs) >= N_OPENING
    assert sum(ours > 0 for _, ours, _, _ in opening_runs) >= 40
    assert sum(ours == 0 and len(spec.hand) >= 6 for spec, ours, _, _ in opening_runs) >= 10
    assert sum(spec.table_size >= 60 for spec, _, _, _ in opening_runs) >= 20
    laid_jokers = sum(
        any(card.is_joker for card in result.moves[0].verdict.played)
        for _, ours, _, result in opening_runs
        if ours
    )
    assert laid_jokers >= 10


def test_opening_equals_their_program(
    opening_runs: list[tuple[PositionSpec, int, TheirAnswer, SolveResult]],
) -> None:
    """Ours equals the program's opening (our meld list, tile count) on every position, and
    our opening leaves every table meld as it was."""
    bad = [
        f"{spec.describe()}\n  ours: {ours} -> {_table_text(result)}\n  {theirs.describe()}"
        for spec, ours, theirs, result in opening_runs
        if ours != theirs.count
    ]
    assert not bad, f"{len(bad)} disagreements:\n" + "\n".join(bad)
    for spec, ours, _, result in opening_runs:
        if ours:
            after = result.moves[0].move.table
            before = spec.position().table
            assert [[tc.code for tc in m] for m in after[: len(before)]] == [
                [tc.code for tc in m] for m in before
            ], spec.describe()
