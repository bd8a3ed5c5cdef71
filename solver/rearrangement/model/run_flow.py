"""The pool's any-suit runs as a flow along the places: how many runs start, end and pass
through each place, instead of one count per run template (first and last place).

Where runs may mix suits (carrossel, vatikan, shangai, manipulation) a template is only
its two ends, so the pool held about 80 counts of which a table uses a handful. The
runs through each place, the runs starting there and those ending there say the same
with three counts a place (42 on a 14-place line): a table's runs are intervals, and
intervals of allowed lengths exist for given starts and ends exactly when, for every
place, at least as many runs have ended by it as started ``max_sequence - 1`` or more
places before, and no more than started ``min_sequence - 1`` or more places before (pair
the i-th start with the i-th end: any pairing that works can be uncrossed into that
one). ``rebuild`` pairs them that way (``instances``). So runs that cross otherwise (1-6
with 2-5, where the pairing gives 1-5 with 2-6: the same cards on every place) are one
solution here, not two, and a list of moves shows one of the two tables.

The two formulations reach the same optima (every table of the templates has a table of
the flow with the same cards on every place); the flow's linear relaxation is the same too
(interval matrices are totally unimodular), but its model has 35 variables fewer on a
14-place line, and the searches over it are a tenth cheaper on mid tables and halve the
large carrossel tail's p99 (bench/HISTORY.md, "the pool's any-suit runs as a flow").

Not used where wilds alone could make a run (``TurnData.wild_runs_possible``): each run
must then be given a natural of its own (R4), which the pool writes per template
(``pool.RunNaturals``); nor for same-suit runs, whose kept natural runs are linked to a
template of their own (``constraints.link_melds``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ortools.sat.python import cp_model

from solver.rearrangement.model.cp import sum_of
from solver.rearrangement.model.data import RunKey, TurnData

# Each place's starts and ends bounded by the scarcest place of the shortest run from or to
# it (0 where none fits, ``window_caps``): the same tables; mid carrossel solves 5-19% less
# CPU (bench/HISTORY.md, "pool shapes bounded by the cards in play"). False: by the place's.
WINDOW_CAPS = True


@dataclass(frozen=True)
class RunFlow:
    """The runs of the pool along its places (index j is ``data.positions[j]``)."""

    positions: list[int]
    starts: list[cp_model.IntVar]  # runs whose first place is j
    ends: list[cp_model.IntVar]  # runs whose last place is j
    through: list[cp_model.IntVar]  # runs holding place j

    def variables(self) -> list[cp_model.IntVar]:
        return [*self.starts, *self.ends, *self.through]

    def instances(self, value: Callable[[cp_model.IntVar], int]) -> list[RunKey]:
        """The runs of a solution, first and last place each: the i-th start paired with
        the i-th end, which the model's constraints make a run of an allowed length."""
        open_runs: deque[int] = deque()
        out: list[RunKey] = []
        for p, start, end in zip(self.positions, self.starts, self.ends, strict=True):
            open_runs.extend([p] * value(start))
            for _ in range(value(end)):
                out.append((open_runs.popleft(), p, None))
        if open_runs:
            raise AssertionError(f"runs from {sorted(open_runs)} never end")
        return out


def flow_applies(data: TurnData, suits: Sequence[str | None]) -> bool:
    """Whether the pool counts its runs as a flow (the module's docstring says where)."""
    return (
        data.options.run_flow
        and tuple(suits) == (None,)
        and not data.wild_runs_possible
        and not data.linkable_runs
    )


def build_run_flow(
    m: cp_model.CpModel, data: TurnData, caps: Sequence[int]
) -> tuple[RunFlow, list[list[cp_model.IntVar]]]:
    """The flow's counts and constraints; ``caps``: the most runs each place can hold
    (its naturals, free wilds and table wilds of its value). Returns the flow and, per
    place, the runs through it (one count, as the pool's places read them)."""
    melds = data.ruleset.melds
    positions = list(data.positions)
    n = len(positions)
    start_caps, end_caps = window_caps(caps, melds.min_sequence) if WINDOW_CAPS else (caps, caps)
    through = [m.new_int_var(0, caps[j], "thru") for j in range(n)]
    starts = [m.new_int_var(0, start_caps[j], "start") for j in range(n)]
    ends = [m.new_int_var(0, end_caps[j], "end") for j in range(n)]
    for j in range(n):
        before = through[j - 1] - ends[j - 1] if j else 0
        m.add(through[j] == before + starts[j])
        # A run ending here started at least min_sequence - 1 places before.
        young = starts[max(0, j - melds.min_sequence + 2) : j + 1]
        m.add(ends[j] <= through[j] - sum_of(young))
        # And at most max_sequence - 1 places before: those that started earlier have
        # ended by now.
        oldest = j - melds.max_sequence + 1
        if oldest >= 0:
            m.add(sum_of(ends[: j + 1]) >= sum_of(starts[: oldest + 1]))
    m.add(ends[n - 1] == through[n - 1])
    return RunFlow(positions, starts, ends, through), [[t] for t in through]


def window_caps(caps: Sequence[int], shortest: int) -> tuple[list[int], list[int]]:
    """The most runs that can start and end at each place: a run from place j holds at
    least its ``shortest`` places from j, so no more start there than the scarcest of them
    can hold, and none where the line ends first (likewise for ends, backwards). The
    flow's constraints imply these bounds, but CP-SAT's propagation does not see them (it
    bounds one constraint at a time), only its linear relaxation."""
    n = len(caps)
    starts = [min(caps[j : j + shortest]) if j + shortest <= n else 0 for j in range(n)]
    ends = [min(caps[j - shortest + 1 : j + 1]) if j >= shortest - 1 else 0 for j in range(n)]
    return starts, ends
