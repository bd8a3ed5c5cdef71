"""RummyService: checks and parses each request, then hands it to its handler module.

Every position/move request is parsed *before* dispatch (``service.convert.*_call``), so a
malformed request is ``INVALID_ARGUMENT`` with field paths whether or not its RPC is
implemented yet. The work itself lives in one module per RPC under ``service/handlers/``,
each exposing ``handle(call, request, context)``, which is given the parsed request (parsing
a mid-sized position takes about half a millisecond, so it is done once).
"""

from __future__ import annotations

import grpc

from carrossel.v1 import rummy_pb2, rummy_pb2_grpc
from service import convert
from service.handlers import check_knock, score_round, solve_move, validate_move


class RummyServicer(rummy_pb2_grpc.RummyServiceServicer):
    """The four rummy RPCs; ``solver.errors.InvalidRequest`` is mapped by the interceptor."""

    def ValidateMove(
        self, request: rummy_pb2.ValidateMoveRequest, context: grpc.ServicerContext
    ) -> rummy_pb2.ValidateMoveResponse:
        return validate_move.handle(convert.validate_move_call(request), request, context)

    def SolveMove(
        self, request: rummy_pb2.SolveMoveRequest, context: grpc.ServicerContext
    ) -> rummy_pb2.SolveMoveResponse:
        return solve_move.handle(convert.solve_move_call(request), request, context)

    def CheckKnock(
        self, request: rummy_pb2.CheckKnockRequest, context: grpc.ServicerContext
    ) -> rummy_pb2.CheckKnockResponse:
        return check_knock.handle(convert.check_knock_call(request), request, context)

    def ScoreRound(
        self, request: rummy_pb2.ScoreRoundRequest, context: grpc.ServicerContext
    ) -> rummy_pb2.ScoreRoundResponse:
        # ScoreRound's fields are all top-level: its handler parses them with
        # solver.scoring.parse_round, which reports every bad field.
        return score_round.handle(request, context)
