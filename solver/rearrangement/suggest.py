"""The nearest legal move to an illegal proposal (issue #53, SPEC §4 ValidateMove ``suggest``).

Three keys, compared in order (docs/validate.md, "Suggestions"):

1. the proposal's hand cards: exactly those when some legal move plays them, else as many
   of them as possible, and never another hand card;
2. the most of the proposal's melds kept exactly (the same cards, each wild standing for
   the same rank: ``table_change.stands_key``);
3. the fewest melds before changed (SolveMove's tie-break).

The search is one CP-SAT solve on the turn's own model (``TurnModel``): the hand cards
outside the proposal's are fixed unlaid, and one weighted objective ranks the keys, each
unit of a key outweighing every count of the keys after it (the counts are small, so the
weights cannot overflow or blur the order). The model knows a meld before by its keep
flag, so key 2 counts there the proposal's melds that are melds before left as they were;
a proposal meld the player made new is counted on the table found (``SuggestedMove``), not
searched for (docs/validate.md says so). The move found is re-checked by the referee
before it is returned: a disagreement is a ``SolverError``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ortools.sat.python import cp_model

from solver.core.cards import SUITS, Card, TableCard
from solver.core.rulesets import Ruleset
from solver.rearrangement import tries
from solver.rearrangement.budget import Budget
from solver.rearrangement.model import GroupKey, RunKey, TurnModel, sum_of
from solver.rearrangement.model.slots import MeldSlot
from solver.rearrangement.rebuild import rebuild_move
from solver.rearrangement.search import (
    DEFAULT_TIME_LIMIT_MS,
    SolvedMove,
    SolverError,
    legal_turn_model,
    play_allowed,
    validate_move,
)
from solver.rearrangement.turns import PlacedOracle
from solver.rummy.melds import MeldClassification, MeldKind, classify
from solver.rummy.position import Meld, Move, Position
from solver.rummy.table_change import StandsKey, changed_melds, stands_key

__all__ = ["SuggestedMove", "Suggestion", "proposal_hand_cards", "suggest_move"]


@dataclass(frozen=True)
class SuggestedMove:
    """A legal move nearest the proposal, and which of the proposal's melds it keeps."""

    solved: SolvedMove
    kept: tuple[int, ...]  # indices into the proposal's table of the melds kept exactly
    same_cards: bool  # it plays exactly the proposal's hand cards (key 1 met in full)


@dataclass(frozen=True)
class Suggestion:
    """The answer: a move, or none with a sentence saying why; ``optimal`` when proved."""

    move: SuggestedMove | None
    note: str
    optimal: bool


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
    if not wanted:
        return Suggestion(None, "The proposal lays no hand card, so no play is near it.", True)
    if not play_allowed(position):
        return Suggestion(None, "The turn allows no play (R8), so nothing can be suggested.", True)
    budget = Budget(time_limit_ms)
    tm, oracle = legal_turn_model(position, budget)
    laid = _restrict_to(tm, wanted)
    kept_counts = _proposal_melds_kept(tm, position, proposal)
    tm.model.maximize(_nearest_objective(tm, laid, kept_counts))
    solver, status = tries.solve_primary(
        tm.model, True, budget, probe_last=tm.data.wild_runs_possible
    )
    budget.record(solver, status, primary=True)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        proved = status == cp_model.INFEASIBLE and budget.optimal
        return Suggestion(None, _none_note(wanted, proved), proved)
    move = rebuild_move(tm, solver)
    move = Move(move.table, move.to_hand, proposal.knock, move.discard)
    checked = _checked(position, move, oracle, proposal.knock)
    dealt = realize(move.table, proposal, position.ruleset)
    if dealt != move.table:
        # The proposal's runs dealt as proposed: the same counts, so legal as the table
        # found unless a trade broke a rule the counts do not see; then the table found.
        again = _judged(position, Move(dealt, move.to_hand, move.knock, move.discard), oracle)
        checked = again or checked
    kept = kept_melds(position, proposal, checked.move.table)
    same = Counter(checked.verdict.played) == wanted
    optimal = budget.optimal and status == cp_model.OPTIMAL
    note = _found_note(checked, wanted, same, len(kept), len(proposal.table))
    return Suggestion(SuggestedMove(checked, kept, same), note, optimal)


def _restrict_to(tm: TurnModel, wanted: Counter[Card]) -> cp_model.LinearExprT:
    """Key 1's constraint and measure: no hand card outside the proposal's is laid, and
    the count of those laid; at least one (a pass is no suggestion)."""
    used = tm.variables.hand_used
    for card, var in used.items():
        tm.model.add(var <= wanted[card])
    laid = sum_of(used.values())
    tm.model.add(laid >= 1)
    return laid


def _proposal_melds_kept(
    tm: TurnModel, position: Position, proposal: Move
) -> list[cp_model.IntVar]:
    """Key 2 as the model sees it: per proposal meld that is a meld before left exactly as
    it was, a count bounded by the keep flags of the melds before of its kind (identical
    melds before are interchangeable, so the copies are counted, not matched one by one)."""
    wanted = Counter(_after_key(meld) for meld in proposal.table)
    cards = {_after_key(meld): meld for meld in proposal.table}
    before: dict[StandsKey, list[int]] = {}
    for index, classified in enumerate(position.readings):
        before.setdefault(_before_key(classified), []).append(index)
    keep = tm.variables.kept.keep
    new = Counter({key: n for key, n in wanted.items() if key not in before})
    counts = _new_melds_kept(tm, natural_melds(position, new, cards))
    for key, copies in wanted.items():
        melds = before.get(key, [])
        if not melds:
            continue
        count = tm.model.new_int_var(0, min(copies, len(melds)), "proposal_kept")
        tm.model.add(count <= sum(keep[i] for i in melds))
        counts.append(count)
    return counts


def _nearest_objective(
    tm: TurnModel, laid: cp_model.LinearExprT, kept: Sequence[cp_model.IntVar]
) -> cp_model.LinearExprT:
    """The three keys as one sum: a card laid outweighs every count of melds kept, a meld
    kept every count of melds changed (0..melds before)."""
    changed_room = len(tm.variables.kept.keep) + 1
    kept_room = (len(kept) + 1) * changed_room
    return cp_model.LinearExpr.weighted_sum(
        [laid, sum_of(kept), tm.variables.changed], [kept_room, changed_room, -1]
    )


def _after_key(meld: Meld) -> StandsKey:
    return stands_key((tc.card, tc.value) for tc in meld)


def _before_key(classified: MeldClassification) -> StandsKey:
    # A meld before, its wilds' values read (a bare `JK` stands for one).
    reading = classified.reading
    stands = zip(classified.cards, reading.values, reading.wild, strict=True)
    return stands_key((tc.card, v if w else None) for tc, v, w in stands)


def kept_melds(position: Position, proposal: Move, table: Sequence[Meld]) -> tuple[int, ...]:
    """Indices of the proposal's melds that ``table`` holds exactly (key 2), each meld of
    ``table`` matching one proposal meld at most."""
    left = Counter(_after_key(meld) for meld in table)
    kept: list[int] = []
    for index, meld in enumerate(proposal.table):
        key = _after_key(meld)
        if left[key] > 0:
            left[key] -= 1
            kept.append(index)
    return tuple(kept)


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
    n_changed, flags = changed_melds(position, verdict.table)
    return SolvedMove(
        Move(verdict.table, move.to_hand, move.knock, move.discard),
        verdict,
        len(verdict.played),
        n_changed,
        flags,
    )


def _judged(position: Position, move: Move, oracle: PlacedOracle | None) -> SolvedMove | None:
    """The move with its effects when the referee calls it legal, else None."""
    verdict = validate_move(position, move, max_placed=oracle)
    if not verdict.legal:
        return None
    n_changed, flags = changed_melds(position, verdict.table)
    return SolvedMove(
        Move(verdict.table, move.to_hand, move.knock, move.discard),
        verdict,
        len(verdict.played),
        n_changed,
        flags,
    )


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


# ------------------------------------------------------------------------------------------
# Key 2 for the melds the player made new: natural runs and groups the pool or a slot holds


@dataclass(frozen=True)
class NaturalMeld:
    """A proposal meld of natural cards only, as the model's shapes see it."""

    copies: int  # how many times the proposal holds it
    run: tuple[tuple[int, str], ...]  # a run's (position, suit) places; () for a group
    group: GroupKey | None  # a group's rank and suits (SUITS order)


def natural_melds(
    position: Position, melds: Counter[StandsKey], cards: dict[StandsKey, Meld]
) -> list[NaturalMeld]:
    """The proposal's new melds that the model can count: valid, read one way, no wild."""
    out: list[NaturalMeld] = []
    for key, copies in melds.items():
        classified = classify(position.ruleset, cards[key])
        if not classified.ok or any(classified.reading.wild):
            continue
        reading = classified.reading
        if reading.kind is MeldKind.SEQUENCE:
            places = tuple(
                (p, tc.card.suit) for p, tc in zip(reading.positions, classified.cards, strict=True)
            )
            out.append(NaturalMeld(copies, tuple(sorted(places)), None))
        else:
            suits = tuple(s for s in SUITS if any(tc.card.suit == s for tc in classified.cards))
            out.append(NaturalMeld(copies, (), (reading.rank, suits)))
    return out


def _new_melds_kept(tm: TurnModel, melds: Sequence[NaturalMeld]) -> list[cp_model.IntVar]:
    """Per natural proposal meld, a count of it laid: by the pool (its run template with
    its naturals on its places, or its group of exactly its suits) or by a slot holding
    exactly its cards. Copies sharing a template or a place share its count."""
    m = tm.model
    pool = tm.variables.pool
    same_suit = tm.data.same_suit
    run_use: dict[RunKey, list[cp_model.IntVar]] = {}
    group_use: dict[GroupKey, list[cp_model.IntVar]] = {}
    place_use: dict[tuple[int, str], list[cp_model.IntVar]] = {}
    counts: list[cp_model.IntVar] = []
    for meld in melds:
        parts: list[cp_model.LinearExprT] = []
        in_pool = m.new_int_var(0, meld.copies, "proposal_pooled")
        if meld.run:
            first, last = meld.run[0][0], meld.run[-1][0]
            template: RunKey = (first, last, meld.run[0][1] if same_suit else None)
            places = [place for place in meld.run if place in pool.run_fill]
            if template in pool.runs and len(places) == len(meld.run):
                run_use.setdefault(template, []).append(in_pool)
                for place in places:
                    place_use.setdefault(place, []).append(in_pool)
            else:
                m.add(in_pool == 0)
            parts += [_slot_run(tm, slot, meld.run) for slot in tm.variables.slots]
        else:
            assert meld.group is not None
            if meld.group in pool.group_sets:
                group_use.setdefault(meld.group, []).append(in_pool)
            else:
                m.add(in_pool == 0)
            parts += [_slot_group(tm, j, meld.group) for j in range(len(tm.variables.slots))]
        count = m.new_int_var(0, meld.copies, "proposal_new_kept")
        m.add(count <= in_pool + sum_of(parts))
        counts.append(count)
    for template, users in run_use.items():
        m.add(sum_of(users) <= pool.runs[template])
    for group, users in group_use.items():
        m.add(sum_of(users) <= pool.group_sets[group])
    for place, users in place_use.items():
        m.add(sum_of(users) <= pool.run_fill[place])
    return counts


def _slot_run(tm: TurnModel, slot: MeldSlot, run: tuple[tuple[int, str], ...]) -> cp_model.IntVar:
    """Slot ``slot`` is exactly this natural run (a literal that may be 1 only then)."""
    m = tm.model
    exact = m.new_bool_var("slot_is_proposal")
    if not slot.occupied:
        m.add(exact == 0)
        return exact
    m.add(exact <= slot.active)
    m.add(exact <= slot.is_run)
    held = dict(run)
    for p, occupied in slot.occupied.items():
        if p in held:
            natural = slot.run_natural.get((p, held[p]))
            if natural is None:
                m.add(exact == 0)
                return exact
            m.add(exact <= natural)
        else:
            m.add(exact <= 1 - occupied)
    return exact


def _slot_group(tm: TurnModel, j: int, group: GroupKey) -> cp_model.IntVar:
    """Slot ``j`` is exactly this natural group: its rank, its suits and no wild."""
    m = tm.model
    slot = tm.variables.slots[j]
    rank, suits = group
    exact = m.new_bool_var("slot_is_proposal")
    if rank not in slot.group_rank:
        m.add(exact == 0)
        return exact
    m.add(exact <= slot.is_group)
    m.add(exact <= slot.group_rank[rank])
    for s in SUITS:
        natural = slot.group_natural.get((rank, s))
        if s in suits:
            if natural is None:
                m.add(exact == 0)
                return exact
            m.add(exact <= natural)
        elif natural is not None:
            m.add(exact <= 1 - natural)
    if rank in slot.group_free_wilds:
        m.add(slot.group_free_wilds[rank] <= 4 * (1 - exact))
    for (_wild, k), in_group in tm.variables.wilds_in_slots.in_group.items():
        if k == j:
            m.add(exact <= 1 - in_group)
    return exact


def realize(table: Sequence[Meld], proposal: Move, ruleset: Ruleset) -> tuple[Meld, ...]:
    """The table with the proposal's natural runs dealt out as proposed where the table
    holds a run of the same places: the pool counts a run by its places, so the rebuild
    may have dealt the same naturals to other runs through those places (suits do not
    matter there). Each swap trades two naturals of one place between two runs; the
    caller re-checks the result."""
    melds = [list(meld) for meld in table]
    present = Counter(stands_key((tc.card, tc.value) for tc in meld) for meld in melds)
    for wanted in proposal.table:
        if present[_after_key(wanted)] > 0:
            continue
        spots = _run_places(ruleset, wanted)
        if spots is None:
            continue
        target = next(
            (
                i
                for i, meld in enumerate(melds)
                if set(_run_places(ruleset, meld) or ()) == set(spots)
            ),
            None,
        )
        if target is None:
            continue
        _deal_into(ruleset, melds, target, spots)
        present = Counter(stands_key((tc.card, tc.value) for tc in meld) for meld in melds)
    return tuple(tuple(meld) for meld in melds)


def _run_places(ruleset: Ruleset, meld: Sequence[TableCard]) -> dict[int, Card] | None:
    """A natural run's card per position (None: not a run of naturals only)."""
    classified = classify(ruleset, meld)
    if not classified.ok or classified.reading.kind is not MeldKind.SEQUENCE:
        return None
    if any(classified.reading.wild):
        return None
    return dict(zip(classified.reading.positions, (tc.card for tc in meld), strict=True))


def _deal_into(
    ruleset: Ruleset, melds: list[list[TableCard]], target: int, spots: dict[int, Card]
) -> None:
    """Trade naturals of one place between runs until run ``target`` holds ``spots``."""
    for p, card in spots.items():
        here = _run_places(ruleset, melds[target])
        if here is None or here[p] == card:
            continue
        for i, meld in enumerate(melds):
            there = _run_places(ruleset, meld) if i != target else None
            if there is not None and there.get(p) == card:
                a = sorted(here).index(p)
                b = sorted(there).index(p)
                melds[target][a], meld[b] = meld[b], melds[target][a]
                break
