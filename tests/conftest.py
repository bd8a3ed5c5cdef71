"""Shared fixtures: one real in-process server on a free port, and client stubs for it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")  # keep grpc core's INFO lines out of test output

import grpc
import pytest

from carrossel.v1 import fishing_pb2_grpc, rulesets_pb2_grpc, rummy_pb2_grpc
from service.server import build_server

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def server_port() -> Iterator[int]:
    """A started server on 127.0.0.1 with a port picked by the OS."""
    built = build_server("127.0.0.1:0")
    yield built.port
    built.stop(grace=None)


@pytest.fixture(scope="session")
def channel(server_port: int) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(f"127.0.0.1:{server_port}") as chan:
        grpc.channel_ready_future(chan).result(timeout=10)
        yield chan


@pytest.fixture(scope="session")
def rulesets_stub(channel: grpc.Channel) -> rulesets_pb2_grpc.RulesetServiceStub:
    return rulesets_pb2_grpc.RulesetServiceStub(channel)


@pytest.fixture(scope="session")
def rummy_stub(channel: grpc.Channel) -> rummy_pb2_grpc.RummyServiceStub:
    return rummy_pb2_grpc.RummyServiceStub(channel)


@pytest.fixture(scope="session")
def fishing_stub(channel: grpc.Channel) -> fishing_pb2_grpc.FishingServiceStub:
    return fishing_pb2_grpc.FishingServiceStub(channel)
