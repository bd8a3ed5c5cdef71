"""The tie-break's root bound: the linear relaxation of its first model, solved with GLOP.

Run from the repository root::

    python -m bench.tie_bound [--n 40] [--seed 1] [--rulesets carrossel] [--sizes mid] \
        [--set MODULE:NAME=VALUE] [--integer-groups] [--show]

Each position is solved once by ``solve_move``; the first tie-break model (fewest melds
changed with the primary fixed at the best conceivable value, ``tries._tie_break``) is
recorded with its turn's variables. Its linear relaxation (every linear constraint of the
CP-SAT model; an enforced one relaxed with the big M its variables' domains give, as
CP-SAT's own linearization does) is solved with GLOP, and the bound is printed against
the value CP-SAT proved (or found) on that model. ``--integer-groups`` also solves it with
the pool's group counts integer and everything else fractional (SCIP): what a formulation
whose groups' relaxation is exact could reach at most. ``--show`` prints the fractional
group counts of each relaxation.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # ``python bench/tie_bound.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ortools.linear_solver import pywraplp
from ortools.sat.python import cp_model

from bench.carrossel_tail import parse_patch, patched
from bench.positions import each_bench_position
from solver.rearrangement import tries
from solver.rearrangement.model import TurnModel
from solver.rearrangement.search import default_objective, solve_move


@dataclass
class TieModel:
    """One recorded tie-break model, what its solve answered and its group count vars."""

    name: str
    model: cp_model.CpModel
    value: float | None  # the solve's objective value (None: no table found)
    proved: bool
    groups: list[int]  # proto indices of the pool's group counts
    labels: dict[int, str]  # group count index: what it counts


def record(rulesets: Sequence[str], sizes: Sequence[str], n: int, seed: int) -> list[TieModel]:
    """The first tie-break model of each position's ``solve_move``."""
    out: list[TieModel] = []
    original = tries._tie_model
    seen: list[tuple[cp_model.CpModel, TurnModel]] = []

    def recording(tm: TurnModel, expr: Any, best: int) -> cp_model.CpModel:
        tie = original(tm, expr, best)
        seen.append((tie, tm))
        return tie

    tries._tie_model = recording
    try:
        for spec in each_bench_position(rulesets, sizes, n, seed):
            position = spec.position()
            seen.clear()
            solve_move(position, default_objective(position.ruleset))
            if seen:
                tie, tm = seen[0]
                out.append(_solved(spec.name, tie, tm))
    finally:
        tries._tie_model = original
    return out


def _solved(name: str, tie: cp_model.CpModel, tm: TurnModel) -> TieModel:
    solver = cp_model.CpSolver()
    solver.parameters.max_deterministic_time = 1.0
    solver.parameters.num_workers = 1
    status = solver.solve(tie)
    found = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    pool = tm.variables.pool
    labels = {v.index: f"g{r}x{k}" for (r, k), v in pool.groups.items()}
    labels.update({v.index: f"g{r}{''.join(s)}" for (r, s), v in pool.group_sets.items()})
    return TieModel(
        name,
        tie,
        solver.objective_value if found else None,
        status == cp_model.OPTIMAL,
        sorted(labels),
        labels,
    )


def relaxation_bound(
    tie: TieModel, integer: Sequence[int] = (), show: bool = False
) -> float | None:
    """The relaxation's optimum (None: infeasible); ``integer``: proto indices kept integer."""
    proto = tie.model.proto
    lp = pywraplp.Solver.CreateSolver("SCIP" if integer else "GLOP")
    assert lp is not None
    keep_integer = set(integer)
    xs = []
    for i, v in enumerate(proto.variables):
        lo, hi = _ends(v.domain)
        xs.append(lp.IntVar(lo, hi, "") if i in keep_integer else lp.NumVar(lo, hi, ""))

    def lit(ref: int) -> Any:  # a literal as a linear term in [0, 1]
        return xs[ref] if ref >= 0 else 1 - xs[-ref - 1]

    for c in proto.constraints:
        enforced = [lit(e) for e in c.enforcement_literal]
        if c.has_linear():
            lin = c.linear
            terms = sum(k * xs[v] for v, k in zip(lin.vars, lin.coeffs, strict=True))
            lo_sum = sum(
                k * (xs[v].lb() if k > 0 else xs[v].ub())
                for v, k in zip(lin.vars, lin.coeffs, strict=True)
            )
            hi_sum = sum(
                k * (xs[v].ub() if k > 0 else xs[v].lb())
                for v, k in zip(lin.vars, lin.coeffs, strict=True)
            )
            lo, hi = _ends(lin.domain)
            slack = sum(1 - e for e in enforced) if enforced else 0
            if lo > -(2**62) and lo > lo_sum:
                lp.Add(terms >= lo - (lo - lo_sum) * slack)
            if hi < 2**62 and hi < hi_sum:
                lp.Add(terms <= hi + (hi_sum - hi) * slack)
        elif c.has_bool_or():
            lp.Add(sum(lit(x) for x in c.bool_or.literals) + sum(1 - e for e in enforced) >= 1)
        elif c.has_exactly_one():
            lp.Add(sum(lit(x) for x in c.exactly_one.literals) == 1)
        elif c.has_at_most_one():
            lp.Add(sum(lit(x) for x in c.at_most_one.literals) <= 1)
        elif c.has_bool_and():
            for x in c.bool_and.literals:
                lp.Add(lit(x) + sum(1 - e for e in enforced) >= 1)
        # Others (lin_max: a swap) are left out: the bound is then weaker, never wrong.
    objective = proto.objective
    lp.Minimize(sum(k * xs[v] for v, k in zip(objective.vars, objective.coeffs, strict=True)))
    if lp.Solve() != pywraplp.Solver.OPTIMAL:
        return None
    if show:
        fractional = {
            tie.labels[i]: round(xs[i].solution_value(), 2)
            for i in tie.groups
            if abs(xs[i].solution_value() - round(xs[i].solution_value())) > 1e-6
        }
        print(f"    fractional groups: {fractional}")
    scale = objective.scaling_factor or 1.0
    return float((lp.Objective().Value() + objective.offset) * scale)


def _ends(domain: Sequence[int]) -> tuple[int, int]:
    """A domain's least and greatest value (the proto's repeated fields read a negative
    index as 0, so it is counted from the front)."""
    return domain[0], domain[len(domain) - 1]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rulesets", default="carrossel")
    parser.add_argument("--sizes", default="mid")
    parser.add_argument("--integer-groups", action="store_true")
    parser.add_argument("--show", action="store_true")
    parser.add_argument(
        "--set", action="append", default=[], help="MODULE:NAME=VALUE, a constant for this run"
    )
    args = parser.parse_args(argv)
    with patched([parse_patch(p) for p in args.set]):
        recorded = record(args.rulesets.split(","), args.sizes.split(","), args.n, args.seed)
    closed = exact = total = 0
    gap = 0.0
    for tie in recorded:
        bound = relaxation_bound(tie, show=args.show)
        line = f"{tie.name:28} value {tie.value!s:>5} {'proved' if tie.proved else 'found ':6}"
        line += f" LP {bound if bound is None else round(bound, 2)!s:>6}"
        if args.integer_groups:
            ib = relaxation_bound(tie, tie.groups)
            line += f"  groups integer {ib if ib is None else round(ib, 2)!s:>6}"
        print(line)
        if tie.value is not None and tie.proved and bound is not None:
            total += 1
            gap += tie.value - bound
            exact += math.ceil(bound - 1e-6) >= tie.value
            closed += bound >= tie.value - 1e-6
    print(
        f"{len(recorded)} tie-break models; on the {total} proved: LP bound rounded up = the "
        f"optimum on {exact}, equal to it on {closed}; mean gap {gap / max(total, 1):.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
