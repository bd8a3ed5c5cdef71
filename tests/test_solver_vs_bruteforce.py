"""Issue 4, evidence item 1: the CP-SAT optimum equals an exhaustive brute force.

For each of the six rearrangement rulesets, ``POSITIONS_PER_RULESET`` seeded random small
positions (``tests.reference.positions``) are solved by ``solver.rearrangement.search`` and by the
reference (``tests.reference.bruteforce``), which enumerates every candidate table and lets
``validate_move`` judge it. They must agree EXACTLY on:

- the most hand cards placed (``Objective.MOST_CARDS``),
- the fewest hand points left (``Objective.FEWEST_POINTS``),
- whether the player can go out (``Objective.GO_OUT``),
- ``max_cards_placed(position, max_new_melds=0)`` versus the largest add (shangai,
  manipulation: R8's "an add must be maximal"),
- an empty move list exactly when no legal play exists,
- carrossel's CheckKnock without a move (R10, ``knock_reach``): the lowest hand total,
  whether a knock is reachable (a legal play laying a hand card and leaving 1-5 points,
  also where going out is), whether going out is, and a legal witness,
- the SPEC §4 tie-break: the fewest melds changed among the most-cards optima, where the
  solver proved it (``SolveStats.tie_break_proved``); where a work limit stopped the
  tie-break, the move may change more melds but never fewer, and that stays rare
  (``MAX_TIE_BREAK_SHORT``),

and every move the solver returns must be legal (``validate_move``, and the reference's own
R8 check) and, where several are asked for, no two alike. A disagreement is not "fixed"
here: ``python -m tests.reference.differential`` minimises it into
``tests/reference/DISAGREEMENTS.md``.

The positions run in ``WORKERS`` processes. Coverage counts (positions where a wild had to be
released, going out was possible, no play existed, …) are printed and asserted, so that the
agreement demonstrably covers the interesting cases.
"""

from __future__ import annotations

import multiprocessing
import os
import random
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver.core.cards import Card
from solver.core.rulesets import RULESETS
from solver.rearrangement.model import TurnModel, turn_options
from solver.rearrangement.search import Objective, solve_move
from solver.rummy.position import Position
from tests.reference.bruteforce import solve
from tests.reference.differential import Outcome, compare, compare_release_twin
from tests.reference.positions import (
    MANY_WILDS,
    REARRANGEMENT,
    PositionSpec,
    random_spec,
    wild_cards_in_play,
)

# The issue asks for >= 1,000; CARROSSEL_BRUTEFORCE_POSITIONS lowers it for a quick local run.
POSITIONS_PER_RULESET = int(os.environ.get("CARROSSEL_BRUTEFORCE_POSITIONS", "1000"))
WORKERS = 2
SHOWN_FAILURES = 10
# Share of positions per ruleset whose unproved tie-break changes more melds than needed
# (measured: at most 2 in 1,000, in mexe-mexe and vatikan, none elsewhere; the two-stage
# tie-break stops at its work limit, docs/solver.md).
MAX_TIE_BREAK_SHORT = 0.01

# Minimum coverage, as a share of the positions of a ruleset (measured shares are 2-5x these).
COVERAGE: dict[str, dict[str, float]] = {
    "carrossel": {"play": 0.5, "no_play": 0.03, "go_out": 0.2, "release_needed": 0.05,
                  "ace_low": 0.05, "ace_high": 0.05, "meld_play": 0.2, "knock": 0.2,
                  "knock_or_go_out": 0.05},
    "mexe-mexe": {"play": 0.5, "no_play": 0.03, "go_out": 0.2, "release_needed": 0.05,
                  "ace_low": 0.05, "ace_high": 0.05, "meld_play": 0.2, "to_hand": 0.1},
    "vatikan": {"play": 0.5, "no_play": 0.03, "go_out": 0.2, "release_needed": 0.05,
                "ace_low": 0.05, "ace_high": 0.05, "meld_play": 0.2},
    "shangai": {"play": 0.5, "no_play": 0.03, "go_out": 0.1, "ace_low": 0.05,
                "add_play": 0.3, "meld_beats_add": 0.05, "meld_play": 0.2},
    "manipulation": {"play": 0.5, "no_play": 0.03, "go_out": 0.1, "ace_high": 0.05,
                     "add_play": 0.3, "meld_beats_add": 0.05, "meld_play": 0.2},
    "rummikub": {"play": 0.5, "no_play": 0.03, "go_out": 0.2, "release_needed": 0.05,
                 "ace_low": 0.05, "meld_play": 0.2, "opening_play": 0.02},
}  # fmt: skip

_results: dict[str, list[Outcome]] = {}


@pytest.fixture(scope="module")
def executor() -> Iterator[ProcessPoolExecutor]:
    context = multiprocessing.get_context("spawn")  # no fork of a process with threads
    with ProcessPoolExecutor(max_workers=WORKERS, mp_context=context) as pool:
        yield pool


def outcomes(ruleset_id: str, executor: ProcessPoolExecutor) -> list[Outcome]:
    """The comparisons of one ruleset, computed once per test session."""
    if ruleset_id not in _results:
        jobs = [(ruleset_id, seed) for seed in range(POSITIONS_PER_RULESET)]
        _results[ruleset_id] = list(executor.map(compare, jobs, chunksize=10))
    return _results[ruleset_id]


def _summary(ruleset_id: str, results: list[Outcome]) -> str:
    flags = Counter(flag for o in results for flag in o.flags)
    agree = sum(1 for o in results if o.agrees)
    reference = sum(o.reference_seconds for o in results)
    solver = sum(o.solver_seconds for o in results)
    counts = ", ".join(f"{k}={v}" for k, v in sorted(flags.items()))
    return (
        f"{ruleset_id}: {agree}/{len(results)} agree; reference {reference:.1f}s, "
        f"CP-SAT {solver:.1f}s (CPU, summed); {counts}"
    )


@pytest.mark.parametrize("ruleset_id", REARRANGEMENT)
def test_cp_sat_optimum_equals_bruteforce(ruleset_id: str, executor: ProcessPoolExecutor) -> None:
    results = outcomes(ruleset_id, executor)
    print(_summary(ruleset_id, results))
    failures = [o for o in results if not o.agrees]
    shown = "\n".join(o.report() for o in failures[:SHOWN_FAILURES])
    assert not failures, (
        f"{len(failures)} of {len(results)} {ruleset_id} positions disagree "
        f"(first {min(len(failures), SHOWN_FAILURES)}):\n{shown}"
    )


@pytest.mark.parametrize("ruleset_id", REARRANGEMENT)
def test_unproved_tie_breaks_rarely_fall_short(
    ruleset_id: str, executor: ProcessPoolExecutor
) -> None:
    results = outcomes(ruleset_id, executor)
    short = [o for o in results if "tie_break_short" in o.flags]
    assert len(short) <= MAX_TIE_BREAK_SHORT * len(results), "\n".join(
        str(o.spec) for o in short[:SHOWN_FAILURES]
    )


@pytest.mark.parametrize("ruleset_id", REARRANGEMENT)
def test_positions_cover_the_interesting_cases(
    ruleset_id: str, executor: ProcessPoolExecutor
) -> None:
    results = outcomes(ruleset_id, executor)
    flags = Counter(flag for o in results for flag in o.flags)
    short = {
        flag: (flags[flag], round(share * len(results)))
        for flag, share in COVERAGE[ruleset_id].items()
        if flags[flag] < share * len(results)
    }
    assert not short, f"{ruleset_id}: too few positions with (seen, needed): {short}"


# Share of rummikub and mexe-mexe positions whose one free wild the model counts as a stand-in
# for a card code (``model.pool._build_stand_ins``; measured: about 0.11).
STAND_IN_SHARE = 0.05


@pytest.mark.parametrize("ruleset_id", ["rummikub", "mexe-mexe"])
def test_stand_in_wilds_match_bruteforce(ruleset_id: str, executor: ProcessPoolExecutor) -> None:
    """R3: "A wild in a group stands for one of the missing suits"; in a same-suit run a
    wild's place is one card. The positions the model counts that way are among the ones
    compared above, and they agree with the brute force."""
    results = outcomes(ruleset_id, executor)
    stand_in = [o for o in results if _turn_model(o.spec.build()).data.stand_in]
    assert len(stand_in) >= STAND_IN_SHARE * len(results)
    assert all(o.agrees for o in stand_in), "\n".join(o.report() for o in stand_in if not o.agrees)


def _turn_model(position: Position) -> TurnModel:
    limit = position.ruleset.rearrangement.max_new_melds
    return TurnModel(position, turn_options(position, limit, None))


# Mexe-mexe deals with up to MANY_WILDS wild-capable 2s: enough wilds for a run of their own,
# which R4 forbids and the pool's run counts must rule out (TurnModel._build_run_naturals).
MANY_TWOS_POSITIONS = int(os.environ.get("CARROSSEL_MANY_TWOS_POSITIONS", "300"))
MANY_TWOS_SEED = 100_000  # seeds apart from the ones above


def test_many_wild_twos_match_bruteforce(executor: ProcessPoolExecutor) -> None:
    jobs = [("mexe-mexe", MANY_TWOS_SEED + n, MANY_WILDS) for n in range(MANY_TWOS_POSITIONS)]
    results = list(executor.map(compare, jobs, chunksize=10))
    print(_summary(f"mexe-mexe with up to {MANY_WILDS} 2s", results))
    failures = [o for o in results if not o.agrees]
    shown = "\n".join(o.report() for o in failures[:SHOWN_FAILURES])
    assert not failures, f"{len(failures)} of {len(results)} positions disagree:\n{shown}"
    many = [o for o in results if wild_cards_in_play(o.spec.build()) >= 3]
    assert len(many) >= 0.2 * len(results), f"only {len(many)} positions hold three 2s or more"
    assert sum(1 for o in many if "play" in o.flags) >= 0.1 * len(results)
    short = [o for o in results if "tie_break_short" in o.flags]
    assert len(short) <= MAX_TIE_BREAK_SHORT * len(results)


# Positions holding a natural meld that a release could leave (``release_twins``): the model
# counts such a meld kept when a slot holds its very cards (TurnModel.via), which random
# deals above almost never exercise (13 of 12,000 seeds 13000-14999). Shangai and
# manipulation have no wilds.
RELEASE_TWIN_SEEDS = int(os.environ.get("CARROSSEL_RELEASE_TWIN_SEEDS", "300"))
RELEASE_TWIN_SEED = 300_000
RELEASE_TWIN_RULESETS = ("carrossel", "mexe-mexe", "vatikan", "rummikub")


@pytest.mark.parametrize("ruleset_id", RELEASE_TWIN_RULESETS)
def test_melds_a_release_can_leave_match_bruteforce(
    ruleset_id: str, executor: ProcessPoolExecutor
) -> None:
    jobs = [(ruleset_id, RELEASE_TWIN_SEED + n) for n in range(RELEASE_TWIN_SEEDS)]
    found = executor.map(compare_release_twin, jobs, chunksize=10)
    results = [o for o in found if o is not None]
    print(_summary(f"{ruleset_id} with a meld a release can leave", results))
    failures = [o for o in results if not o.agrees]
    shown = "\n".join(o.report() for o in failures[:SHOWN_FAILURES])
    assert not failures, f"{len(failures)} of {len(results)} positions disagree:\n{shown}"
    assert len(results) >= 0.1 * len(jobs), f"only {len(results)} positions hold a candidate"
    short = [o for o in results if "tie_break_short" in o.flags]
    assert len(short) <= max(1, MAX_TIE_BREAK_SHORT * len(results))


# ------------------------------------------------------------------------------------------
# Properties (hypothesis): relations between answers that must hold on any position.

NO_MUST_PLAY = ("carrossel", "mexe-mexe", "vatikan", "rummikub")
PROPERTY_SETTINGS = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def _most(position: Position) -> int:
    result = solve_move(position, Objective.MOST_CARDS)
    return result.moves[0].cards_played if result.moves else 0


def _with_extra_card(spec: PositionSpec, pick: int) -> PositionSpec | None:
    position = spec.build()
    used = position.table_cards() + Counter(position.hand)
    left = sorted((position.ruleset.deck(position.players) - used).elements())
    if not left:
        return None
    card: Card = left[pick % len(left)]
    return replace(spec, hand=(*spec.hand, card.code))


@PROPERTY_SETTINGS
@given(
    ruleset_id=st.sampled_from(NO_MUST_PLAY),
    seed=st.integers(0, 10**6),
    pick=st.integers(0, 10**4),
)
def test_another_hand_card_never_lowers_the_most_cards_placed(
    ruleset_id: str, seed: int, pick: int
) -> None:
    """Every play of the smaller hand is still a play of the larger one."""
    spec = random_spec(ruleset_id, seed)
    bigger = _with_extra_card(spec, pick)
    if bigger is None:
        return
    small, large = spec.build(), bigger.build()
    assert _most(large) >= _most(small)
    small_ref, large_ref = solve(small).most_cards, solve(large).most_cards
    assert (large_ref.value if large_ref else 0) >= (small_ref.value if small_ref else 0)


@PROPERTY_SETTINGS
@given(ruleset_id=st.sampled_from(REARRANGEMENT), seed=st.integers(0, 10**6))
def test_order_of_hand_and_melds_does_not_matter(ruleset_id: str, seed: int) -> None:
    """Shuffling the hand, the melds and a group's cards changes no optimum.

    Only what each objective optimises is compared: two equally good moves may differ in
    the rest (under most cards, one may also take a released wild to the hand).
    """
    spec = random_spec(ruleset_id, seed)
    rng = random.Random(seed)
    hand = list(spec.hand)
    rng.shuffle(hand)
    melds = list(spec.table)
    rng.shuffle(melds)
    shuffled = replace(spec, hand=tuple(hand), table=tuple(melds))
    for objective in Objective:
        one = solve_move(spec.build(), objective)
        two = solve_move(shuffled.build(), objective)
        assert bool(one.moves) == bool(two.moves)
        if one.moves:
            a, b = one.moves[0], two.moves[0]
            if objective is Objective.FEWEST_POINTS:
                assert a.verdict.hand_points_after == b.verdict.hand_points_after
            else:
                assert a.cards_played == b.cards_played
            if objective is Objective.GO_OUT:
                assert a.verdict.went_out == b.verdict.went_out


@PROPERTY_SETTINGS
@given(ruleset_id=st.sampled_from(REARRANGEMENT), seed=st.integers(0, 10**6))
def test_objectives_are_consistent(ruleset_id: str, seed: int) -> None:
    """Going out lays the whole hand and leaves 0 points; any play lowers the hand's points."""
    position = random_spec(ruleset_id, seed).build()
    out = solve_move(position, Objective.GO_OUT)
    most = solve_move(position, Objective.MOST_CARDS)
    fewest = solve_move(position, Objective.FEWEST_POINTS)
    assert bool(out.moves) == bool(most.moves) == bool(fewest.moves)
    if not out.moves:
        return
    ruleset = RULESETS[ruleset_id]
    if not ruleset.rearrangement.released_wild_to_hand:  # else a 2 taken back may raise the total
        assert fewest.moves[0].verdict.hand_points_after < ruleset.hand_points(position.hand)
    if out.moves[0].verdict.went_out:
        assert most.moves[0].cards_played == len(position.hand)
        assert fewest.moves[0].verdict.hand_points_after == 0
    else:
        assert most.moves[0].cards_played < len(position.hand)
