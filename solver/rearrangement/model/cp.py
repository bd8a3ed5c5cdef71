"""A CP-SAT model made for building many small models fast, and a one-call sum."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Generic, TypeVar

from ortools.sat.python import cp_model, cp_model_helper
from ortools.util.python.sorted_interval_list import Domain


class FastCpModel(cp_model.CpModel):
    """A CpModel without the camelCase aliases of its methods and without variable names:
    making the aliases costs a tenth of building a small model and storing names half of
    each new variable, and nothing here reads either. Objectives are written in bulk and
    clones are of this class (tests/test_model_builder.py checks both against the base
    class)."""

    def __init__(self) -> None:
        super().__init__()
        # A property of the C++ base, a quarter of a new variable's cost: read once.
        self._var_proto = self.model_proto

    def _add_pre_pep8_methods(self) -> None:
        pass

    def new_int_var(
        self, lb: cp_model.IntegralT, ub: cp_model.IntegralT, name: str
    ) -> cp_model.IntVar:
        domain = _DOMAINS.get((lb, ub))
        if domain is None:
            domain = _DOMAINS[(lb, ub)] = Domain(lb, ub)
        return cp_model.IntVar(self._var_proto).with_domain(domain)

    def new_bool_var(self, name: str) -> cp_model.IntVar:
        return cp_model.IntVar(self._var_proto).with_domain(_BOOL)

    def clone(self) -> FastCpModel:
        # The base class clones into a plain CpModel, which makes the aliases again.
        copy = FastCpModel()
        copy.proto.copy_from(self.proto)
        copy.rebuild_constant_map()
        return copy

    def _set_objective(self, obj: cp_model.ObjLinearExprT, maximize: bool) -> None:
        # The base class writes the objective term by term through the proto wrapper, a
        # slow path for a weighted objective of many terms: here, two extends.
        if not isinstance(obj, cp_model.LinearExpr) or not obj.is_integer():
            super()._set_objective(obj, maximize)
            return
        self.model_proto.clear_objective()
        self.model_proto.clear_floating_point_objective()
        flat = cp_model_helper.FlatIntExpr(obj)
        sign = -1 if maximize else 1
        objective = self.model_proto.objective
        objective.vars.extend([v.index for v in flat.vars])
        objective.coeffs.extend([sign * c for c in flat.coeffs])
        objective.offset = sign * flat.offset
        objective.scaling_factor = float(sign)


# Domains are immutable and a model's bounds are few: made once, not once per variable.
_DOMAINS: dict[tuple[cp_model.IntegralT, cp_model.IntegralT], Domain] = {}
_BOOL = Domain(0, 1)


def sum_of(terms: Iterable[cp_model.LinearExprT]) -> cp_model.LinearExpr:
    """A sum built in one call (Python's ``sum`` nests one expression per term)."""
    return cp_model.LinearExpr.sum(list(terms))


Scratch = TypeVar("Scratch")


def thread_scratch(store: threading.local, owner: object, make: Callable[[], Scratch]) -> Scratch:
    """This thread's own object for ``owner``, made on its first use (e.g. a copy of a model
    built once that each thread patches without a lock). Held with its owner, so a new
    owner at a reused id gets a new one."""
    own: dict[int, tuple[object, Scratch]] = store.__dict__.setdefault("by_owner", {})
    held = own.get(id(owner))
    if held is None or held[0] is not owner:
        held = own[id(owner)] = (owner, make())
    return held[1]


Key = TypeVar("Key", bound=Hashable)


class CountsScratch(Generic[Key]):
    """A thread's own copy of a model built once for a whole deck, on which a position
    writes its counts: per key (a card), a hand count's upper bound and a row's right-hand
    side (its copies on the table). Bounds and rows are wrapped once, so a write is one call
    into OR-Tools, not a walk from the model's proto; only the numbers that differ from the
    last position's are written. Nothing is ever added to the copy, so the wrappers stay
    valid."""

    def __init__(self, base: FastCpModel, bounds: Mapping[Key, int], rows: Mapping[Key, int]):
        self.model = base.clone()
        proto = self.model.proto
        self._bounds = {k: proto.variables[i].domain for k, i in bounds.items()}
        self._rows = {k: proto.constraints[j].linear.domain for k, j in rows.items()}
        # The numbers written, where not 0 (none at first: the base's zeros); None: unknown,
        # after a write that stopped part-way, so the next one writes every key again.
        self._upper: dict[Key, int] | None = {}
        self._sides: dict[Key, int] | None = {}

    def write(self, upper: Mapping[Key, int], sides: Mapping[Key, int]) -> FastCpModel:
        """Each key's bound (0 where ``upper`` has none) and each row's right-hand side (0
        where ``sides`` has none)."""
        was_upper = dict.fromkeys(self._bounds, -1) if self._upper is None else self._upper
        was_sides = dict.fromkeys(self._rows, -1) if self._sides is None else self._sides
        self._upper = self._sides = None
        for key in was_upper.keys() - upper.keys():
            self._bounds[key][1] = 0
        for key, n in upper.items():
            if was_upper.get(key) != n:
                self._bounds[key][1] = n
        for key in was_sides.keys() - sides.keys():
            row = self._rows[key]
            row[0] = row[1] = 0
        for key, n in sides.items():
            if was_sides.get(key) != n:
                row = self._rows[key]
                row[0] = row[1] = n
        self._upper, self._sides = dict(upper), dict(sides)
        return self.model
