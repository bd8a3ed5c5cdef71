"""Where a suggestion's time goes (issue #53), in-process CPU time per part, on the same mid
tables and illegal proposals as ``bench.suggest_bench`` (no gRPC, no server).

    .venv/bin/python -m bench.suggest_parts [--n 40] [--seed 1] [--size mid] [--rounds 3]
        [ruleset ...]

The parts are the functions ``suggest_move`` calls, each wrapped for the run: the referee's
verdict on the proposal (as the service gives it before the suggestion), the turn model's
build, the suggestion's own constraints and objective, the CP-SAT solve (with, shown apart,
the check of the table found against R4's run windows left out of the model,
``pool.RunNaturals``), the rebuild, the referee's re-check and the deal as proposed; where
the try without R6 gives no answer, both searches' parts are counted. Prints per ruleset
the p50 of the whole suggestion and of each part, in CPU ms (``time.process_time``), the
best of ``--rounds`` rounds per proposal, so a busy machine disturbs it less; then which
search answered (the one try without R6, the whole model after it, or none: the proposal
lays no hand card), with how many proposals each and the p50 of their whole suggestion,
which shows the group the median lies in.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from bench.positions import bench_positions
from bench.suggest_bench import RULESETS, illegal_proposal
from solver.rearrangement import suggest
from solver.rearrangement.model.pool import RunNaturals
from solver.rearrangement.search import validate_move

# The names ``suggest_move`` looks up in its module, and the part each is counted in.
PARTS = {
    "_suggestion_model": "turn model build",
    "_solve_nearest": "CP-SAT solve",
    "_restrict_to": "suggestion constraints",
    "_proposal_melds_kept": "suggestion constraints",
    "_nearest_objective": "suggestion constraints",
    "rebuild_move": "rebuild",
    "_checked": "referee re-check",
    "deal_as_proposed": "deal as proposed",
    "_judged": "deal as proposed",
}


# Which search answered a suggestion (``answered_by``).
WITHOUT_R6 = "the try without R6"
WHOLE_MODEL = "the whole model after it"
WHOLE_ONLY = "the whole model alone"
NO_SEARCH = "no search (no hand card laid, or no play allowed)"


def answered_by(searches: list[bool]) -> str:
    """The search that answered, from ``suggest._nearest``'s calls in order (True: the
    search without R6's limit on new melds)."""
    if not searches:
        return NO_SEARCH
    if searches[0] and len(searches) == 1:
        return WITHOUT_R6
    return WHOLE_MODEL if searches[0] else WHOLE_ONLY


@contextmanager
def searches_made(searches: list[bool]) -> Iterator[None]:
    """Record in ``searches`` whether each ``suggest._nearest`` call was the search without
    R6 (its ``relax_new_melds``)."""
    nearest = suggest._nearest

    def recorded(*args: Any, **kwargs: Any) -> Any:
        searches.append(bool(kwargs["relax_new_melds"]))  # always passed by name
        return nearest(*args, **kwargs)

    suggest._nearest = recorded
    try:
        yield
    finally:
        suggest._nearest = nearest


@contextmanager
def timed_parts(spent: dict[str, float]) -> Iterator[None]:
    """Wrap ``suggest``'s parts so that each call adds its CPU time to ``spent``."""
    saved: dict[str, Any] = {}

    def wrap(part: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[part] = spent.get(part, 0.0) + time.process_time() - started

        return timed

    for name, part in PARTS.items():
        saved[name] = getattr(suggest, name)
        setattr(suggest, name, wrap(part, saved[name]))
    saved_check = RunNaturals.broken
    RunNaturals.broken = wrap("  of which windows check", saved_check)  # type: ignore[method-assign]
    try:
        yield
    finally:
        for name, function in saved.items():
            setattr(suggest, name, function)
        RunNaturals.broken = saved_check  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40, help="positions per ruleset")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", default="mid")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("rulesets", nargs="*", default=list(RULESETS))
    args = parser.parse_args(argv)
    for ruleset_id in args.rulesets:
        rng = random.Random(f"{args.seed}/{ruleset_id}/suggest")
        per_part: dict[str, list[float]] = {}
        totals: list[float] = []
        by_search: dict[str, list[float]] = {}
        for spec in bench_positions(ruleset_id, args.size, args.n, args.seed):
            proposal = illegal_proposal(spec, rng)
            if proposal is None:
                continue
            position = spec.position()
            best: dict[str, float] | None = None
            searches: list[bool] = []
            for _ in range(args.rounds):
                spent: dict[str, float] = {}
                searches.clear()
                started = time.process_time()
                try:
                    validate_move(position, proposal)
                except Exception:  # a malformed proposal: the service refuses it
                    break
                spent["referee verdict"] = time.process_time() - started
                with timed_parts(spent), searches_made(searches):
                    started = time.process_time()
                    suggest.suggest_move(position, proposal)
                    spent["whole suggestion"] = time.process_time() - started
                if best is None or spent["whole suggestion"] < best["whole suggestion"]:
                    best = spent
            if best is None:
                continue
            totals.append(best["whole suggestion"] * 1000)
            by_search.setdefault(answered_by(searches), []).append(totals[-1])
            for part, seconds in best.items():
                per_part.setdefault(part, []).append(seconds * 1000)
        if not totals:
            print(f"{ruleset_id}: no illegal proposal made")
            continue
        print(f"{ruleset_id} {args.size}: {len(totals)} proposals, CPU ms p50 (mean)")
        for part, values in sorted(per_part.items(), key=lambda kv: -statistics.mean(kv[1])):
            values += [0.0] * (len(totals) - len(values))
            print(f"  {part:24} {statistics.median(values):6.2f} ({statistics.mean(values):6.2f})")
        print("  answered by: proposals, p50 of the whole suggestion (CPU ms)")
        for search, values in sorted(by_search.items(), key=lambda kv: statistics.median(kv[1])):
            print(f"    {search:50} {len(values):3} {statistics.median(values):7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
