"""Issue #53's differential for the fishing games at full size: ValidatePlay's suggestion
(CP-SAT) against the brute-force reference on 1,000 illegal proposals per game (``make test``
runs 100 per game, tests/test_fishing_suggest_vs_bruteforce.py).

    .venv/bin/python -m bench.fishing_suggest_differential [--proposals 1000] [game ...]

Prints per game the proposals compared, the agreements key by key, the mistakes made and
what the suggestions kept, and the first disagreements; exits 1 on any disagreement.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

from tests.fishing_suggest_differential import compare

GAMES = ("carosello", "carrusel", "karusele")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proposals", type=int, default=1000)
    parser.add_argument("games", nargs="*", default=list(GAMES))
    args = parser.parse_args(argv)
    failed = 0
    for game in args.games:
        started = time.process_time()
        results = list(compare(game, args.proposals))
        wrong = [r for r in results if not r.agrees]
        found = [r.got for r in results if r.got is not None]
        print(
            f"{game}: {len(results)} proposals, {len(results) - len(wrong)} agree key by key; "
            f"{len(results) - len(found)} without a suggestion, "
            f"{sum(1 for k in found if k[0])} with the same card, "
            f"{sum(1 for k in found if k[1])} keeping a proposed group or build; "
            f"{time.process_time() - started:.1f} s CPU",
            flush=True,
        )
        mistakes = Counter(r.mistake for r in results)
        print("  mistakes: " + ", ".join(f"{m} {n}" for m, n in sorted(mistakes.items())))
        for r in wrong[:5]:
            print("  " + r.where)
        failed += len(wrong)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
