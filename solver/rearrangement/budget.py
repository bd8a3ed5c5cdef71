"""The time and work a request's solves may take, and what they did (``SolveStats``).

Work limits are in CP-SAT's deterministic time, which is load-independent: the same request
gets the same answer. The clock only stops what the work limits did not.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from ortools.sat.python import cp_model

from solver.core import cancel


class Budget:
    def __init__(self, time_limit_ms: int) -> None:
        self.deadline = time.monotonic() + max(time_limit_ms, 1) / 1000.0
        self.optimal = True
        self.conflicts = 0
        self.branches = 0
        self.solves = 0
        self.tie_break_proved: bool | None = None  # set by the first lexicographic solve
        # Work limits keep answers deterministic; the clock does not (SolveStats).
        self.time_limited = False

    def solver(
        self,
        share: float = 1.0,
        work: float | None = None,
        lean: bool = False,
        whole_lp: bool | None = None,
        probing: bool = False,
        cuts: bool = True,
    ) -> cp_model.CpSolver:
        """A solver bounded by ``share`` of the time left and by ``work`` (deterministic).

        ``lean``: no presolve, no cutting planes and no SAT inprocessing. On models this
        small they cost more than they save in the searches that mostly look for solutions:
        the weighted solve of rummikub, the tie-break, and the primary's first and last tries
        (``tries.solve_primary``). ``whole_lp`` (by default, where lean): the linear relaxation
        holds every constraint from the start, not only the violated ones. Its bound halves
        rummikub's solves with a joker in the hand, but the tie-break finds tables sooner
        without it (bench/, docs/solver.md). ``probing``: CP-SAT probes its boolean
        variables (level 2) although presolve is off (``tries.solve_primary``). ``cuts``
        (the usual search; lean has none): CP-SAT's cutting planes (``tries._tie_break``).
        """
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = max(self.deadline - time.monotonic(), 0.001) * share
        if work is not None:
            solver.parameters.max_deterministic_time = work
        solver.parameters.random_seed = 0
        solver.parameters.num_workers = 1  # deterministic: same request, same answer
        # CP-SAT's own SIGINT handler is left at the default action after a solve, so the
        # server's Ctrl-C would kill it instead of stopping it gracefully.
        solver.parameters.catch_sigint_signal = False
        cancel.watch(solver)  # a caller that gives up stops this solve (solver/core/cancel.py)
        # These models are a few hundred variables: one presolve pass without probing or
        # symmetry detection halves the median solve and bounds the slow tail (bench/).
        solver.parameters.max_presolve_iterations = 1
        solver.parameters.cp_model_probing_level = 2 if probing else 0
        solver.parameters.symmetry_level = 0
        if lean:
            solver.parameters.cp_model_presolve = False
            solver.parameters.cut_level = 0
            solver.parameters.use_sat_inprocessing = False
        elif not cuts:
            solver.parameters.cut_level = 0
        if whole_lp is None:
            whole_lp = lean
        if whole_lp:
            solver.parameters.add_lp_constraints_lazily = False
        return solver

    @contextmanager
    def part(self, share: float) -> Iterator[None]:
        """Within the block, the time left ends after ``share`` of it: a question asked
        first must leave time for those that come after it."""
        deadline = self.deadline
        self.deadline = time.monotonic() + max(deadline - time.monotonic(), 0.0) * share
        try:
            yield
        finally:
            self.deadline = deadline

    def settle_tie_break(self, proved: bool) -> None:
        """Whether the best move's tie-break was proved (the first answer's is reported)."""
        if self.tie_break_proved is None:
            self.tie_break_proved = proved

    def record(
        self,
        solver: cp_model.CpSolver,
        status: cp_model.CpSolverStatus,
        primary: bool = True,
        proved: bool | None = None,
    ) -> None:
        """Count a solve; a primary one also says whether it was proved (``proved``
        overrides what the status says)."""
        # A solve stopped by its caller ends the search here, before any Python work that
        # would lead to the next solver (a cancelled rehearsal's core is wanted at once).
        cancel.check()
        self.solves += 1
        self.conflicts += int(solver.num_conflicts)
        self.branches += int(solver.num_branches)
        if status in (cp_model.FEASIBLE, cp_model.UNKNOWN) and (
            solver.deterministic_time < solver.parameters.max_deterministic_time
        ):
            # Stopped by neither an answer nor its work: by the clock.
            self.time_limited = True
        if not primary:
            return
        if proved is None:
            proved = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
        if not proved:
            self.optimal = False
