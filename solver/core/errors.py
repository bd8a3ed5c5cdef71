"""Error types: "I cannot parse this" versus "this request is impossible".

An illegal *move* is never an exception: it is a normal answer with violations
(see ``solver.core.violations``). Exceptions here mean the request itself is malformed.
"""

from __future__ import annotations

from dataclasses import dataclass


class NotationError(ValueError):
    """A card code that cannot be parsed; the message quotes the text."""

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(f"{text!r}: {reason}")
        self.text = text
        self.reason = reason


@dataclass(frozen=True)
class FieldProblem:
    """One bad field of a request: a path such as ``table[2].cards[1]`` and a sentence."""

    field: str
    description: str

    def prefixed(self, prefix: str) -> FieldProblem:
        """The same problem with the path placed under ``prefix`` (e.g. ``position``)."""
        if not prefix:
            return self
        joined = f"{prefix}.{self.field}" if self.field else prefix
        return FieldProblem(joined, self.description)


class InvalidRequest(ValueError):
    """A malformed request: every bad field is listed, not just the first."""

    def __init__(self, problems: list[FieldProblem]) -> None:
        if not problems:
            raise ValueError("InvalidRequest needs at least one problem")
        super().__init__("; ".join(f"{p.field}: {p.description}" for p in problems))
        self.problems = list(problems)

    def prefixed(self, prefix: str) -> InvalidRequest:
        """The same error with every path placed under ``prefix``."""
        return InvalidRequest([p.prefixed(prefix) for p in self.problems])


class ProblemCollector:
    """Gathers field problems so that a check reports all of them at once."""

    def __init__(self) -> None:
        self.problems: list[FieldProblem] = []

    def add(self, field: str, description: str) -> None:
        self.problems.append(FieldProblem(field, description))

    def extend(self, error: InvalidRequest, prefix: str = "") -> None:
        self.problems.extend(p.prefixed(prefix) for p in error.problems)

    def raise_if_any(self) -> None:
        if self.problems:
            raise InvalidRequest(self.problems)
