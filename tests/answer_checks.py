"""What every move and witness the service returns must pass, judged by ValidateMove itself
through gRPC: shared by the fuzz test and the optima test."""

from __future__ import annotations

from carrossel.v1 import rummy_pb2, rummy_pb2_grpc

DEADLINE_S = 60  # far above any solve's time: only a hang reaches it


def judge(
    stub: rummy_pb2_grpc.RummyServiceStub,
    position: rummy_pb2.RummyPosition,
    move: rummy_pb2.RummyMove,
) -> rummy_pb2.ValidateMoveResponse:
    request = rummy_pb2.ValidateMoveRequest(position=position, move=move)
    verdict: rummy_pb2.ValidateMoveResponse = stub.ValidateMove(request, timeout=DEADLINE_S)
    return verdict


def effects_problems(
    what: str, solved: rummy_pb2.SolvedMove, verdict: rummy_pb2.ValidateMoveResponse
) -> list[str]:
    """A solved move is legal, with the effects ValidateMove gives it."""
    if not verdict.legal:
        return [f"{what} is illegal: {verdict.violations}"]
    effects = (
        sorted(solved.played),
        sorted(solved.hand_after),
        solved.hand_points_after,
        solved.went_out,
        solved.knock_eligible,
    )
    judged = (
        sorted(verdict.played),
        sorted(verdict.hand_after),
        verdict.hand_points_after,
        verdict.went_out,
        verdict.knock_eligible,
    )
    if effects != judged:
        return [f"{what}: effects {effects}, ValidateMove says {judged}"]
    return []


def witness_problems(
    stub: rummy_pb2_grpc.RummyServiceStub,
    position: rummy_pb2.RummyPosition,
    response: rummy_pb2.CheckKnockResponse,
) -> list[str]:
    """CheckKnock's witness (where there is one) is legal and leaves best_hand_points."""
    if not response.HasField("witness"):
        return []
    verdict = judge(stub, position, response.witness)
    if not verdict.legal:
        return [f"the witness is illegal: {verdict.violations}"]
    if verdict.hand_points_after != response.best_hand_points:
        return [
            f"the witness leaves {verdict.hand_points_after} points, "
            f"best_hand_points says {response.best_hand_points}"
        ]
    return []
