"""RummyService: checks and parses each request, then hands it to its handler module.

Every position/move request is parsed *before* dispatch (``convert.*_call``), so a malformed
request is ``INVALID_ARGUMENT`` with field paths whether or not its RPC is built for the
ruleset. Whether a ruleset's family has the RPC is the registry's answer
(``solver.core.registry``): an RPC the family refuses (carioca's CheckKnock: no knock) is
``INVALID_ARGUMENT``, one not built yet UNIMPLEMENTED, here, before any handler runs. The
contract family's ValidateMove and SolveMove are handled in ``service.rummy.contract``. Each
RPC's work lives in its own module in this package, ``handle(call, request, context)``, given
the parsed request (parsing a mid-sized position takes about half a millisecond: done once).
"""

from __future__ import annotations

import grpc

from carrossel.v1 import rummy_pb2, rummy_pb2_grpc
from service.errors import abort_unimplemented
from service.rummy import check_knock, contract, convert, score_round, solve_move, validate_move
from solver.core.errors import FieldProblem, InvalidRequest
from solver.core.registry import Rpc, not_served, refusal
from solver.core.rulesets import Family


def _served(call: convert.RummyCall, rpc: Rpc, context: grpc.ServicerContext) -> convert.RummyCall:
    """The parsed call, once the registry says its ruleset has ``rpc``; an RPC that makes no
    sense for the family (carioca's CheckKnock) is a malformed request, one not built yet
    UNIMPLEMENTED."""
    if reason := refusal(call.position.ruleset, rpc):
        raise InvalidRequest([FieldProblem("position.ruleset", reason)])
    if reason := not_served(call.position.ruleset, rpc):
        abort_unimplemented(context, reason)
    return call


def _is_contract(call: convert.RummyCall) -> bool:
    return call.position.ruleset.family is Family.CONTRACT


class RummyServicer(rummy_pb2_grpc.RummyServiceServicer):
    """The four rummy RPCs; ``solver.core.errors.InvalidRequest`` is mapped by the interceptor."""

    def ValidateMove(
        self, request: rummy_pb2.ValidateMoveRequest, context: grpc.ServicerContext
    ) -> rummy_pb2.ValidateMoveResponse:
        call = _served(convert.validate_move_call(request), Rpc.VALIDATE_MOVE, context)
        if _is_contract(call):
            return contract.validate(call, request, context)
        return validate_move.handle(call, request, context)

    def SolveMove(
        self, request: rummy_pb2.SolveMoveRequest, context: grpc.ServicerContext
    ) -> rummy_pb2.SolveMoveResponse:
        call = _served(convert.solve_move_call(request), Rpc.SOLVE_MOVE, context)
        if _is_contract(call):
            return contract.solve(call, request, context)
        return solve_move.handle(call, request, context)

    def CheckKnock(
        self, request: rummy_pb2.CheckKnockRequest, context: grpc.ServicerContext
    ) -> rummy_pb2.CheckKnockResponse:
        call = _served(convert.check_knock_call(request), Rpc.CHECK_KNOCK, context)
        return check_knock.handle(call, request, context)

    def ScoreRound(
        self, request: rummy_pb2.ScoreRoundRequest, context: grpc.ServicerContext
    ) -> rummy_pb2.ScoreRoundResponse:
        # ScoreRound's fields are all top-level: its handler parses them with
        # solver.rummy.scoring.parse_round, which reports every bad field.
        return score_round.handle(request, context)
