"""The nearest legal move to an illegal proposal (issue #53, SPEC §4 ValidateMove ``suggest``).

Three keys, compared in order (docs/validate.md, "Suggestions"):

1. the proposal's hand cards: exactly those when some legal move plays them, else as many
   of them as possible, and never another hand card;
2. the most of the proposal's melds kept exactly (the same cards, each wild standing for
   the same rank: ``table_change.stands_key``);
3. the fewest melds before changed (SolveMove's tie-break).

The search is one CP-SAT solve on the turn's own model (``TurnModel``), built for a hand of
only the proposal's hand cards (``_suggestion_model``), with one weighted objective whose
order is exactly the keys' lexicographic order (``key_weights`` argues why). The model
knows a meld before by its keep flag, so key 2 counts there the proposal's melds that are
melds before left as they were; a meld the player made new is counted where the pool or a
slot could hold it, each wild by its own card (``suggest_melds``). The model's count of a
new meld is an upper bound (the pool does not say which run a place's card is in), so the
table read back is dealt so that the melds counted show (``deal_as_proposed``), and the
brute-force differential checks that the answer's keys are the best
(``bench.suggest_differential``). The move found is re-checked by the referee before it
is returned: a disagreement is a ``SolverError``.

Two shortcuts, each exact, make mexe-mexe's suggestion cheaper (``bench.suggest_deferred``
compares their answers with the whole model's): the search leaves R4's run windows out
and checks the table found against them (``_solve_nearest``), and where wilds could make
runs of their own it first gives one short try to the model without R6's limit on new
melds, whose optimum bounds every legal table's keys (``_nearest``).
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from collections.abc import Sequence

from ortools.sat.python import cp_model

from solver.core.cards import Card
from solver.core.rulesets import Ruleset
from solver.rearrangement import tries
from solver.rearrangement.budget import Budget
from solver.rearrangement.model import TurnModel, sum_of, turn_options
from solver.rearrangement.rebuild import Solution, rebuild_move
from solver.rearrangement.search import (
    DEFAULT_TIME_LIMIT_MS,
    SolvedMove,
    SolverError,
    legal_turn_model,
    play_allowed,
    solved_move,
    validate_move,
)
from solver.rearrangement.suggest_complete import completed_move
from solver.rearrangement.suggest_melds import (
    deal_as_proposed,
    proposed_melds,
    proposed_melds_held,
    read_meld,
)
from solver.rearrangement.turns import PlacedOracle
from solver.rummy import suggestion
from solver.rummy.melds import MeldClassification
from solver.rummy.position import Meld, Move, Position
from solver.rummy.table_change import StandsKey, stands_key

__all__ = [
    "SuggestedMove",
    "Suggestion",
    "kept_melds",
    "key_weights",
    "proposal_hand_cards",
    "suggest_move",
]


SuggestedMove = suggestion.SuggestedMove[SolvedMove]
Suggestion = suggestion.Suggestion[SolvedMove]

# The work of the one try the search without R6 gets (``_nearest``). The tries that answer
# prove their optimum at the root (at most 0.0044 on bench.suggest_bench's mid proposals),
# so the limit only decides when an unfinished try gives up: with SolveMove's first limit
# (0.01) a fifth of mexe-mexe's searched proposals ran out of it and paid the whole model's
# schedule (about 100 ms); with 0.05 most of those are answered by the try (15-60 ms), and
# a larger limit answered no more of 200 proposals (bench/HISTORY.md).
ONE_TRY_WORK = 0.05

# The search starts without R4's run windows (``_solve_nearest``), and where wilds could
# make runs of their own without R6 (``_nearest``). False: the whole model at once, which
# ``bench.suggest_deferred`` and the tests compare the answers with.
DEFER_RUN_NATURALS = True
RELAX_NEW_MELDS = True
# The try without R6 copies the whole deck's pool where that applies (``model.pool_deck``).
# False: the pool built for the position, which the tests compare the answers with.
POOL_FROM_DECK = True
# The proposal completed first (``suggest_complete``): where the nearest move keeps every
# proposed meld that is a meld, it is found by listing the ways to lay the other cards,
# without the model. False: the model's search always, which the tests compare with.
COMPLETE_PROPOSAL = True


def proposal_hand_cards(position: Position, proposal: Move) -> Counter[Card]:
    """The hand cards the proposal played: per card, the copies on its table beyond the
    table's own (a mexe-mexe 2 in ``to_hand`` counts as taken back, so a copy on the table
    after it is the hand's), at most the hand's copies. Cards neither in the hand nor on the
    table are ignored (they are the referee's CARD_NOT_IN_HAND, not the suggestion's)."""
    before = position.table_cards()
    hand = Counter(position.hand)
    back = Counter(proposal.to_hand)
    played: Counter[Card] = Counter()
    for card, count in proposal.table_cards().items():
        from_hand = count - max(before[card] - back[card], 0)
        played[card] = max(0, min(from_hand, hand[card]))
    return +played


def suggest_move(
    position: Position,
    proposal: Move,
    time_limit_ms: int = DEFAULT_TIME_LIMIT_MS,
) -> Suggestion:
    """The legal move nearest ``proposal`` by the three keys, or none with the reason."""
    wanted = proposal_hand_cards(position, proposal)
    proposal = written_out(position.ruleset, proposal)
    if not wanted:
        return Suggestion(None, "The proposal lays no hand card, so no play is near it.", True)
    if not play_allowed(position):
        return Suggestion(None, "The turn allows no play (R8), so nothing can be suggested.", True)
    keys = [_after_key(meld) for meld in proposal.table]  # read once: asked again and again
    started = time.monotonic()
    if COMPLETE_PROPOSAL and (
        completed := _completed(position, proposal, keys, wanted, time_limit_ms)
    ):
        return completed
    # The model's search has the time the completion left (R8's searches take some).
    budget = Budget(max(1, time_limit_ms - round((time.monotonic() - started) * 1000)))
    if _may_relax_new_melds(position, wanted):
        found = _nearest(position, proposal, keys, wanted, budget, relax_new_melds=True)
        if found is not None:
            return found
        # Not settled without R6: the whole model, in the time left, on a budget of its
        # own (the first search's clock stops must not mark this one unproved).
        budget = Budget(round((budget.deadline - time.monotonic()) * 1000))
    found = _nearest(position, proposal, keys, wanted, budget, relax_new_melds=False)
    assert found is not None  # only the search without R6 leaves a question open
    if not found.optimal and budget.optimal:
        # Proved by the model, not by the table it shows: a lone wild counted as a stand-in
        # for a natural may be what the model counted as a proposed meld kept. The model
        # with the wild as itself counts exactly that meld (seed 653181 of the differential).
        again = _nearest(position, proposal, keys, wanted, budget, False, stand_ins=False)
        if again is not None and (again.optimal or _keys(again) > _keys(found)):
            found = again
    if not found.optimal and COMPLETE_PROPOSAL:
        # Not proved: where no table keeps every keepable proposed meld, the completion
        # with each left out in turn may still prove the nearest (seed 1153044). Only here:
        # on every proposal it cost mexe-mexe's median more than it saved.
        left_ms = time_limit_ms - round((time.monotonic() - started) * 1000)
        rescued = _completed(position, proposal, keys, wanted, max(1, left_ms), drop_one=True)
        if rescued is not None:
            return rescued
    return found


def _keys(found: Suggestion) -> tuple[int, int, int]:
    """A suggestion's three keys, larger nearer (none: below every move)."""
    if found.move is None:
        return (-1, -1, 0)
    solved = found.move.solved
    return (len(solved.verdict.played), len(found.move.kept), -solved.melds_changed)


def _completed(
    position: Position,
    proposal: Move,
    keys: Sequence[StandsKey],
    wanted: Counter[Card],
    time_limit_ms: int,
    drop_one: bool = False,
) -> Suggestion | None:
    """The nearest move where it keeps every proposed meld that is a meld, found without
    the model (``suggest_complete``): proved, as it reaches each key's bound."""
    found = completed_move(position, proposal, wanted, time_limit_ms, drop_one)
    if found is None:
        return None
    solved, keepable = found
    kept, marks = kept_melds(proposal, solved.move.table, keys)
    if len(kept) < keepable:
        return None  # a meld read otherwise than proposed: the model decides
    note = _found_note(solved, wanted, True, len(kept), len(proposal.table))
    return Suggestion(SuggestedMove(solved, kept, marks, True), note, True)


def _may_relax_new_melds(position: Position, wanted: Counter[Card]) -> bool:
    """Is the search without R6's limit on new melds tried first (``_nearest``)? Where
    wilds in play could make a run of their own (mexe-mexe's 2s; the model's
    ``wild_runs_possible``): there the pool's runs of every length make the model big, and
    the proposals' nearest moves mostly respect R6 anyway. Elsewhere the model is small and
    the try that R6 then rejects costs more than the smaller model saves (carrossel's
    suggestions: p50 +15%, bench/HISTORY.md)."""
    rs = position.ruleset
    rules = rs.rearrangement
    if not RELAX_NEW_MELDS or rules.max_new_melds is None or rules.add_must_be_maximal:
        return False
    cards = [*position.table_cards().elements(), *wanted.elements()]
    return sum(rs.is_wild_card(card) for card in cards) >= rs.melds.min_sequence


def _nearest(
    position: Position,
    proposal: Move,
    keys: Sequence[StandsKey],
    wanted: Counter[Card],
    budget: Budget,
    relax_new_melds: bool,
    stand_ins: bool = True,
) -> Suggestion | None:
    """The suggestion found on the turn's model (``_suggestion_model``).

    ``relax_new_melds``: the model without R6's limit on new melds (so its runs are short
    ones laid end to end, as rummikub's: a smaller model). Every legal table is one of its
    tables with the same keys, so its optimum bounds the keys' weighted sum from above: a
    table found there that the referee calls legal and that realizes that optimum is the
    nearest legal move, proved. Else (None) the caller searches the whole model: where the
    table found lays more new melds than R6 allows, or its keys fall short of the optimum,
    or the search was stopped. No table there at all is no legal table at all.
    """
    tm, oracle = _suggestion_model(position, wanted, budget, relax_new_melds, stand_ins)
    laid = _restrict_to(tm, wanted)
    kept_counts = _proposal_melds_kept(tm, position, proposal, keys)
    tm.model.maximize(_nearest_objective(tm, laid, kept_counts, len(proposal.table)))
    solver, status = _solve_nearest(tm, budget, one_try=relax_new_melds)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        proved = status == cp_model.INFEASIBLE and budget.optimal
        if relax_new_melds and not proved:
            return None
        return Suggestion(None, _none_note(wanted, proved), proved)
    if relax_new_melds and (status != cp_model.OPTIMAL or not budget.optimal):
        return None
    move = rebuild_move(tm, solver)
    move = Move(move.table, move.to_hand, proposal.knock, move.discard)
    try:
        checked = _checked(position, move, oracle, proposal.knock)
    except SolverError:
        if relax_new_melds:  # more new melds than R6 allows (or another rule the model
            return None  # without R6 does not see): the whole model decides
        raise
    before = Counter(_before_key(classified) for classified in position.readings)
    dealt = deal_as_proposed(move, proposal, position.ruleset, before)
    if dealt != move:
        # The proposal's runs dealt as proposed: the same counts, so legal as the table
        # found unless a trade broke a rule the counts do not see; then the table found.
        again = _judged(position, dealt, oracle)
        if again is not None and _nearer(keys, again, checked):
            checked = again
    kept, marks = kept_melds(proposal, checked.move.table, keys)
    same = Counter(checked.verdict.played) == wanted
    # The model's count of a new proposed meld is an upper bound: where the table shows
    # fewer melds kept than the model counted, the answer is not proved nearest.
    weights = key_weights(len(proposal.table), len(tm.variables.kept.keep))
    found = (len(checked.verdict.played), len(kept), checked.melds_changed)
    realized = sum(w * k for w, k in zip(weights, found, strict=True))
    optimal = budget.optimal and status == cp_model.OPTIMAL
    optimal = optimal and realized >= round(solver.objective_value)
    if relax_new_melds and not optimal:
        return None
    note = _found_note(checked, wanted, same, len(kept), len(proposal.table))
    return Suggestion(SuggestedMove(checked, kept, marks, same), note, optimal)


def _solve_nearest(
    tm: TurnModel, budget: Budget, one_try: bool = False
) -> tuple[cp_model.CpSolver, cp_model.CpSolverStatus]:
    """The model's optimum, searched first without R4's windows for runs where they were
    left out (``pool.RunNaturals``): a table found there that breaks no window is the
    whole model's (its optimum too, when proved), and no table there is none at all. Only
    where the table found breaks a window are the windows added and the search run again.

    Each search is SolveMove's schedule of tries (lean and usual searches in turn): lean
    tries only had a shorter tail on most proposals but took 5 s on one mexe-mexe proposal
    whose optimum the usual search proves in 1.4 s (bench/HISTORY.md). ``one_try``: only
    one short lean try (``ONE_TRY_WORK``), and a table that breaks a window is no answer
    (UNKNOWN): the search without R6 (``_nearest``) settles most proposals in it, and the
    others are left to the whole model at the cost of that one try."""
    probe_last = tm.data.wild_runs_possible
    windows = tm.variables.pool.deferred_run_naturals
    if one_try:
        solver = budget.solver(work=ONE_TRY_WORK, lean=True)
        status = solver.solve(tm.model)
        found = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
        if windows is not None and found and windows.broken(Solution(solver).value):
            status = cp_model.UNKNOWN
        budget.record(solver, status, primary=True)
        return solver, status
    solver, status = tries.solve_primary(tm.model, True, budget, probe_last=probe_last)
    found = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    if windows is not None and found and windows.broken(Solution(solver).value):
        budget.record(solver, status, primary=False)
        windows.add(tm.model)
        solver, status = tries.solve_primary(tm.model, True, budget, probe_last=probe_last)
    budget.record(solver, status, primary=True)
    return solver, status


def _suggestion_model(
    position: Position,
    wanted: Counter[Card],
    budget: Budget,
    relax_new_melds: bool = False,
    stand_ins: bool = True,
) -> tuple[TurnModel, PlacedOracle | None]:
    """The turn's model, built for a hand of only the proposal's hand cards: no other hand
    card may be laid (key 1), so the others would only be variables fixed at 0, and the
    model is the smaller (fewer card codes, runs and places) and faster to build. Nothing
    else in the model reads the hand: releases need a hand card laid, a swap too, and
    "went out" is a measure the suggestion does not use (the referee re-checks the move in
    the whole position). Shangai and manipulation's largest add (R8) is a question about
    the whole hand, so there the model is the one SolveMove builds."""
    if position.ruleset.rearrangement.add_must_be_maximal:
        return legal_turn_model(position, budget)
    left = Counter(wanted)
    hand: list[Card] = []
    for card in position.hand:
        if left[card] > 0:
            left[card] -= 1
            hand.append(card)
    played_only = dataclasses.replace(position, hand=tuple(hand))
    max_new_melds = None if relax_new_melds else position.ruleset.rearrangement.max_new_melds
    options = turn_options(played_only, max_new_melds, None)
    options = dataclasses.replace(
        options,
        defer_run_naturals=DEFER_RUN_NATURALS,
        pool_from_deck=POOL_FROM_DECK,
        stand_ins=stand_ins,
    )
    return TurnModel(played_only, options), None


def _restrict_to(tm: TurnModel, wanted: Counter[Card]) -> cp_model.LinearExprT:
    """Key 1's constraint and measure: no hand card outside the proposal's is laid, and
    the count of those laid net of swaps (a mexe-mexe 2 laid while its copy goes back to
    the hand lays nothing, R6), as the verdict's ``played`` counts them; the model already
    asks for at least one (a pass is no play)."""
    hand = tm.data.hand_count
    for card, var in tm.variables.hand_used.items():
        if hand[card] > wanted[card]:  # (a model of the whole hand: shangai, manipulation)
            tm.model.add(var <= wanted[card])
    return tm.variables.played


def _proposal_melds_kept(
    tm: TurnModel, position: Position, proposal: Move, keys: Sequence[StandsKey]
) -> list[cp_model.LinearExprT]:
    """Key 2 as the model sees it: per proposal meld that is a meld before left exactly as
    it was, a count bounded by the keep flags of the melds before of its kind (identical
    melds before are interchangeable, so the copies are counted, not matched one by one);
    per meld made new, and per copy of a meld before beyond the melds before of its kind,
    a count of it laid (``suggest_melds``)."""
    wanted = Counter(keys)
    cards = dict(zip(keys, proposal.table, strict=True))
    before: dict[StandsKey, list[int]] = {}
    for index, classified in enumerate(position.readings):
        before.setdefault(_before_key(classified), []).append(index)
    keep = tm.variables.kept.keep
    # The copies beyond the melds before of their kind can only be laid new.
    new = Counter({key: n - len(before.get(key, ())) for key, n in wanted.items()})
    new = +new
    counts: list[cp_model.LinearExprT] = []
    counts += proposed_melds_held(tm, proposed_melds(position.ruleset, new, cards))
    for key, copies in wanted.items():
        melds = before.get(key, [])
        if not melds:
            continue
        flags = sum_of(keep[i] for i in melds)
        if copies >= len(melds):
            counts.append(flags)  # as many as are kept: the flags' sum itself
            continue
        count = tm.model.new_int_var(0, copies, "proposal_kept")
        tm.model.add(count <= flags)
        counts.append(count)
    return counts


def _nearest_objective(
    tm: TurnModel, laid: cp_model.LinearExprT, kept: Sequence[cp_model.LinearExprT], melds: int
) -> cp_model.LinearExprT:
    """The three keys as one sum, weighted by ``key_weights`` so that its order is the
    keys' lexicographic order; ``kept`` counts at most the proposal's ``melds`` (each
    count is at most its meld's copies)."""
    w_laid, w_kept, w_changed = key_weights(melds, len(tm.variables.kept.keep))
    return cp_model.LinearExpr.weighted_sum(
        [laid, sum_of(kept), tm.variables.changed], [w_laid, w_kept, w_changed]
    )


def key_weights(most_kept: int, melds_before: int) -> tuple[int, int, int]:
    """Weights ``(a, b, c)`` for cards laid, proposal melds kept and melds changed, such
    that ``a*laid + b*kept + c*changed`` orders moves exactly as the keys (laid, kept,
    -changed) compared lexicographically, whenever 0 <= kept <= ``most_kept`` and
    0 <= changed <= ``melds_before`` (the model's own bounds: ``changed`` counts melds
    before not kept, ``kept`` is a sum of counts each at most its upper bound).

    Why: take c = -1 and b = melds_before + 1. Two moves with equal laid and kept differ by
    -(changed difference): the fewer changed wins. With equal laid and kept greater by at
    least 1, the sum gains b * 1 and loses at most melds_before to changed: b - melds_before
    = 1 > 0. With a = (most_kept + 1) * b and laid greater by at least 1, the sum gains a
    and loses at most most_kept * b (kept) plus melds_before (changed): a - most_kept * b -
    melds_before = b - melds_before = 1 > 0. So one exact solve of the weighted sum is the
    lexicographic optimum, without three re-solves (``tests/test_suggest_keys.py`` checks
    the order on every key triple in the bounds). The weights stay small (at most
    (hand + 1) * (proposal melds + 1) * (melds before + 1) in the objective), far inside
    CP-SAT's 64-bit sums, and the objective is an integer, so CP-SAT's optimum is exact."""
    w_changed = -1
    w_kept = melds_before + 1
    w_laid = (most_kept + 1) * w_kept
    return w_laid, w_kept, w_changed


def _after_key(meld: Meld) -> StandsKey:
    return stands_key((tc.card, tc.value) for tc in meld)


def written_out(ruleset: Ruleset, proposal: Move) -> Move:
    """The proposal with every valid meld's wild values written out (``JK`` in a run is
    ``JK=6`` there), so that its melds compare with a table the referee wrote out."""
    table = tuple(read_meld(ruleset, meld).normalized for meld in proposal.table)
    return Move(table, proposal.to_hand, proposal.knock, proposal.discard)


def _before_key(classified: MeldClassification) -> StandsKey:
    # A meld before, its wilds' values read (a bare `JK` stands for one).
    reading = classified.reading
    stands = zip(classified.cards, reading.values, reading.wild, strict=True)
    return stands_key((tc.card, v if w else None) for tc, v, w in stands)


def kept_melds(
    proposal: Move, table: Sequence[Meld], keys: Sequence[StandsKey] | None = None
) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """Key 2 read off a table: the indices of the proposal's melds that ``table`` holds
    exactly, and per meld of ``table`` whether it is one of them (each matched once).
    ``keys``: the proposal's melds' keys, where already read."""
    if keys is None:
        keys = [_after_key(meld) for meld in proposal.table]
    return suggestion.kept_by_key(keys, [_after_key(meld) for meld in table])


def _checked(
    position: Position, move: Move, oracle: PlacedOracle | None, knock: bool
) -> SolvedMove:
    """The referee's verdict on the move found; a knock the proposal asked for is kept only
    where the move allows it (R10)."""
    verdict = validate_move(position, move, max_placed=oracle)
    if knock and not verdict.legal:
        move = Move(move.table, move.to_hand, False, move.discard)
        verdict = validate_move(position, move, max_placed=oracle)
    if not verdict.legal:
        reasons = "; ".join(str(v) for v in verdict.violations)
        raise SolverError(f"the suggestion search proposed an illegal move: {reasons}")
    return solved_move(position, move, verdict)


def _nearer(keys: Sequence[StandsKey], one: SolvedMove, other: SolvedMove) -> bool:
    """Is ``one`` nearer the proposal than ``other`` by keys 2 and 3 (the same cards laid)?"""

    def nearness(solved: SolvedMove) -> tuple[int, int]:
        table = [_after_key(meld) for meld in solved.move.table]
        return len(suggestion.kept_by_key(keys, table)[0]), -solved.melds_changed

    return nearness(one) > nearness(other)


def _judged(position: Position, move: Move, oracle: PlacedOracle | None) -> SolvedMove | None:
    """The move with its effects when the referee calls it legal, else None."""
    verdict = validate_move(position, move, max_placed=oracle)
    if not verdict.legal:
        return None
    return solved_move(position, move, verdict)


def _none_note(wanted: Counter[Card], proved: bool) -> str:
    cards = " ".join(card.code for card in sorted(wanted.elements()))
    if proved:
        return f"No legal play lays any of the proposal's hand cards ({cards})."
    return f"No legal play with the proposal's hand cards ({cards}) was found in the time given."


def _found_note(
    solved: SolvedMove, wanted: Counter[Card], same: bool, kept: int, melds: int
) -> str:
    laid = len(solved.verdict.played)
    if same:
        cards = f"the proposal's {laid} hand cards"
    else:
        cards = f"{laid} of the proposal's {sum(wanted.values())} hand cards (none lays all)"
    return f"The nearest legal play lays {cards} and keeps {kept} of its {melds} melds."
