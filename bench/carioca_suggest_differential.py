"""Issue #53's differential for carioca at full size: the CP-SAT suggestion against the
brute-force reference on >= 1,000 random illegal proposals across the seven contracts
(``make test`` runs 150, tests/test_c2_c6_carioca_suggest_vs_bruteforce.py).

    .venv/bin/python -m bench.carioca_suggest_differential [--proposals 1000] [--seed N]
    .venv/bin/python -m bench.carioca_suggest_differential --mid 300   # bench-size positions

Prints the proposals compared per contract and side of the opening, the agreements key by
key, and the first disagreements; exits 1 on any disagreement. ``--mid N`` compares instead
on N of ``bench.carioca_bench``'s 12-card positions (the speed bench's, one proposal each):
slower, the brute force takes up to ~20 s on a few of them.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter

from bench.carioca_bench import layoff, opening
from bench.carioca_suggest_bench import illegal_proposal, parsed
from solver.contract.suggest import suggest_contract_move
from tests.carioca_suggest_differential import SEED_BASE, compare
from tests.reference.carioca_suggest_oracle import keys_of, nearest

KEYS = ("hand cards laid", "melds kept", "melds changed", "same discard", "points left")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proposals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=SEED_BASE, help="first position's seed")
    parser.add_argument("--mid", type=int, default=0, help="bench-size positions instead")
    args = parser.parse_args(argv)
    if args.mid:
        return compare_mid(args.mid, args.seed)
    started = time.process_time()
    results = list(compare(args.proposals, args.seed))
    wrong = [r for r in results if not r.agrees]
    by_deal = Counter(f"deal {r.deal} {'opened' if r.opened else 'not opened'}" for r in results)
    per_key = [
        sum(1 for r in results if (r.expected or (None,) * 5)[k] == (r.got or (None,) * 5)[k])
        for k in range(len(KEYS))
    ]
    none = sum(1 for r in results if r.got is None)
    kept = sum(1 for r in results if r.got and r.got[1] > 0)
    partial = sum(1 for r in results if r.got and r.got[0] < r.wanted)
    print(
        f"carioca: {len(results)} proposals, {len(results) - len(wrong)} agree "
        f"({none} without a suggestion, {kept} keeping a proposed meld, {partial} laying part "
        f"of the proposal's cards), {time.process_time() - started:.1f} s CPU"
    )
    print("  per key: " + ", ".join(f"{k} {n}" for k, n in zip(KEYS, per_key, strict=True)))
    print("  " + ", ".join(f"{k}: {n}" for k, n in sorted(by_deal.items())))
    illegal = sum(1 for r in results if not r.legal)
    print(f"  suggestions the referee rejects: {illegal}")
    for r in wrong[:5]:
        print(r.where)
    return 1 if wrong else 0


def compare_mid(count: int, seed: int) -> int:
    """The same keys on the speed bench's positions, before and after opening by turns."""
    rng = random.Random(seed)
    started = time.process_time()
    compared = wrong = 0
    for i in range(count):
        position = parsed((opening if i % 2 else layoff)(rng))
        proposal = illegal_proposal(position, rng)
        if proposal is None:
            continue
        expected = nearest(position, proposal).keys
        found = suggest_contract_move(position, proposal, 10_000)
        got = None
        if found.move is not None:
            solved = found.move.solved
            got = keys_of(position, proposal, solved.move, solved.verdict.played)
        compared += 1
        if got != expected:
            wrong += 1
            print(f"disagree: reference {expected}, suggestion {got}", flush=True)
    print(
        f"carioca mid: {compared} proposals, {compared - wrong} agree, "
        f"{time.process_time() - started:.1f} s CPU"
    )
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
