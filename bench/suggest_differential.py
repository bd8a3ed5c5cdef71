"""Issue #53's differential at full size: the CP-SAT suggestion against the brute-force
reference on >= 1,000 illegal proposals per rearrangement ruleset (``make test`` runs 200
of them per ruleset, tests/test_suggest_vs_bruteforce.py).

    .venv/bin/python -m bench.suggest_differential [--proposals 1000] [--seed 53000] [ruleset ...]

``--seed`` is the first position's seed (the default is ``make test``'s; another, e.g.
153000, draws other positions and proposals).

Prints per ruleset the proposals compared, the agreements key by key, and the first
disagreements; exits 1 on any disagreement.
"""

from __future__ import annotations

import argparse
import sys
import time

from tests.suggest_differential import SEED_BASE, compare

RULESETS = ("carrossel", "mexe-mexe", "vatikan", "shangai", "manipulation", "rummikub")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proposals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=SEED_BASE)
    parser.add_argument("rulesets", nargs="*", default=list(RULESETS))
    args = parser.parse_args(argv)
    failed = 0
    for ruleset_id in args.rulesets:
        started = time.monotonic()
        results = list(compare(ruleset_id, args.proposals, args.seed))
        wrong = [r for r in results if not r.agrees]
        none = sum(1 for r in results if r.got is None)
        same = sum(1 for r in results if r.got and r.got[1] > 0)
        unproved = sum(1 for r in results if not r.optimal)
        print(
            f"{ruleset_id}: {len(results)} proposals, {len(results) - len(wrong)} agree "
            f"({none} without a suggestion, {same} keeping a proposed meld, {unproved} not "
            "proved nearest), "
            f"{time.monotonic() - started:.0f} s",
            flush=True,
        )
        for r in wrong[:5]:
            print(r.where)
        failed += len(wrong)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
