"""Issue #53's differential for carioca at full size: the CP-SAT suggestion against the
brute-force reference on >= 1,000 random illegal proposals across the seven contracts
(``make test`` runs 150, tests/test_c2_c6_carioca_suggest_vs_bruteforce.py).

    .venv/bin/python -m bench.carioca_suggest_differential [--proposals 1000] [--seed N]

Prints the proposals compared per contract and side of the opening, the agreements key by
key, and the first disagreements; exits 1 on any disagreement.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

from tests.carioca_suggest_differential import SEED_BASE, compare

KEYS = ("hand cards laid", "melds kept", "melds changed", "same discard", "points left")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proposals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=SEED_BASE, help="first position's seed")
    args = parser.parse_args(argv)
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


if __name__ == "__main__":
    sys.exit(main())
