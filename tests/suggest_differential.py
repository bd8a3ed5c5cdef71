"""The differential run of issue #53: the CP-SAT suggestion against the brute-force
reference (``tests/reference/suggest_oracle.py``), key by key, on illegal proposals made
as players make them. Shared by ``tests/test_suggest_vs_bruteforce.py`` (a few hundred
proposals per ruleset) and ``bench/suggest_differential.py`` (>= 1,000 per ruleset)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from solver.rearrangement.suggest import proposal_hand_cards, suggest_move
from tests.reference.bruteforce import format_move, format_position
from tests.reference.positions import random_position
from tests.reference.suggest_oracle import Keys, Oracle, keys_of, proposals

PROPOSALS_PER_POSITION = 5
SEED_BASE = 53_000  # apart from the other differential runs' seeds


@dataclass(frozen=True)
class Compared:
    """One proposal: the reference's keys and the suggestion's (None: no suggestion)."""

    where: str
    expected: Keys | None
    got: Keys | None
    legal: bool  # the suggestion passed the referee (it always must)
    same_wanted: bool  # both read the same hand cards from the proposal
    optimal: bool  # the suggestion said it was proved nearest

    @property
    def agrees(self) -> bool:
        return self.legal and self.same_wanted and self.expected == self.got


def compare(ruleset_id: str, count: int, seed_base: int = SEED_BASE) -> Iterator[Compared]:
    """``count`` illegal proposals of ``ruleset_id``, each compared, from positions
    ``seed_base``, ``seed_base + 1``, ... (``Compared.where`` names the seed)."""
    done = 0
    seed = seed_base
    while done < count:
        position = random_position(ruleset_id, seed)
        oracle = Oracle(position)
        rng = random.Random(seed)
        for proposal in proposals(oracle, rng, min(PROPOSALS_PER_POSITION, count - done)):
            expected = oracle.nearest(proposal)
            found = suggest_move(position, proposal)
            got = None
            legal = True
            if found.move is not None:
                solved = found.move.solved
                table = solved.move.table
                got = keys_of(position, proposal, table, len(solved.verdict.played))
                legal = solved.verdict.legal and not oracle.is_illegal(solved.move)
            where = (
                f"seed {seed}: {format_position(position)}\n  proposal: {format_move(proposal)}\n"
                f"  reference {expected.keys}: "
                f"{format_move(expected.witness) if expected.witness else '-'}\n"
                f"  suggestion {got}: "
                f"{format_move(found.move.solved.move) if found.move else found.note}"
            )
            same = expected.wanted == proposal_hand_cards(position, proposal)
            yield Compared(where, expected.keys, got, legal, same, found.optimal)
            done += 1
        seed += 1
