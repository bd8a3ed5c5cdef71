"""FishingService: carosello, carrusel and karusele (rulings F1-F10).

Each request is parsed first (``service.fishing.convert``), so a malformed one is
``INVALID_ARGUMENT`` with field paths; the work lives in one handler module per RPC.
"""

from __future__ import annotations

import grpc

from carrossel.v1 import fishing_pb2, fishing_pb2_grpc
from service.fishing import score_deal, solve_play, validate_play


class FishingServicer(fishing_pb2_grpc.FishingServiceServicer):
    """The three fishing RPCs; ``InvalidRequest`` is mapped by the interceptor."""

    def ValidatePlay(
        self, request: fishing_pb2.ValidatePlayRequest, context: grpc.ServicerContext
    ) -> fishing_pb2.ValidatePlayResponse:
        return validate_play.handle(request, context)

    def SolvePlay(
        self, request: fishing_pb2.SolvePlayRequest, context: grpc.ServicerContext
    ) -> fishing_pb2.SolvePlayResponse:
        return solve_play.handle(request, context)

    def ScoreDeal(
        self, request: fishing_pb2.ScoreDealRequest, context: grpc.ServicerContext
    ) -> fishing_pb2.ScoreDealResponse:
        return score_deal.handle(request)


__all__ = ["FishingServicer"]
