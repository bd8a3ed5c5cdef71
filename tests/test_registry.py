"""The registry is the one place that says which family serves which RPC, and the server
answers exactly as it says: a served RPC never answers UNIMPLEMENTED, an unserved one always
does (with the registry's sentence), and a ruleset of another service's family is a malformed
request naming the service to use."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from carrossel.v1 import rummy_pb2
from solver.core.registry import (
    FAMILIES,
    SERVICE_RPCS,
    Rpc,
    not_served,
    refusal,
    served_rpcs,
    serves,
)
from solver.core.rulesets import RULESETS, Family, Ruleset


def _position(ruleset: Ruleset) -> rummy_pb2.RummyPosition:
    """A well-formed position of any rummy ruleset: an empty table and one card in hand."""
    return rummy_pb2.RummyPosition(
        ruleset=ruleset.id,
        players=2,
        hand=["5H"],
        turn=rummy_pb2.Turn(cards_drawn=1, deal_number=1 if ruleset.contract_rules else 0),
    )


def _requests(ruleset: Ruleset) -> dict[Rpc, tuple[str, Any]]:
    position = _position(ruleset)
    return {
        Rpc.VALIDATE_MOVE: (
            "ValidateMove",
            rummy_pb2.ValidateMoveRequest(position=position, move=rummy_pb2.RummyMove()),
        ),
        Rpc.SOLVE_MOVE: ("SolveMove", rummy_pb2.SolveMoveRequest(position=position)),
        Rpc.CHECK_KNOCK: ("CheckKnock", rummy_pb2.CheckKnockRequest(position=position)),
        Rpc.SCORE_ROUND: (
            "ScoreRound",
            rummy_pb2.ScoreRoundRequest(
                ruleset=ruleset.id,
                players=2,
                end=rummy_pb2.ROUND_END_WENT_OUT,
                ender=0,
                hands=[rummy_pb2.Hand(), rummy_pb2.Hand(cards=["KS"])],
                deal_number=1 if ruleset.contract_rules else 0,
            ),
        ),
    }


def _status(call: Any, request: Any) -> tuple[grpc.StatusCode, str]:
    try:
        call(request, timeout=20)
    except grpc.RpcError as error:
        return error.code(), error.details() or ""
    return grpc.StatusCode.OK, ""


RUMMY_CASES = [
    (ruleset, rpc)
    for ruleset in RULESETS.values()
    if ruleset.family is not Family.FISHING
    for rpc in sorted(SERVICE_RPCS["RummyService"], key=lambda r: r.value)
]


@pytest.mark.parametrize(
    ("ruleset", "rpc"), RUMMY_CASES, ids=[f"{r.id}-{rpc.value}" for r, rpc in RUMMY_CASES]
)
def test_rummy_service_answers_as_the_registry_says(
    rummy_stub: Any, ruleset: Ruleset, rpc: Rpc
) -> None:
    method, request = _requests(ruleset)[rpc]
    code, details = _status(getattr(rummy_stub, method), request)
    if serves(ruleset, rpc):
        assert code is not grpc.StatusCode.UNIMPLEMENTED, details
    elif reason := refusal(ruleset, rpc):  # carioca's CheckKnock: there is no knock (C6)
        assert code is grpc.StatusCode.INVALID_ARGUMENT
        assert reason in details
    else:
        assert code is grpc.StatusCode.UNIMPLEMENTED
        assert details == not_served(ruleset, rpc)


@pytest.mark.parametrize("ruleset", [r for r in RULESETS.values() if r.family is Family.FISHING])
def test_a_fishing_ruleset_on_rummy_service_names_the_service_to_use(
    rummy_stub: Any, ruleset: Ruleset
) -> None:
    """A fishing position on RummyService is a malformed request (SPEC §5), not a missing RPC."""
    method, request = _requests(ruleset)[Rpc.VALIDATE_MOVE]
    code, details = _status(getattr(rummy_stub, method), request)
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert "use FishingService" in details


def test_every_family_has_an_entry_and_serves_only_its_services_rpcs() -> None:
    assert set(FAMILIES) == set(Family)
    for entry in FAMILIES.values():
        assert entry.rpcs <= SERVICE_RPCS[entry.service]


def test_served_rpcs_are_listed_in_proto_order() -> None:
    carrossel = RULESETS["carrossel"]
    assert served_rpcs(carrossel) == (
        Rpc.VALIDATE_MOVE,
        Rpc.SOLVE_MOVE,
        Rpc.CHECK_KNOCK,
        Rpc.SCORE_ROUND,
    )


def test_another_services_rpc_is_named_with_the_service_to_use() -> None:
    reason = not_served(RULESETS["carosello"], Rpc.VALIDATE_MOVE)
    assert reason == "carosello is a fishing game: use FishingService"
    assert not_served(RULESETS["carrossel"], Rpc.VALIDATE_MOVE) is None


def test_fishing_rulesets_are_served_by_fishing_service() -> None:
    for ruleset in (r for r in RULESETS.values() if r.family is Family.FISHING):
        assert served_rpcs(ruleset) == (Rpc.VALIDATE_PLAY, Rpc.SOLVE_PLAY, Rpc.SCORE_DEAL)
        assert not_served(ruleset, Rpc.SOLVE_PLAY) is None
