"""The suggestion's shortcuts against the whole model (issue #53): the same answers.

    .venv/bin/python -m bench.suggest_deferred [--n 100] [--seed 1] [--sizes mid,large]
        [--always-broken] [ruleset ...]

Two shortcuts make mexe-mexe's suggestion cheaper (``solver/rearrangement/suggest.py``):
R4's run windows left out and checked against the table found (``pool.RunNaturals``), and
where wilds could make runs of their own, one short try without R6's limit on new melds
(``suggest._nearest``). Each proposal (``bench.suggest_bench``'s: illegal mutations of the
best move or of the table, on ``bench.positions``' tables, where the 2s make both matter;
the brute-force differential, ``bench.suggest_differential``, has small tables, where they
seldom do) is answered with both shortcuts and with neither. ``--always-broken`` takes
every table found as breaking a window, so each search that left them out runs again with
them: the path a broken window takes.

Prints per ruleset and size the proposals compared, how many answers the try without R6
gave, how many tables found broke a window, and how many answers have the same keys
(cards laid, proposal melds kept, melds changed) and proof, are nearer, or are farther
(exits 1 on any farther, or any laying other cards, than a whole model's proved answer).
Two optimal solutions of a model may show different keys where its counts are upper
bounds (a proposed meld counted kept that the table found does not show; melds changed
where D4 applies; ``suggest``'s docstring), so nearer or farther answers where the whole
model's is not proved are listed, not failed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from bench.suggest_bench import judged_proposals
from solver.rearrangement import suggest
from solver.rearrangement.model.pool import RunNaturals
from solver.rummy.position import Move, Position

RULESETS = ("mexe-mexe", "carrossel")
Keys = tuple[int, int, int, bool] | None


def keys_of(position: Position, proposal: Move, shortcuts: bool) -> Keys:
    """The suggestion's keys and whether it is proved nearest (None: no suggestion)."""
    suggest.DEFER_RUN_NATURALS = suggest.RELAX_NEW_MELDS = shortcuts
    try:
        found = suggest.suggest_move(position, proposal)
    finally:
        suggest.DEFER_RUN_NATURALS = suggest.RELAX_NEW_MELDS = True
    if found.move is None:
        return None
    solved = found.move.solved
    return len(solved.verdict.played), len(found.move.kept), solved.melds_changed, found.optimal


def nearness(keys: Keys) -> tuple[int, int, int]:
    """The keys in the order that compares nearness (cards, melds kept, fewest changed)."""
    return (-1, 0, 0) if keys is None else (keys[0], keys[1], -keys[2])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100, help="positions per ruleset and size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sizes", default="mid,large")
    parser.add_argument("--always-broken", action="store_true")
    parser.add_argument("rulesets", nargs="*", default=list(RULESETS))
    args = parser.parse_args(argv)
    checks: list[bool] = []
    relaxed: list[bool] = []
    broken = RunNaturals.broken
    nearest = suggest._nearest

    def checked(self: RunNaturals, value: Callable[[Any], int]) -> bool:
        verdict = args.always_broken or broken(self, value)
        checks.append(verdict)
        return verdict

    def counted(*a: Any, **k: Any) -> Any:
        found = nearest(*a, **k)
        if k.get("relax_new_melds"):
            relaxed.append(found is not None)
        return found

    RunNaturals.broken = checked  # type: ignore[method-assign]
    suggest._nearest = counted
    failed = 0
    try:
        for ruleset_id in args.rulesets:
            for size in args.sizes.split(","):
                compared = without_r6 = broke = same = nearer = farther = 0
                for spec, position, proposal in judged_proposals(
                    ruleset_id, size, args.n, args.seed
                ):
                    checks.clear()
                    relaxed.clear()
                    fast = keys_of(position, proposal, True)
                    without_r6 += any(relaxed)
                    broke += any(checks)
                    whole = keys_of(position, proposal, False)
                    compared += 1
                    if fast == whole:
                        same += 1
                        continue
                    worse = nearness(fast) < nearness(whole)
                    nearer += not worse
                    farther += worse
                    proved = whole is not None and whole[3]
                    wrong = proved and (worse or nearness(fast)[0] != nearness(whole)[0])
                    failed += wrong
                    print(f"  {spec.name}: shortcuts {fast}, whole model {whole}", flush=True)
                print(
                    f"{ruleset_id} {size}: {compared} proposals, {without_r6} answered "
                    f"without R6, {broke} broke a window; the same keys and proof on {same}, "
                    f"nearer on {nearer}, farther on {farther}",
                    flush=True,
                )
    finally:
        RunNaturals.broken = broken  # type: ignore[method-assign]
        suggest._nearest = nearest
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
