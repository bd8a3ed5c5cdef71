"""A flag per rank of the pool's groups: whether the rank has a group at all.

The tie-break's root bound on melds changed is weak because the pool's group counts are
fractional in its linear relaxation (one rank's group at one half, holding half of three
cards); with the counts integer it is the optimum on most mid carrossel positions. The
flag is that disjunction as a Boolean of its own: the rank's counts sum to at least 1 with
it and to none without. It is implied by the counts (so the same tables, and no second
solution of one table), and it leaves the relaxation as it was: even listing every integer
configuration of a rank's counts (their convex hull) did not move the root bound. What it
changes is CP-SAT's search, which branches on the flags and so settles a rank's groups
before their sizes and suits: on carrossel, vatikan, shangai and manipulation the searches
find and prove their tables sooner (bench/HISTORY.md, "a flag per rank's groups"); on
mexe-mexe they were slower, so ``search`` asks for flags per ruleset (``search.GROUP_FLAGS``,
``ModelOptions.group_flags``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ortools.sat.python import cp_model

from solver.rearrangement.model.cp import sum_of


def flag_groups(
    m: cp_model.CpModel, counts: Sequence[cp_model.IntVar], most: int
) -> cp_model.IntVar:
    """The flag of one rank whose groups ``counts`` sum to at most ``most``: true exactly
    when they sum to 1 or more."""
    has_group = m.new_bool_var("has_group")
    total = sum_of(counts)
    m.add(total >= has_group)
    m.add(total <= most * has_group)
    return has_group
