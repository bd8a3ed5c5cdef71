"""The suggestion searched without R4's run windows at first (``pool.RunNaturals``) against
the suggestion searched on the whole model (issue #53): the same keys on every proposal.

    .venv/bin/python -m bench.suggest_deferred [--n 100] [--seed 1] [--sizes mid,large]
        [--always-broken] [ruleset ...]

The proposals are ``bench.suggest_bench``'s (illegal mutations of the best move or of the
table) on ``bench.positions``' tables, where mexe-mexe's 2s make the windows matter; the
brute-force differential (``bench.suggest_differential``) has small tables, where they
seldom do. ``--always-broken`` takes every table found as breaking a window, so each
search runs again with the windows added: the path a broken window takes. Prints per
ruleset and size the proposals compared, those whose search left windows out, how many
tables found broke one, on how many the last CP-SAT solve ends with the same status and
objective value (the two searches' optima: these must agree, else it exits 1), and how
many answers have the same keys (cards laid, proposal melds kept, melds changed) and the
same ``optimal``, with each difference. Keys may differ between two optimal solutions of
the model where its counts are upper bounds (a proposed meld counted kept that the table
found does not show, melds changed where D4 applies; ``suggest``'s docstring): each is
then checked against the brute-force reference only on small tables.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from typing import Any

from bench.positions import bench_positions
from bench.suggest_bench import illegal_proposal
from solver.rearrangement import suggest
from solver.rearrangement.model.pool import RunNaturals
from solver.rearrangement.search import validate_move
from solver.rummy.position import Move, Position

RULESETS = ("mexe-mexe", "carrossel")
Keys = tuple[int, int, int, bool] | None


def keys_of(position: Position, proposal: Move) -> tuple[Keys, str]:
    """The suggestion's keys and whether it is proved nearest (None: no suggestion), and
    the last CP-SAT solve's status and objective value."""
    solves: list[str] = []
    solve_primary = suggest.tries.solve_primary

    def recorded(*args: Any, **kwargs: Any) -> Any:
        solver, status = solve_primary(*args, **kwargs)
        solves.append(f"{solver.status_name(status)} {solver.objective_value:.0f}")
        return solver, status

    suggest.tries.solve_primary = recorded  # type: ignore[attr-defined]
    try:
        found = suggest.suggest_move(position, proposal)
    finally:
        suggest.tries.solve_primary = solve_primary  # type: ignore[attr-defined]
    last = solves[-1] if solves else "no solve"
    if found.move is None:
        return None, last
    solved = found.move.solved
    keys = len(solved.verdict.played), len(found.move.kept), solved.melds_changed, found.optimal
    return keys, last


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100, help="positions per ruleset and size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sizes", default="mid,large")
    parser.add_argument("--always-broken", action="store_true")
    parser.add_argument("rulesets", nargs="*", default=list(RULESETS))
    args = parser.parse_args(argv)
    checks: list[bool] = []
    broken = RunNaturals.broken

    def checked(self: RunNaturals, value: Callable[[Any], int]) -> bool:
        verdict = args.always_broken or broken(self, value)
        checks.append(verdict)
        return verdict

    RunNaturals.broken = checked  # type: ignore[method-assign]
    failed = 0
    try:
        for ruleset_id in args.rulesets:
            for size in args.sizes.split(","):
                rng = random.Random(f"{args.seed}/{ruleset_id}/suggest")
                compared = deferred = broke = same = same_optimum = 0
                for spec in bench_positions(ruleset_id, size, args.n, args.seed):
                    proposal = illegal_proposal(spec, rng)
                    if proposal is None:
                        continue
                    position = spec.position()
                    try:
                        validate_move(position, proposal)
                    except Exception:  # a malformed proposal: the service refuses it
                        continue
                    checks.clear()
                    suggest.DEFER_RUN_NATURALS = True
                    left_out, left_out_solve = keys_of(position, proposal)
                    deferred += bool(checks)
                    broke += any(checks)
                    suggest.DEFER_RUN_NATURALS = False
                    whole, whole_solve = keys_of(position, proposal)
                    compared += 1
                    same += left_out == whole
                    same_optimum += left_out_solve == whole_solve
                    if left_out != whole or left_out_solve != whole_solve:
                        print(
                            f"  {spec.name}: windows left out {left_out} ({left_out_solve}), "
                            f"whole model {whole} ({whole_solve})"
                        )
                failed += compared - same_optimum
                print(
                    f"{ruleset_id} {size}: {compared} proposals, {deferred} searched without "
                    f"the windows, {broke} broke one; the same CP-SAT optimum on "
                    f"{same_optimum}, the same keys and proof on {same}",
                    flush=True,
                )
    finally:
        RunNaturals.broken = broken  # type: ignore[method-assign]
        suggest.DEFER_RUN_NATURALS = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
