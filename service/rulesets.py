"""RulesetService: every ruleset of SPEC §1, straight from ``solver.rulesets``."""

from __future__ import annotations

import grpc

from carrossel.v1 import rulesets_pb2, rulesets_pb2_grpc
from service.convert import ruleset_to_proto
from solver.rulesets import RULESETS


class RulesetServicer(rulesets_pb2_grpc.RulesetServiceServicer):
    """Serves the rulesets; they are data, so the answer is built once."""

    def __init__(self) -> None:
        self._response = rulesets_pb2.ListRulesetsResponse(
            rulesets=[ruleset_to_proto(r) for r in RULESETS.values()]
        )

    def ListRulesets(
        self, request: rulesets_pb2.ListRulesetsRequest, context: grpc.ServicerContext
    ) -> rulesets_pb2.ListRulesetsResponse:
        del request, context
        return self._response
