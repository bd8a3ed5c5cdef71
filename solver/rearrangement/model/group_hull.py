"""Each rank's pool groups as a choice of one configuration: an extended formulation.

The pool counts a rank's groups per set of suits (``pool._build_group_sets``) or per size
with each suit's naturals (``pool._build_groups_of_rank``). Those counts' linear relaxation
admits points no table has, such as three groups of three suits at one half each, holding
four and a half cards of a rank that has one group's worth. Here every integer point of a
rank's counts is listed (a *configuration*: how many groups of each set, or of each size
with each suit's naturals and the wilds), one Boolean per configuration with exactly one
chosen, and the counts written as their sums: the relaxation of a rank's counts is then
their convex hull. The same tables are feasible (the counts take the same integer values),
so it only tightens the relaxation. ``ModelOptions.group_hull`` asks for it; a rank whose
configurations are more than ``MAX_CONFIGURATIONS`` keeps the plain counts.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import product

from ortools.sat.python import cp_model

from solver.rearrangement.model.cp import sum_of

MAX_CONFIGURATIONS = 120  # per rank; beyond, the counts' relaxation is left as it is

SuitSet = tuple[str, ...]


def add_set_configurations(
    m: cp_model.CpModel, sets: dict[SuitSet, cp_model.IntVar], supply: dict[str, int]
) -> int:
    """One rank's groups counted per set of suits (no wild joins them): each multiset of
    sets the suits' ``supply`` can hold is a configuration. Returns how many were written
    (0: too many, nothing added)."""
    keys = sorted(sets)
    configs = list(_set_multisets(keys, dict(supply), 0))
    if len(configs) > MAX_CONFIGURATIONS:
        return 0
    _choose(m, configs, [sets[k] for k in keys])
    return len(configs)


def _set_multisets(
    keys: Sequence[SuitSet], room: dict[str, int], start: int
) -> Iterator[tuple[int, ...]]:
    """Every count vector over ``keys[start:]`` (earlier ones zero) within ``room``."""
    if start == len(keys):
        yield (0,) * len(keys)
        return
    suits = keys[start]
    most = min(room[s] for s in suits)
    for n in range(most + 1):
        for s in suits:
            room[s] -= n
        for rest in _set_multisets(keys, room, start + 1):
            yield rest[:start] + (n,) + rest[start + 1 :]
        for s in suits:
            room[s] += n


def add_size_configurations(
    m: cp_model.CpModel,
    sizes: dict[int, cp_model.IntVar],
    naturals: dict[str, cp_model.IntVar],
    supply: dict[str, int],
    wilds: cp_model.LinearExprT,
    wild_room: int,
    suits_distinct: bool,
) -> int:
    """One rank's groups counted per size, wilds joining them: a configuration is a count
    per size, each suit's naturals in them (at most one a group where suits are distinct,
    a natural in each group, R4) and the wilds filling the rest (at most ``wild_room``).
    Returns how many were written (0: too many, nothing added)."""
    size_keys = sorted(sizes)
    suit_keys = sorted(naturals)
    configs: list[tuple[int, ...]] = []
    most_cards = sum(supply[s] for s in suit_keys) + wild_room
    for counts in product(*(range(most_cards // k + 1) for k in size_keys)):
        groups = sum(counts)
        cards = sum(n * k for n, k in zip(counts, size_keys, strict=True))
        if cards > most_cards:
            continue
        caps = [min(supply[s], groups) if suits_distinct else supply[s] for s in suit_keys]
        for ys in product(*(range(c + 1) for c in caps)):
            held = sum(ys)
            if held < groups or held > cards or cards - held > wild_room:
                continue
            configs.append((*counts, *ys, cards - held))
            if len(configs) > MAX_CONFIGURATIONS:
                return 0
    _choose(m, configs, [*(sizes[k] for k in size_keys), *(naturals[s] for s in suit_keys), wilds])
    return len(configs)


def _choose(
    m: cp_model.CpModel, configs: Sequence[tuple[int, ...]], counts: Sequence[cp_model.LinearExprT]
) -> None:
    """Exactly one configuration; each count the chosen configuration's."""
    chosen = [m.new_bool_var("config") for _ in configs]
    m.add_exactly_one(chosen)
    for j, count in enumerate(counts):
        terms = [(z, c[j]) for z, c in zip(chosen, configs, strict=True) if c[j]]
        m.add(count == cp_model.LinearExpr.weighted_sum([z for z, _ in terms], [w for _, w in terms]))
