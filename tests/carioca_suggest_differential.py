"""The differential run of issue #53 for carioca: the CP-SAT suggestion
(``solver.contract.suggest``) against the brute-force reference
(``tests/reference/carioca_suggest_oracle.py``), key by key, on illegal proposals made as
players make them, across the seven contracts (C2). Shared by
``tests/test_c2_c6_carioca_suggest_vs_bruteforce.py`` (~150 proposals in ``make test``) and
``bench/carioca_suggest_differential.py`` (>= 1,000)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from solver.contract.referee import validate_contract_move
from solver.contract.suggest import proposal_hand_cards, suggest_contract_move
from solver.rummy.position import Move, Position, Turn, parse_position
from tests.carioca_positions import layoff_position, opening_position
from tests.reference.bruteforce import format_move, format_position
from tests.reference.carioca_suggest_oracle import Keys, keys_of, nearest, proposals

PROPOSALS_PER_POSITION = 4
SEED_BASE = 53_002  # apart from the other differential runs' seeds
OPENING_SHARE = 0.5  # the rest are lay-off positions (C5)


@dataclass(frozen=True)
class Compared:
    """One proposal: the reference's keys and the suggestion's (None: no suggestion)."""

    where: str
    deal: int
    opened: bool
    expected: Keys | None
    got: Keys | None
    legal: bool  # the suggestion passed the referee (it always must)
    same_wanted: bool  # both read the same hand cards from the proposal
    wanted: int  # how many hand cards the proposal laid

    @property
    def agrees(self) -> bool:
        return self.legal and self.same_wanted and self.expected == self.got


def random_position(seed: int) -> Position:
    """A small carioca position of any deal (C2), before or after opening."""
    rng = random.Random(seed)
    deal = rng.randint(1, 7)
    rp = opening_position(rng, deal) if rng.random() < OPENING_SHARE else layoff_position(rng, deal)
    turn = Turn(cards_drawn=1, has_opened=rp.opened, deal_number=rp.deal)
    return parse_position("carioca", 2, rp.table, rp.hand, turn)


def _describe(position: Position, proposal: Move) -> str:
    discard = proposal.discard.code if proposal.discard else "-"
    return (
        f"{format_position(position)} deal={position.turn.deal_number}\n"
        f"  proposal: {format_move(proposal)}  discard {discard}"
    )


def compare(count: int, seed_base: int = SEED_BASE) -> Iterator[Compared]:
    """``count`` illegal proposals, each compared."""
    done = 0
    seed = seed_base
    while done < count:
        position = random_position(seed)
        rng = random.Random(seed)
        for proposal in proposals(position, rng, min(PROPOSALS_PER_POSITION, count - done)):
            expected = nearest(position, proposal)
            found = suggest_contract_move(position, proposal, 10_000)
            got = None
            legal = True
            shown = found.note
            if found.move is not None:
                solved = found.move.solved
                got = keys_of(position, proposal, solved.move, solved.verdict.played)
                legal = solved.verdict.legal and validate_contract_move(position, solved.move).legal
                discard = solved.move.discard.code if solved.move.discard else "-"
                shown = f"{format_move(solved.move)}  discard {discard}"
            witness = "-"
            if expected.witness is not None:
                discard = expected.witness.discard.code if expected.witness.discard else "-"
                witness = f"{format_move(expected.witness)}  discard {discard}"
            where = (
                f"{_describe(position, proposal)}\n"
                f"  reference {expected.keys}: {witness}\n"
                f"  suggestion {got}: {shown}"
            )
            same = Counter(expected.wanted) == proposal_hand_cards(position, proposal)
            yield Compared(
                where,
                position.turn.deal_number,
                position.turn.has_opened,
                expected.keys,
                got,
                legal,
                same,
                sum(expected.wanted.values()),
            )
            done += 1
        seed += 1
