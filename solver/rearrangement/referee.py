"""ValidateMove for the rearrangement family: is this move legal, and every reason why not.

A move is the whole table after the play (plus ``to_hand`` and ``knock``). The checks are
layered like a referee's, and all of them run, so that every violation is reported:

1. conservation (R6, R5's ``to_hand``): counts of card codes (``solver.rummy.conservation``);
2. the melds after the play (R2-R4, R6): each classified; an invalid one is INVALID_MELD;
3. for each reading of the ambiguous melds: the wild accounting (R5, R7's joker rule,
   ``solver.rearrangement.wilds``), vatikan's first meld (R7) and rummikub's opening value (R8);
4. the table as a whole: net new melds (R6), a hand card whenever anything changed (R6),
   draws (R8), rummikub's untouched table before opening (R8), the knock (R10);
5. shangai and manipulation's "play if able" and "maximal add" (R8), which ask a search.

Ambiguous melds (SPEC §2) are resolved only by the rules: when exactly one way of reading
them passes step 3, it is used; when several pass with different wild values, the move is
reported AMBIGUOUS_MELD; when none passes, AMBIGUOUS_MELD is reported with the violations
of the reading that breaks the fewest rules (docs/rules.md). A mexe-mexe meld is read with
its most naturals; only when no such reading is legal are its readings with fewer naturals
(``MeldClassification.fallbacks``) tried the same way.

``judge_move`` is pure and deterministic: the solver re-checks its moves with it and
the brute-force reference filters candidate tables with it. Step 5's search is handed in
(``max_placed``), so the referee never imports the search that imports it;
``search.validate_move`` wires the default.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from solver.core.cards import Card, TableCard, WildValue, sort_key
from solver.core.rulesets import Ruleset
from solver.core.violations import Violation, ViolationCode
from solver.rearrangement.turns import (
    PlacedOracle,
    draw_violations,
    first_meld_violations,
    knock_eligible,
    knock_violations,
    opening_value_violations,
    opening_violations,
    pass_draw_violations,
    search_violations,
)
from solver.rearrangement.wilds import AfterMeld, account_wilds, meld_text
from solver.rummy.conservation import CardFlow, conservation_violations, count_flow, table_readings
from solver.rummy.melds import (
    MeldClassification,
    MeldKind,
    Reading,
    ambiguity_reason,
    cited_rule,
    classify_all,
    normalized_meld,
    ordinal,
    repair_hint,
)
from solver.rummy.position import Meld, Move, Position
from solver.rummy.table_change import TableChange, meld_key, table_change

# Readings of the ambiguous melds tried together; beyond this the move is just ambiguous.
MAX_READING_COMBINATIONS = 64


@dataclass(frozen=True)
class Verdict:
    """The answer to ValidateMove: legal or not, every violation, and the play's effects."""

    legal: bool
    violations: tuple[Violation, ...]
    played: tuple[Card, ...]  # hand cards laid on the table
    hand_after: tuple[Card, ...]  # hand - played + to_hand
    hand_points_after: int
    went_out: bool  # the play emptied the hand (R9)
    knock_eligible: bool  # the move is legal and the hand it leaves allows a knock (R10)
    table: tuple[Meld, ...]  # the move's table, every wild's value written out

    @property
    def codes(self) -> tuple[ViolationCode, ...]:
        return tuple(v.code for v in self.violations)


@dataclass(frozen=True)
class _TableReading:
    """One way of reading every meld of the move, and what the reading-bound rules say."""

    readings: tuple[Reading | None, ...]
    violations: tuple[Violation, ...]
    table: tuple[Meld, ...]


def judge_move(
    position: Position,
    move: Move,
    *,
    max_placed: PlacedOracle | None,
    search_rules: bool = True,
) -> Verdict:
    """Judge ``move`` in ``position`` (R1-R10); never raises for an illegal move.

    ``max_placed(position, max_new_melds=k)`` answers shangai and manipulation's search
    questions (R8); only a ruleset without them, or ``search_rules=False``, may leave it
    None. With ``search_rules=False`` those two rules (MUST_PLAY, ADD_NOT_MAXIMAL) are not
    checked, which is what a search that calls this function to filter its own candidates
    needs.
    """
    ruleset = position.ruleset
    flow = count_flow(position, move)
    violations = conservation_violations(position, move, flow)

    verdicts = classify_all(ruleset, move.table)
    violations.extend(_invalid_melds(position.ruleset, verdicts))
    change = table_change(ruleset, position.table, move.table)
    played_count = flow.played_count
    chosen, ambiguous = _read_table(position, move, flow, verdicts, change, played_count)
    violations.extend(ambiguous)
    violations.extend(chosen.violations)

    net = len(move.table) - len(position.table)
    laid_any = flow.laid_any
    # A swap takes nothing back; most moves send nothing back at all.
    taken_back = bool(move.to_hand) and bool(Counter(move.to_hand) - flow.swapped)
    is_pass = not change.changed and not laid_any and not taken_back
    violations.extend(_play_violations(position, move, change, net, laid_any))
    if is_pass:
        violations.extend(pass_draw_violations(position))
    else:
        violations.extend(draw_violations(position))
        violations.extend(opening_violations(position, change))
    if search_rules and (
        ruleset.rearrangement.must_play_if_able or ruleset.rearrangement.add_must_be_maximal
    ):
        is_add = not is_pass and net <= 0 and played_count > 0
        violations.extend(_search_rule_violations(position, flow, is_pass, is_add, max_placed))

    played = flow.played_cards
    hand_cards = _hand_after(position, move, flow)
    points = ruleset.hand_points(hand_cards)
    violations.extend(knock_violations(ruleset, move.knock, played_count, points))
    legal = not violations
    return Verdict(
        legal=legal,
        violations=tuple(violations),
        played=played,
        hand_after=hand_cards,
        hand_points_after=points,
        went_out=played_count > 0 and not hand_cards,
        knock_eligible=legal and knock_eligible(ruleset, played_count, points),
        table=_as_read(move, chosen.table, ambiguous),
    )


def _search_rule_violations(
    position: Position,
    flow: CardFlow,
    is_pass: bool,
    is_add: bool,
    max_placed: PlacedOracle | None,
) -> list[Violation]:
    """R8's questions that need a search (shangai, manipulation): a pass while a play
    exists, an add that places fewer cards than the largest add."""
    if max_placed is None:
        raise ValueError(
            f"{position.ruleset.name}'s R8 asks how many cards a play can place: judge_move "
            "needs max_placed (search.validate_move supplies max_cards_placed)"
        )
    return search_violations(position, is_pass, is_add, flow.played_cards, max_placed)


def _hand_after(position: Position, move: Move, flow: CardFlow) -> tuple[Card, ...]:
    """The hand after the play, in card order: less what it laid, plus what it took back."""
    hand_after = Counter(position.hand)
    hand_after.subtract(flow.from_hand)
    hand_after.update(move.to_hand)
    # elements() skips the codes the play emptied (count 0): no `+hand_after` copy.
    return tuple(sorted(hand_after.elements(), key=sort_key))


def _as_read(
    move: Move, table: tuple[Meld, ...], ambiguous: Sequence[Violation]
) -> tuple[Meld, ...]:
    """The table with its wilds' values written out, except in the melds reported ambiguous:
    those stay as the move wrote them, no reading guessed (SPEC §2)."""
    if not ambiguous:
        return table
    unread = {v.meld for v in ambiguous}
    return tuple(
        given if j in unread else read
        for j, (given, read) in enumerate(zip(move.table, table, strict=True))
    )


def _invalid_melds(ruleset: Ruleset, verdicts: Sequence[MeldClassification]) -> list[Violation]:
    """Every meld of the move that is no meld, with what would fix it when that is obvious;
    the ruling is the one its reason cites (R2 sequences, R3 groups, R4 wilds)."""
    out: list[Violation] = []
    if all(len(verdict.readings) == 1 for verdict in verdicts):
        return out  # every meld read one way (the usual move): no property read per meld
    for j, verdict in enumerate(verdicts):
        if not verdict.ok and not verdict.ambiguous:
            hint = repair_hint(ruleset, verdict.cards)
            out.append(
                Violation(
                    ViolationCode.INVALID_MELD,
                    f"The {ordinal(j + 1)} meld is not valid: {verdict.reason}"
                    + (f"; {hint}" if hint else ""),
                    cited_rule(verdict.reason, "R6"),
                    j,
                    tuple(tc.code for tc in verdict.cards),
                )
            )
    return out


def _play_violations(
    position: Position, move: Move, change: TableChange, net: int, laid_any: bool
) -> list[Violation]:
    """R6: at most ``max_new_melds`` net new melds; a changed table needs a hand card."""
    ruleset = position.ruleset
    out: list[Violation] = []
    limit = ruleset.rearrangement.max_new_melds
    if limit is not None and net > limit:
        new = [move.table[j] for j in _new_melds(position, move, change, net)]
        named = "; ".join(meld_text(meld) for meld in new)
        out.append(
            Violation(
                ViolationCode.TOO_MANY_NEW_MELDS,
                f"The play makes {net} new melds ({len(position.table) + net} on the table "
                f"after, {len(position.table)} before; new: {named}); at most "
                f"{limit} new meld{'s' if limit != 1 else ''} per turn (R6)",
                "R6",
                cards=tuple(tc.code for meld in new for tc in meld),
            )
        )
    if change.changed and not laid_any:
        out.append(
            Violation(
                ViolationCode.NO_HAND_CARD_PLAYED,
                "The table was rearranged but no card from the hand was added; a "
                "rearrangement must lay at least one hand card (R6)",
                "R6",
            )
        )
    return out


def _new_melds(position: Position, move: Move, change: TableChange, net: int) -> list[int]:
    """The melds a player reads as new: those of the move holding no card of the table's
    changed melds (an extended 7-8-9-10 is the old 7-8-9, not a new meld). Where a
    rearrangement makes fewer such melds than its net gain, every meld not on the table
    before is named instead."""
    unkept = Counter(change.kept)
    loose: Counter[Card] = Counter()
    for meld in position.table:
        key = meld_key(position.ruleset, meld)
        if unkept[key] > 0:
            unkept[key] -= 1
        else:
            loose.update(tc.card for tc in meld)
    brand_new = [j for j in change.new if not any(loose[tc.card] for tc in move.table[j])]
    return brand_new if len(brand_new) >= net else list(change.new)


def _read_table(
    position: Position,
    move: Move,
    flow: CardFlow,
    verdicts: Sequence[MeldClassification],
    change: TableChange,
    played_count: int,
) -> tuple[_TableReading, list[Violation]]:
    """Choose a reading of the move's melds (see the module docstring) and judge it."""

    def judge(readings: tuple[Reading | None, ...]) -> _TableReading:
        return _judge(position, move, flow, readings, change, played_count)

    chosen, differing = _read_with(judge, verdicts, fallbacks=False)
    if chosen.violations and any(v.fallbacks for v in verdicts):
        # A mexe-mexe meld whose preferred reading breaks a rule may be meant another way:
        # 2H 3H 2S as a group of 3s where the table's 2S must keep standing for a 3 (R5).
        # The readings with fewer naturals are tried then, and used if they make it legal.
        again, also = _read_with(judge, verdicts, fallbacks=True)
        if not again.violations:
            return again, also
    return chosen, differing


def _read_with(
    judge: Callable[[tuple[Reading | None, ...]], _TableReading],
    verdicts: Sequence[MeldClassification],
    *,
    fallbacks: bool,
) -> tuple[_TableReading, list[Violation]]:
    options: list[tuple[Reading | None, ...]] = [
        (verdict.readings + verdict.fallbacks if fallbacks else verdict.readings) or (None,)
        for verdict in verdicts
    ]
    ambiguous = [j for j, options_j in enumerate(options) if len(options_j) > 1]
    combinations = 1
    for j in ambiguous:
        combinations *= len(options[j])
    if combinations > MAX_READING_COMBINATIONS:
        first = tuple(o[0] for o in options)
        return judge(first), _ambiguity(verdicts, ambiguous, options)
    combos = list(itertools.product(*options))
    judged = [judge(combo) for combo in combos]
    # Among the legal readings, those with the fewest fallbacks (R4: a 2 is natural where
    # it can be); only where those differ is a meld ambiguous.
    # Only the fallback pass can use a fallback: the first pass (the solver's re-check of
    # every move) counts none.
    used = (
        [
            sum(r is not None and r not in v.readings for r, v in zip(c, verdicts, strict=True))
            for c in combos
        ]
        if fallbacks
        else [0] * len(combos)
    )
    legal = [(n, t) for n, t in zip(used, judged, strict=True) if not t.violations]
    if not legal:
        best = min(judged, key=lambda t: len(t.violations))
        return best, _ambiguity(verdicts, ambiguous, options)
    fewest = min(n for n, _ in legal)
    kept = [t for n, t in legal if n == fewest]
    chosen = kept[0]
    differing = [j for j in ambiguous if any(t.table[j] != chosen.table[j] for t in kept)]
    return chosen, _ambiguity(verdicts, differing, options)


def _ambiguity(
    verdicts: Sequence[MeldClassification],
    melds: Sequence[int],
    options: Sequence[tuple[Reading | None, ...]],
) -> list[Violation]:
    return [
        Violation(
            ViolationCode.AMBIGUOUS_MELD,
            f"The {ordinal(j + 1)} meld: "
            + (
                verdicts[j].reason
                or ambiguity_reason(verdicts[j].cards, [r for r in options[j] if r is not None])
            ),
            "R4",
            j,
            tuple(tc.code for tc in verdicts[j].cards),
        )
        for j in melds
    ]


def _judge(
    position: Position,
    move: Move,
    flow: CardFlow,
    readings: tuple[Reading | None, ...],
    change: TableChange,
    played_count: int,
) -> _TableReading:
    """The rules that depend on how the move's melds are read (R5, R7, R8's opening)."""
    violations: list[Violation] = []
    carried_values: dict[tuple[int, int], WildValue] = {}
    if flow.wild_before:  # else no wild to account for (R5), and no meld to wrap for it
        after = [AfterMeld(meld, r) for meld, r in zip(move.table, readings, strict=True)]
        outcome = account_wilds(position, after, flow)
        violations.extend(outcome.violations)
        carried_values = outcome.values
    if _first_meld_rule_applies(position):  # vatikan's rule alone reads the groups before
        before_groups = sum(1 for r in table_readings(position) if r.kind is MeldKind.GROUP)
        violations.extend(
            first_meld_violations(position, move.table, readings, before_groups, change)
        )
    violations.extend(
        opening_value_violations(position, move.table, readings, change, played_count)
    )
    ruleset = position.ruleset
    table = [
        meld if reading is None else normalized_meld(ruleset, meld, reading)
        for meld, reading in zip(move.table, readings, strict=True)
    ]
    # A wild carried into a group keeps the suit it stood for (R4): written where it is.
    for (j, k), carried in carried_values.items():
        if readings[j] is not None:
            normal = list(table[j])
            normal[k] = TableCard(normal[k].card, carried)
            table[j] = tuple(normal)
    return _TableReading(readings, tuple(violations), tuple(table))


def _first_meld_rule_applies(position: Position) -> bool:
    """Whether R7's first meld rule (``first_meld_violations``) can object to this turn."""
    rules = position.ruleset.rearrangement
    return rules.first_meld_sequence and not position.turn.has_melded_sequence
