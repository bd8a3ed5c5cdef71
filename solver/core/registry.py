"""Which family serves which RPC: the one place that answers "is this ruleset served here?".

Every ruleset belongs to a family (``Ruleset.family``); a family is served by one gRPC
service and implements some of its RPCs. The servicers and the CLI ask ``serves`` and
``not_served`` here instead of testing families themselves, so a family that lands flips
one entry below.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType

from solver.core.rulesets import Family, Ruleset


class Rpc(Enum):
    """The RPCs that take a ruleset, named as in the proto."""

    VALIDATE_MOVE = "ValidateMove"
    SOLVE_MOVE = "SolveMove"
    CHECK_KNOCK = "CheckKnock"
    SCORE_ROUND = "ScoreRound"
    VALIDATE_PLAY = "ValidatePlay"
    SOLVE_PLAY = "SolvePlay"
    SCORE_DEAL = "ScoreDeal"


@dataclass(frozen=True)
class FamilyEntry:
    """A family's service, the RPCs of it that are built, and those that make no sense for
    the family (a malformed request, with the sentence that says why)."""

    family: Family
    service: str
    rpcs: frozenset[Rpc]
    label: str  # how a message names the family
    refused: Mapping[Rpc, str] = field(default_factory=lambda: MappingProxyType({}))


_RUMMY_RPCS = frozenset({Rpc.VALIDATE_MOVE, Rpc.SOLVE_MOVE, Rpc.CHECK_KNOCK, Rpc.SCORE_ROUND})
_FISHING_RPCS = frozenset({Rpc.VALIDATE_PLAY, Rpc.SOLVE_PLAY, Rpc.SCORE_DEAL})

FAMILIES: Mapping[Family, FamilyEntry] = MappingProxyType(
    {
        Family.REARRANGEMENT: FamilyEntry(
            Family.REARRANGEMENT, "RummyService", _RUMMY_RPCS, "rearrangement rummy"
        ),
        Family.CONTRACT: FamilyEntry(
            Family.CONTRACT,
            "RummyService",
            frozenset({Rpc.VALIDATE_MOVE, Rpc.SOLVE_MOVE, Rpc.SCORE_ROUND}),
            "contract rummy",
            refused=MappingProxyType(
                {
                    Rpc.CHECK_KNOCK: "{ruleset} has no knock: a deal ends only by the discard "
                    "that empties the hand (C6; the knock is carrossel's, R10)"
                }
            ),
        ),
        Family.FISHING: FamilyEntry(Family.FISHING, "FishingService", _FISHING_RPCS, "fishing"),
    }
)

SERVICE_RPCS: Mapping[str, frozenset[Rpc]] = MappingProxyType(
    {"RummyService": _RUMMY_RPCS, "FishingService": _FISHING_RPCS}
)


def serves(ruleset: Ruleset, rpc: Rpc) -> bool:
    """Whether ``rpc`` is built for ``ruleset``'s family."""
    return rpc in FAMILIES[ruleset.family].rpcs


def served_rpcs(ruleset: Ruleset) -> tuple[Rpc, ...]:
    """The RPCs built for a ruleset, in proto order."""
    entry = FAMILIES[ruleset.family]
    return tuple(rpc for rpc in Rpc if rpc in entry.rpcs)


def service_of(ruleset: Ruleset) -> str:
    """The gRPC service that takes this ruleset's positions."""
    return FAMILIES[ruleset.family].service


def refusal(ruleset: Ruleset, rpc: Rpc) -> str | None:
    """Why ``rpc`` makes no sense for ``ruleset`` (a sentence: the request is malformed),
    or None. Carioca has no knock, so CheckKnock is refused, not unimplemented."""
    reason = FAMILIES[ruleset.family].refused.get(rpc)
    return reason.format(ruleset=ruleset.id) if reason is not None else None


def not_served(ruleset: Ruleset, rpc: Rpc) -> str | None:
    """Why ``rpc`` does not answer for ``ruleset`` (a sentence), or None when it does."""
    if serves(ruleset, rpc):
        return None
    entry = FAMILIES[ruleset.family]
    if rpc not in SERVICE_RPCS[entry.service]:
        return f"{ruleset.id} is a {entry.label} game: use {entry.service}"
    built = [r for r in Rpc if serves_family(ruleset.family, r)]
    also = f" ({', '.join(r.value for r in built)} is)" if built else ""
    return f"{rpc.value} for {ruleset.id} ({entry.label}) is not implemented yet{also}."


def serves_family(family: Family, rpc: Rpc) -> bool:
    """Whether ``rpc`` is built for a family."""
    return rpc in FAMILIES[family].rpcs
