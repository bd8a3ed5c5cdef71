"""The nearest legal carioca turn to an illegal proposal (issue #53, ValidateMove ``suggest``).

The keys, compared in order (docs/rules.md, "Carioca", "Suggestions"):

1. the proposal's hand cards: per card, the copies its table holds beyond the position's
   table, at most the hand's (the discard is not played: it goes to the pile). Exactly those
   when a legal turn lays them, else as many of them as possible, never another hand card,
   and at least one (the pass is always legal and suggests nothing);
2. the most of the proposal's melds kept exactly: its table's melds, each read as the
   referee reads it, found in the suggested table with the same cards and every joker
   standing for the same card (a meld the proposal left as it was counts too);
3. the fewest of the position's melds changed (SolveMove's tie-break; an opening changes
   none);
4. then, as a player expects, the proposal's discard where it is still in the hand, and
5. the fewest points left in the hand (C7, SolveMove's order).

One CP-SAT solve of the turn's own model (``model.build``) with a weighted objective, each
unit of a key outweighing every count of the keys after it. Key 2 is counted in the model:
before opening, a proposed meld is an opening candidate or a meld of the table; after it,
a proposed meld is meld ``i`` of the table grown exactly so, which fixes every lay-off
decision of meld ``i`` (``_grown_into``). The move found is re-checked by the referee
before it is returned (``search.checked_move``).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence

from ortools.sat.python import cp_model

from solver.contract import model as turn_model
from solver.contract.melds import HIGH_ACE, LOW_ACE, read_continuation, readings
from solver.contract.search import (
    ContractSolvedMove,
    checked_move,
    new_solver,
    turn_data,
)
from solver.core.cards import Card, TableCard, sort_key
from solver.rummy import suggestion
from solver.rummy.melds import MeldKind
from solver.rummy.position import Meld, Move, Position

DEFAULT_TIME_LIMIT_MS = 1000
MeldKey = tuple[tuple[str, str], ...]  # sorted (card code, the card a joker stands for)
Requirement = tuple[cp_model.IntVar, bool]  # a decision and the value a kept meld needs


ContractSuggestedMove = suggestion.SuggestedMove[ContractSolvedMove]
ContractSuggestion = suggestion.Suggestion[ContractSolvedMove]


# --- what the proposal laid and which melds it proposed ---------------------------------------


def proposal_hand_cards(position: Position, proposal: Move) -> Counter[Card]:
    """Per card, the copies on the proposal's table beyond the position's table, at most the
    hand's (cards neither in the hand nor on the table are the referee's CARD_NOT_IN_HAND)."""
    before = position.table_cards()
    hand = Counter(position.hand)
    after = proposal.table_cards()
    return +Counter({card: min(hand[card], after[card] - before[card]) for card in hand})


def _stands_rank(tc: TableCard, ace: int) -> int:
    rank = tc.value.rank if tc.value is not None else tc.card.rank
    return ace if rank == 1 else rank


def read_as_proposed(meld: Meld) -> Meld:
    """The meld with its jokers' values written out as the referee reads it (trio first, as
    written; a sequence written out of order is read in order, ace low then high). A meld
    that is no carioca meld stays as written: it can be kept by no legal table."""
    orders = [meld]
    orders += [tuple(sorted(meld, key=lambda tc: _stands_rank(tc, ace))) for ace in (1, 14)]
    for cards in orders:
        found = readings(cards)
        if found:
            return found[0].normalized(cards)
    return meld


def meld_key(meld: Sequence[TableCard]) -> MeldKey:
    """A meld as a multiset of cards, each joker with the card it stands for (a trio's joker
    stands for a rank: ``8``; a sequence's for a card: ``8S``). Order does not count."""
    return tuple(
        sorted((tc.card.code, tc.value.code if tc.value is not None else "") for tc in meld)
    )


def kept_melds(proposal: Move, table: Sequence[Meld]) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """Key 2 read off a table: the indices of the proposal's melds that ``table`` holds
    exactly, and per meld of ``table`` whether it is one of them (each matched once)."""
    return suggestion.kept_by_key(
        [meld_key(read_as_proposed(meld)) for meld in proposal.table],
        [meld_key(meld) for meld in table],
    )


# --- the model's keys ---------------------------------------------------------------------------


def _laid(turn: turn_model.TurnModel, wanted: Counter[Card]) -> cp_model.LinearExprT:
    """Key 1: no hand card laid beyond the proposal's, and the count laid (at least one)."""
    discards = {id(literal) for literal in turn.discards.values()}
    terms: list[cp_model.LinearExprT] = []
    for card, uses in turn.used.items():
        laid = [times * literal for times, literal in uses if id(literal) not in discards]
        if laid:
            turn.model.add(sum(laid) <= wanted[card])
            terms.extend(laid)
    total = sum(terms)
    turn.model.add(total >= 1)
    return total


def _proposed(proposal: Move) -> dict[MeldKey, tuple[int, Meld]]:
    """The proposal's melds by key: how many copies, and one of them as the referee reads it."""
    out: dict[MeldKey, tuple[int, Meld]] = {}
    for meld in proposal.table:
        read = read_as_proposed(meld)
        key = meld_key(read)
        copies = out[key][0] if key in out else 0
        out[key] = (copies + 1, read)
    return out


def _kept_before_opening(
    turn: turn_model.TurnModel, position: Position, proposed: dict[MeldKey, tuple[int, Meld]]
) -> cp_model.LinearExprT:
    """Key 2 before opening: the table stays as it is, so a proposed meld is one of its melds
    or an opening meld the model chooses (each candidate copy counted once)."""
    on_table = Counter(meld_key(classified.normalized) for classified in position.readings)
    chosen: dict[MeldKey, list[cp_model.IntVar]] = {}
    for (m, _copy), literal in turn.candidate_copies.items():
        key = meld_key(read_as_proposed(turn.candidates[m].meld()))
        chosen.setdefault(key, []).append(literal)
    terms: list[cp_model.LinearExprT] = []
    for key, (copies, _meld) in proposed.items():
        fixed = min(copies, on_table[key])
        if fixed == copies or key not in chosen:
            terms.append(fixed)
            continue
        count = turn.model.new_int_var(0, copies, "kept")
        turn.model.add(count <= fixed + sum(chosen[key]))
        terms.append(count)
    return sum(terms)


def _trio_grown_into(
    turn: turn_model.TurnModel, index: int, before: Meld, after: Meld
) -> list[Requirement] | None:
    """The trio ``before`` grown into ``after``: every card of its rank laid or not."""
    added = Counter(tc.card for tc in after) - Counter(tc.card for tc in before)
    if Counter(tc.card for tc in before) - Counter(tc.card for tc in after):
        return None  # a card of the trio is gone (C5)
    copies: dict[Card, list[tuple[int, cp_model.IntVar]]] = {}
    for (meld, card, copy), literal in turn.trio_adds.items():
        if meld == index:
            copies.setdefault(card, []).append((copy, literal))
    if any(card not in copies or count > len(copies[card]) for card, count in added.items()):
        return None
    return [
        (literal, copy < added[card])
        for card, literals in copies.items()
        for copy, literal in literals
    ]


def _sequence_grown_into(
    turn: turn_model.TurnModel, index: int, after: Meld
) -> list[Requirement] | None:
    """The sequence ``index`` grown into ``after``: each joker place replaced or not, each
    new place filled by a natural or a joker, the places past ``after``'s ends left empty."""
    previous = turn.data.readings[index]
    reading = read_continuation(previous, after)
    if reading is None or reading.kind is not MeldKind.SEQUENCE:
        return None
    wild_after = dict(zip(reading.positions, reading.wild, strict=True))
    out: list[Requirement] = []
    for position, wild in zip(previous.positions, previous.wild, strict=True):
        if position not in wild_after or (not wild and wild_after[position]):
            return None  # a natural card left its place (C5)
        replaced = turn.replaced.get((index, position))
        if wild and not wild_after[position]:
            if replaced is None:
                return None
            out.append((replaced, True))
        elif replaced is not None:
            out.append((replaced, False))
    for position, wild in wild_after.items():
        if position in previous.positions:
            continue
        places = turn.end_jokers if wild else turn.end_naturals
        literal = places.get((index, position))
        if literal is None:
            return None
        out.append((literal, True))
    for position in (reading.positions[0] - 1, reading.positions[-1] + 1):
        if LOW_ACE <= position <= HIGH_ACE:
            for places in (turn.end_naturals, turn.end_jokers):
                if (literal := places.get((index, position))) is not None:
                    out.append((literal, False))
    return out


def _grown_into(
    turn: turn_model.TurnModel, position: Position, index: int, key: MeldKey, after: Meld
) -> list[Requirement] | None:
    """The decisions that make meld ``index`` of the table exactly ``after`` (a lay-off, or
    nothing laid); None when no lay-off can (C5). They fix every decision of the meld, so a
    meld becomes at most one proposed meld."""
    reading = turn.data.readings[index]
    before = position.table[index]
    if reading.kind is MeldKind.GROUP:
        continued = read_continuation(reading, after)
        if continued is None:
            return None
        required = _trio_grown_into(turn, index, before, after)
        grown = continued.normalized(after)
    else:
        required = _sequence_grown_into(turn, index, after)
        continued = read_continuation(reading, after)
        grown = continued.normalized(after) if continued is not None else after
    if required is None or meld_key(grown) != key:
        return None  # the proposal reads the meld otherwise than a lay-off would
    return required


def _kept_after_opening(
    turn: turn_model.TurnModel, position: Position, proposed: dict[MeldKey, tuple[int, Meld]]
) -> cp_model.LinearExprT:
    """Key 2 after opening: a proposed meld is a meld of the table grown exactly so (or left
    as it was)."""
    model = turn.model
    terms: list[cp_model.LinearExprT] = []
    for key, (copies, meld) in proposed.items():
        matches: list[cp_model.IntVar] = []
        for index in range(len(position.table)):
            required = _grown_into(turn, position, index, key, meld)
            if required is None:
                continue
            match = model.new_bool_var("kept")
            for literal, value in required:
                model.add_implication(match, literal if value else literal.Not())
            matches.append(match)
        if matches:
            count = model.new_int_var(0, copies, "kept")
            model.add(count <= sum(matches))
            terms.append(count)
    return sum(terms)


def _spent(turn: turn_model.TurnModel) -> tuple[list[cp_model.LinearExprT], list[int]]:
    """The cards leaving the hand (laid or discarded) with their points (C7): the points
    left are the hand's total less their sum."""
    data = turn.data
    uses = [(times, literal, card) for card, used in turn.used.items() for times, literal in used]
    return [literal for _t, literal, _c in uses], [
        data.ruleset.points(card) * times for times, _l, card in uses
    ]


def _set_objective(
    turn: turn_model.TurnModel,
    proposal: Move,
    laid: cp_model.LinearExprT,
    kept: cp_model.LinearExprT,
) -> None:
    """The keys as one sum to maximise, each unit of a key outweighing the whole range of
    the keys after it: points left 0..total, the discard 0/1, melds changed 0..melds."""
    data = turn.data
    total = data.ruleset.hand_points(data.hand.elements())
    discard_weight = total + 1
    changed_weight = 2 * discard_weight
    kept_weight = changed_weight * (len(data.table) + 1)
    laid_weight = kept_weight * (len(proposal.table) + 1)
    terms: list[cp_model.LinearExprT] = [laid, kept]
    weights = [laid_weight, kept_weight]
    for changed in turn.meld_changed.values():
        terms.append(changed)
        weights.append(-changed_weight)
    if proposal.discard is not None and proposal.discard in turn.discards:
        terms.append(turn.discards[proposal.discard])
        weights.append(discard_weight)
    spent, points = _spent(turn)  # fewer points left: more points spent
    turn.model.maximize(cp_model.LinearExpr.weighted_sum(terms + spent, weights + points))


# --- the search ---------------------------------------------------------------------------------


def suggest_contract_move(
    position: Position, proposal: Move, time_limit_ms: int = DEFAULT_TIME_LIMIT_MS
) -> ContractSuggestion:
    """The legal carioca turn nearest ``proposal`` by the keys, or none with the reason."""
    started = time.perf_counter()
    wanted = proposal_hand_cards(position, proposal)
    if position.turn.cards_drawn > 1:
        return ContractSuggestion(
            None,
            f"{position.turn.cards_drawn} cards drawn: no turn of this position is legal (C6), "
            "so none is suggested.",
            True,
        )
    if not wanted:
        return ContractSuggestion(
            None, "The proposal lays no hand card, so no play is near it.", True
        )
    turn = turn_model.build(turn_data(position), objective=False)
    laid = _laid(turn, wanted)
    proposed = _proposed(proposal)
    if position.turn.has_opened:
        kept = _kept_after_opening(turn, position, proposed)
    else:
        kept = _kept_before_opening(turn, position, proposed)
    _set_objective(turn, proposal, laid, kept)
    remaining = time_limit_ms / 1000 - (time.perf_counter() - started)
    solver = new_solver(remaining)
    status = solver.solve(turn.model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        proved = status == cp_model.INFEASIBLE
        return ContractSuggestion(None, _none_note(position, wanted, proved), proved)
    solved = checked_move(position, turn, solver)
    kept_indices, marks = kept_melds(proposal, solved.move.table)
    same = Counter(solved.verdict.played) == wanted
    note = _found_note(solved, wanted, same, len(kept_indices), len(proposal.table))
    found = ContractSuggestedMove(solved, kept_indices, marks, same)
    return ContractSuggestion(found, note, status == cp_model.OPTIMAL)


def _cards(cards: Counter[Card]) -> str:
    return " ".join(card.code for card in sorted(cards.elements(), key=sort_key))


def _none_note(position: Position, wanted: Counter[Card], proved: bool) -> str:
    cards = _cards(wanted)
    if not proved:
        return (
            f"No legal play with the proposal's hand cards ({cards}) was found in the time given."
        )
    if position.turn.has_opened:
        return (
            f"No legal play lays any of the proposal's hand cards ({cards}): none of them "
            "goes onto a meld of the table, and a card must be left to discard (C5, C6)."
        )
    contract = position.ruleset.contract.for_deal(position.turn.deal_number)
    shape = f"deal {position.turn.deal_number}'s contract"
    if contract is not None:
        parts = [f"{contract.trios} trio(s)"] if contract.trios else []
        parts += [f"{contract.sequences} sequence(s)"] if contract.sequences else []
        shape += f" ({' and '.join(parts)})"
    return (
        f"No legal play lays any of the proposal's hand cards ({cards}): they do not make "
        f"{shape} by themselves with a card left to discard (C2-C4, C6)."
    )


def _found_note(
    solved: ContractSolvedMove, wanted: Counter[Card], same: bool, kept: int, melds: int
) -> str:
    laid = len(solved.verdict.played)
    if same:
        cards = f"the proposal's {laid} hand card{'s' if laid != 1 else ''}"
    else:
        cards = f"{laid} of the proposal's {sum(wanted.values())} hand cards (none lays all)"
    discard = solved.move.discard.code if solved.move.discard is not None else "-"
    return (
        f"The nearest legal turn lays {cards}, keeps {kept} of its {melds} "
        f"meld{'s' if melds != 1 else ''} and discards {discard}."
    )
