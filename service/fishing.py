"""FishingService: every RPC answers UNIMPLEMENTED until the fishing issue lands."""

from __future__ import annotations

import grpc

from carrossel.v1 import fishing_pb2, fishing_pb2_grpc
from service.errors import abort_unimplemented

NOT_YET = "{rpc}: the fishing games are not implemented yet."


class FishingServicer(fishing_pb2_grpc.FishingServiceServicer):
    """The three fishing RPCs; none has been implemented yet."""

    def ValidatePlay(
        self, request: fishing_pb2.ValidatePlayRequest, context: grpc.ServicerContext
    ) -> fishing_pb2.ValidatePlayResponse:
        del request
        abort_unimplemented(context, NOT_YET.format(rpc="ValidatePlay"))

    def SolvePlay(
        self, request: fishing_pb2.SolvePlayRequest, context: grpc.ServicerContext
    ) -> fishing_pb2.SolvePlayResponse:
        del request
        abort_unimplemented(context, NOT_YET.format(rpc="SolvePlay"))

    def ScoreDeal(
        self, request: fishing_pb2.ScoreDealRequest, context: grpc.ServicerContext
    ) -> fishing_pb2.ScoreDealResponse:
        del request
        abort_unimplemented(context, NOT_YET.format(rpc="ScoreDeal"))
