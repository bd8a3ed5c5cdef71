"""The carioca referee (C2-C6): is a move legal, every violation, and the play's effects.

A move is the whole table after the play plus the discard. Each meld of the position is
continued by one meld of the move (a lay-off, C5, or nothing): meld ``i`` by meld ``i``
where it can be, else by the meld that holds its cards (``_match_melds``); the move's other
melds are new (the opening's contract melds, C2-C4). Every rule is a small check that adds
violations; the verdict lists them all (SPEC §4).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from solver.contract.melds import (
    check_opening_meld,
    classify_table_meld,
    describe,
    read_continuation,
)
from solver.core.cards import JOKER_CARD, Card, TableCard, sort_key
from solver.core.rulesets import Contract
from solver.core.violations import Violation, ViolationCode
from solver.rummy.melds import MeldKind, Reading, card_text
from solver.rummy.position import Meld, Move, Position

Code = ViolationCode


@dataclass(frozen=True)
class ContractVerdict:
    """The answer to ValidateMove for a contract game."""

    legal: bool
    violations: tuple[Violation, ...]
    played: tuple[Card, ...]  # hand cards laid on the table (the discard is not among them)
    hand_after: tuple[Card, ...]  # the hand after the play and the discard
    hand_points_after: int
    went_out: bool  # the discard emptied the hand (C6)
    table: tuple[Meld, ...]  # the move's table, every joker's value written out
    knock_eligible: bool = False  # carioca has no knock

    @property
    def codes(self) -> tuple[ViolationCode, ...]:
        return tuple(v.code for v in self.violations)


def _texts(cards: Iterable[Card]) -> str:
    return " ".join(card_text(c) for c in sorted(cards, key=sort_key))


def _codes(cards: Iterable[Card]) -> tuple[str, ...]:
    return tuple(c.code for c in sorted(cards, key=sort_key))


def _meld_text(meld: Sequence[TableCard]) -> str:
    return " ".join(card_text(tc.card) for tc in meld)


def _naturals(meld: Sequence[TableCard]) -> Counter[Card]:
    return Counter(tc.card for tc in meld if not tc.card.is_joker)


def _jokers(meld: Sequence[TableCard]) -> int:
    return sum(1 for tc in meld if tc.card.is_joker)


def _contract_text(contract: Contract) -> str:
    parts = []
    if contract.trios:
        parts.append(f"{contract.trios} trio{'s' if contract.trios > 1 else ''}")
    if contract.sequences:
        parts.append(f"{contract.sequences} sequence{'s' if contract.sequences > 1 else ''}")
    return " and ".join(parts) + f" ({contract.cards} cards)"


# --- lay-offs onto the melds already on the table (C4, C5) ----------------------------------


@dataclass(frozen=True)
class _Continuation:
    """Meld ``index`` of the move judged as the continuation of the position's meld."""

    violations: tuple[Violation, ...]
    table: Meld  # as written out
    changed: bool  # the player laid cards on it or moved its jokers
    jokers_left: int  # jokers that had to leave their place and are not in this meld


def _joker_moves(before: Reading, after: Reading) -> tuple[int, int]:
    """(jokers moved without a natural taking their place, jokers that left the meld)."""
    if before.kind is MeldKind.GROUP:
        gone = max(0, sum(before.wild) - sum(after.wild))
        return 0, gone
    old = {p for p, wild in zip(before.positions, before.wild, strict=True) if wild}
    new_wild = dict(zip(after.positions, after.wild, strict=True))
    unreleased = sum(1 for p in old if p not in new_wild)
    released = sum(1 for p in old if p in new_wild and not new_wild[p])
    arrived = sum(1 for p, wild in new_wild.items() if wild and p not in old)
    return unreleased, max(0, unreleased + released - arrived)


def _continuation(
    position: Position, old: int, index: int, after: Meld, jokers_lost_from_table: bool
) -> _Continuation:
    """Meld ``index`` of the move judged as the continuation of the position's meld ``old``."""
    before = position.table[old]
    previous = position.readings[old].reading
    out: list[Violation] = []
    lost = _naturals(before) - _naturals(after)
    if lost:
        out.append(
            Violation(
                Code.TABLE_CARD_REMOVED,
                f"{_texts(lost.elements())} left the meld {_meld_text(before)}: after the "
                "opening a play only lays cards off onto the melds (C5)",
                "C5",
                index,
                _codes(lost.elements()),
            )
        )
    reading = read_continuation(previous, after)
    changed = Counter(tc.card for tc in before) != Counter(tc.card for tc in after)
    if reading is None:
        verdict = classify_table_meld(position.ruleset, after)
        why = verdict.reason if not verdict.ok else f"it is no longer {describe(previous)}"
        out.append(
            Violation(
                Code.INVALID_MELD,
                f"{_meld_text(after)} cannot continue {describe(previous)}: {why} (C5)",
                "C5",
                index,
                tuple(tc.code for tc in after),
            )
        )
        return _Continuation(tuple(out), after, True, 0)
    unreleased, left = _joker_moves(previous, reading)
    changed = changed or reading.values != previous.values
    if unreleased:
        out.append(
            Violation(
                Code.WILD_MOVED,
                f"a joker of {describe(previous)} moved although no natural card took its "
                "place: a joker moves only when a natural card replaces it (C5)",
                "C5",
                index,
                ("JK",),
            )
        )
    elif left and not jokers_lost_from_table:
        where = (
            "jokers in a trio stay where they are"
            if previous.kind is MeldKind.GROUP
            else "a replaced joker moves to a free end of the same sequence"
        )
        out.append(
            Violation(
                Code.WILD_MOVED,
                f"a joker left {describe(previous)}: {where}, never to another meld (C5)",
                "C5",
                index,
                ("JK",),
            )
        )
    return _Continuation(tuple(out), reading.normalized(after), changed, left)


def _cards_added(before: Meld, after: Meld) -> Counter[Card]:
    """The cards a meld gained (a joker's written value aside)."""
    return Counter(tc.card for tc in after) - Counter(tc.card for tc in before)


def _not_opened(index: int, before: Meld, after: Meld) -> Violation:
    added = _cards_added(before, after)
    return Violation(
        Code.NOT_OPENED,
        f"{_texts(added.elements())} laid onto {_meld_text(before)} before opening: until the "
        "whole contract is down a player adds to nobody's melds (C4)",
        "C4",
        index,
        _codes(added.elements()),
    )


# --- the opening (C2-C4) ---------------------------------------------------------------------


def _opening(
    position: Position, move: Move, new_indices: Sequence[int]
) -> tuple[list[Violation], dict[int, Meld]]:
    """The new melds of a player who has not opened: exactly the deal's contract (C2-C4)."""
    rules = position.ruleset.contract
    contract = rules.for_deal(position.turn.deal_number)
    out: list[Violation] = []
    table: dict[int, Meld] = {}
    kinds: Counter[MeldKind] = Counter()
    new = [move.table[index] for index in new_indices]
    for index, meld in zip(new_indices, new, strict=True):
        check = check_opening_meld(position.ruleset, rules, meld)
        table[index] = check.reading.normalized(meld) if check.reading else meld
        if check.reading is not None:
            kinds[check.reading.kind] += 1
        if check.shape_ok:
            continue
        codes = tuple(tc.code for tc in meld)
        if check.reading is not None and not check.reason:
            size = rules.opening_trio_size
            if check.reading.kind is MeldKind.SEQUENCE:
                size = rules.opening_sequence_size
            shape = "trio" if check.reading.kind is MeldKind.GROUP else "sequence"
            out.append(
                Violation(
                    Code.CONTRACT_NOT_MET,
                    f"{_meld_text(meld)} has {len(meld)} cards: no extra card may be laid in "
                    "the opening turn, only the contract's melds (C4)",
                    "C4",
                    index,
                    codes,
                )
            )
            out.append(
                Violation(
                    Code.INVALID_MELD,
                    f"{_meld_text(meld)} is no opening {shape}: an opening {shape} has exactly "
                    f"{size} cards (C3)",
                    "C3",
                    index,
                    codes,
                )
            )
        else:
            out.append(Violation(Code.INVALID_MELD, check.reason, "C3", index, codes))
    if new and contract is not None and not _meets(contract, len(new), kinds):
        laid = ", ".join(_meld_text(m) for m in new)
        out.append(
            Violation(
                Code.CONTRACT_NOT_MET,
                f"deal {contract.deal}'s contract is {_contract_text(contract)}, laid whole "
                f"in one play and nothing else; this play lays {laid} (C2, C4)",
                "C4",
                -1,
                tuple(tc.code for m in new for tc in m),
            )
        )
    return out, table


def _meets(contract: Contract, melds: int, kinds: Counter[MeldKind]) -> bool:
    """Right number of melds, and no more trios or sequences than the contract asks. A meld
    that is no meld at all has its own INVALID_MELD; it is not counted against a kind."""
    return (
        melds == contract.trios + contract.sequences
        and kinds[MeldKind.GROUP] <= contract.trios
        and kinds[MeldKind.SEQUENCE] <= contract.sequences
    )


# --- the whole move ----------------------------------------------------------------------------


def _turn_violations(position: Position, move: Move) -> list[Violation]:
    out: list[Violation] = []
    if position.turn.cards_drawn > 1:
        out.append(
            Violation(
                Code.DRAW_RULE,
                f"{position.turn.cards_drawn} cards drawn: a carioca turn draws exactly one "
                "card, from the stock or the top of the discard pile (C6)",
                "C6",
            )
        )
    if move.knock:
        out.append(
            Violation(
                Code.KNOCK_NOT_ALLOWED,
                "carioca has no knock: a deal ends only by the discard that empties the "
                "hand (C6; the knock is carrossel's, R10)",
                "C6",
            )
        )
    naturals_back = [c for c in move.to_hand if not c.is_joker]
    if naturals_back:
        out.append(
            Violation(
                Code.TABLE_CARD_REMOVED,
                f"{_texts(naturals_back)} cannot go back to the hand: cards on the table "
                "stay there (C5)",
                "C5",
                -1,
                _codes(naturals_back),
            )
        )
    return out


def _laid_cards(position: Position, move: Move) -> tuple[Counter[Card], Counter[Card]]:
    """(cards the move adds to the table, cards missing from it) as multisets."""
    before = position.table_cards()
    after = move.table_cards()
    return after - before, before - after


def _discard_violations(move: Move, hand_after_play: Counter[Card]) -> list[Violation]:
    if move.discard is None:
        return [
            Violation(
                Code.DISCARD_RULE,
                "every carioca turn ends with a discard: name the card (C6)",
                "C6",
            )
        ]
    if not hand_after_play:
        return [
            Violation(
                Code.DISCARD_RULE,
                f"the play lays every card, so {card_text(move.discard)} cannot be "
                "discarded: keep one card for the obligatory discard (C4, C6)",
                "C6",
                -1,
                (move.discard.code,),
            )
        ]
    if hand_after_play[move.discard] == 0:
        return [
            Violation(
                Code.DISCARD_RULE,
                f"{card_text(move.discard)} is not in the hand after the play, so it cannot "
                "be discarded (C6)",
                "C6",
                -1,
                (move.discard.code,),
            )
        ]
    return []


def _continues(position: Position, old: int, after: Meld) -> bool:
    """Does ``after`` hold meld ``old``'s natural cards and read as its continuation?"""
    if _naturals(position.table[old]) - _naturals(after):
        return False
    return read_continuation(position.readings[old].reading, after) is not None


Judge = Callable[[int, int], _Continuation]  # (position meld, move meld) -> its judgement


def _in_place(position: Position, move: Move, judge: Judge) -> bool:
    """Does meld i of the move continue meld i of the position, for every i, faultlessly?"""
    if len(move.table) < len(position.table):
        return False
    for old, before in enumerate(position.table):
        after = move.table[old]
        if after == before:
            continue
        if not _continues(position, old, after) or judge(old, old).violations:
            return False
    return True


MATCH_SEARCH_NODES = 2_000  # bounds the matching search (tables hold at most 60 melds)
UNMATCHED_COST = 1_000  # a meld of the position that no meld of the move continues


def _match_melds(position: Position, move: Move, judge: Judge) -> dict[int, int]:
    """Which meld of the move continues each meld of the position (position index -> move
    index), so that the move may list its melds in any order.

    A move meld continues a position meld when it holds its natural cards and reads as its
    continuation. Among the ways to pair them (two decks make look-alike melds), the pairing
    with the fewest violations wins, meld i with meld i first on a tie. A meld continued by
    none is paired, for its report, with the unpaired move meld sharing most of its cards.
    """
    count = len(position.table)
    if _in_place(position, move, judge):
        return {old: old for old in range(count)}  # the usual move: nothing better exists
    options: list[list[tuple[int, int]]] = []  # per position meld: (violations, move index)
    for old in range(count):
        found = []
        for index, after in enumerate(move.table):
            if _continues(position, old, after):
                found.append((len(judge(old, index).violations), index))
        found.sort(key=lambda option: (option[0], option[1] != old, option[1]))
        options.append(found)
    best: tuple[int, dict[int, int]] = (UNMATCHED_COST * (count + 1), {})
    nodes = 0

    def search(old: int, used: set[int], total: int, chosen: dict[int, int]) -> None:
        nonlocal best, nodes
        nodes += 1
        if total >= best[0] or nodes > MATCH_SEARCH_NODES:
            return
        if old == count:
            best = (total, dict(chosen))
            return
        for violations, index in options[old]:
            if index not in used:
                chosen[old] = index
                search(old + 1, used | {index}, total + violations, chosen)
                del chosen[old]
        search(old + 1, used, total + UNMATCHED_COST, chosen)

    search(0, set(), 0, {})
    pairs = best[1]
    free = set(range(len(move.table))) - set(pairs.values())
    for old in range(count):
        if old in pairs or not free:
            continue
        naturals = _naturals(position.table[old])
        shared = {j: sum((naturals & _naturals(move.table[j])).values()) for j in free}
        index = old if old in free and shared[old] else max(sorted(free), key=shared.__getitem__)
        if shared[index]:
            pairs[old] = index
            free.discard(index)
    return pairs


def _missing_meld(before: Meld) -> Violation:
    return Violation(
        Code.TABLE_CARD_REMOVED,
        f"the meld {_meld_text(before)} is missing from the table after the play: melds stay "
        "on the table and only grow (C5)",
        "C5",
        -1,
        tuple(tc.code for tc in before),
    )


def validate_contract_move(position: Position, move: Move) -> ContractVerdict:
    """Judge a carioca move (C2-C6): every violation, and the effects of the play."""
    laid, removed = _laid_cards(position, move)
    jokers_lost = removed[JOKER_CARD] > 0 or JOKER_CARD in move.to_hand
    violations = _turn_violations(position, move)
    if jokers_lost:
        violations.append(_joker_to_hand())
    table_violations, table = _judge_table(position, move, jokers_lost)
    violations.extend(table_violations)
    hand = Counter(position.hand)
    if missing := laid - hand:
        violations.append(_not_in_hand(missing))
    played = laid & hand
    hand_after_play = hand - played
    violations.extend(_discard_violations(move, hand_after_play))
    hand_after = _after_discard(hand_after_play, move.discard)
    legal = not violations
    return ContractVerdict(
        legal=legal,
        violations=tuple(violations),
        played=tuple(sorted(played.elements(), key=sort_key)),
        hand_after=hand_after,
        hand_points_after=position.ruleset.hand_points(hand_after),
        went_out=legal and not hand_after,
        table=table,
    )


def _judge_table(
    position: Position, move: Move, jokers_lost: bool
) -> tuple[list[Violation], tuple[Meld, ...]]:
    """The violations of the table after the play, and that table written out: each meld of
    the position continued (C4, C5), the rest new (the opening, C2-C4; none after it, C5)."""
    judged_pairs: dict[tuple[int, int], _Continuation] = {}

    def judge(old: int, index: int) -> _Continuation:
        if (old, index) not in judged_pairs:
            after = move.table[index]
            judged_pairs[old, index] = _continuation(position, old, index, after, jokers_lost)
        return judged_pairs[old, index]

    violations: list[Violation] = []
    table: dict[int, Meld] = {}
    pairs = _match_melds(position, move, judge)
    for old, before in enumerate(position.table):
        index = pairs.get(old)
        if index is None:
            violations.append(_missing_meld(before))
            continue
        judged = judge(old, index)
        violations.extend(judged.violations)
        if not position.turn.has_opened and _cards_added(before, move.table[index]):
            violations.append(_not_opened(index, before, move.table[index]))
        table[index] = judged.table
    continued = set(pairs.values())
    new_indices = [j for j in range(len(move.table)) if j not in continued]
    if new_indices and position.turn.has_opened:
        violations.extend(_new_melds_after_opening(move, new_indices))
        table.update((j, move.table[j]) for j in new_indices)
    elif new_indices:
        opening_violations, opening_table = _opening(position, move, new_indices)
        violations.extend(opening_violations)
        table.update(opening_table)
    return violations, tuple(table[j] for j in range(len(move.table)))


def _after_discard(hand: Counter[Card], discard: Card | None) -> tuple[Card, ...]:
    """The hand once the discard, where it is in the hand, is gone."""
    left = hand.copy()
    if discard is not None and left[discard] > 0:
        left[discard] -= 1
    return tuple(sorted((+left).elements(), key=sort_key))


def _joker_to_hand() -> Violation:
    return Violation(
        Code.WILD_TO_HAND,
        "a joker left the table: a replaced joker stays in its sequence and never goes to "
        "the hand (C5)",
        "C5",
        -1,
        ("JK",),
    )


def _not_in_hand(missing: Counter[Card]) -> Violation:
    return Violation(
        Code.CARD_NOT_IN_HAND,
        f"{_texts(missing.elements())} laid on the table but not in the hand (C6)",
        "C6",
        -1,
        _codes(missing.elements()),
    )


def _new_melds_after_opening(move: Move, new_indices: Sequence[int]) -> list[Violation]:
    return [
        Violation(
            Code.TOO_MANY_NEW_MELDS,
            f"{_meld_text(move.table[index])} is a new meld: after the opening a player only "
            "lays cards off onto melds on the table (C5)",
            "C5",
            index,
            tuple(tc.code for tc in move.table[index]),
        )
        for index in new_indices
    ]
