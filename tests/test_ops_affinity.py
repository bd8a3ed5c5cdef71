"""The call path on one core (service/affinity.py): grpcio's threads and the cheap calls'
threads keep to one core, searches use every core, and ``--no-pin-calls`` pins nothing."""

from __future__ import annotations

import argparse
import dataclasses
import os
import threading
from collections.abc import Callable
from typing import TypeVar

import pytest

from carrossel.v1 import rummy_pb2_grpc
from service import affinity, serve_flags
from service.server import ServeOptions
from tests.ops_helpers import CARROSSEL_MOVE, own_server

T = TypeVar("T")

USABLE = frozenset(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else frozenset()
needs_two_cores = pytest.mark.skipif(len(USABLE) < 2, reason="pinning needs two usable cores")


def _in_a_thread(probe: Callable[[], T]) -> T:
    """``probe``'s answer, run in a thread started here (it inherits this thread's cores)."""
    answer: list[T] = []
    thread = threading.Thread(target=lambda: answer.append(probe()))
    thread.start()
    thread.join()
    return answer[0]


def test_each_worker_process_takes_the_next_usable_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {5, 2})
    assert [affinity.calls_core(k) for k in range(3)] == [2, 5, 2]


def test_one_usable_core_pins_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3})
    assert affinity.calls_core(0) is None


@needs_two_cores
def test_threads_started_while_built_keep_the_core_and_the_builder_gets_its_own_back() -> None:
    core = min(USABLE)
    with affinity.pinned_while_built(core):
        started_inside = _in_a_thread(lambda: os.sched_getaffinity(0))
    assert started_inside == {core}
    assert os.sched_getaffinity(0) == USABLE


@needs_two_cores
def test_a_search_on_a_pinned_thread_uses_every_core_then_the_thread_goes_back() -> None:
    def probe() -> tuple[set[int], set[int], set[int]]:
        pinned = os.sched_getaffinity(0)
        with affinity.every_core_while():
            searching = os.sched_getaffinity(0)
        return pinned, searching, os.sched_getaffinity(0)

    with affinity.pinned_while_built(min(USABLE)):
        pinned, searching, after = _in_a_thread(probe)
    assert pinned == after == {min(USABLE)}
    assert searching == USABLE


@needs_two_cores
def test_a_solve_thread_starts_on_every_core() -> None:
    def probe() -> set[int]:
        affinity.use_every_core()
        return os.sched_getaffinity(0)

    with affinity.pinned_while_built(min(USABLE)):
        assert _in_a_thread(probe) == USABLE


def _calls_thread_cores(options: ServeOptions) -> set[int]:
    """The cores of the calls lane's only thread, started by grpcio's polling thread for a
    real ValidateMove call."""
    import grpc

    with own_server(options) as server:
        with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            assert rummy_pb2_grpc.RummyServiceStub(channel).ValidateMove(CARROSSEL_MOVE).legal
        cores: set[int] = server.capacity.calls.pool.submit(os.sched_getaffinity, 0).result()
    return cores


@needs_two_cores
def test_a_served_call_runs_on_its_process_core() -> None:
    pinned = ServeOptions(max_workers=1, pin_calls=True)
    assert _calls_thread_cores(pinned) == {affinity.calls_core(0)}
    second = _calls_thread_cores(dataclasses.replace(pinned, worker_index=1))
    assert second == {affinity.calls_core(1)} != {affinity.calls_core(0)}


@needs_two_cores
def test_no_pin_calls_leaves_every_core() -> None:
    """Off by default for a server built in-process (tests, embedders): ``carrossel serve``
    turns it on unless told ``--no-pin-calls``."""
    assert _calls_thread_cores(ServeOptions(max_workers=1)) == USABLE


def test_the_serve_flag_turns_pinning_on_or_off_or_leaves_it_to_the_cores() -> None:
    parser = argparse.ArgumentParser()
    serve_flags.add_arguments(parser)
    assert serve_flags.options_from_args(parser.parse_args([])).pin_calls is None
    assert serve_flags.options_from_args(parser.parse_args(["--pin-calls"])).pin_calls
    assert serve_flags.options_from_args(parser.parse_args(["--no-pin-calls"])).pin_calls is False


def test_by_default_only_a_server_with_its_cores_to_itself_pins() -> None:
    """One process per usable core (``serve``'s default on a machine of its own) pins; one
    process on a many-core host, as a pod on a shared node runs, does not: every such server
    would pin its call path to the same first core."""
    usable = len(os.sched_getaffinity(0))
    assert affinity.pins_calls(None, usable)
    assert not affinity.pins_calls(None, usable + 1)
    if usable > 1:
        assert not affinity.pins_calls(None, 1)
    assert affinity.pins_calls(True, 1) and not affinity.pins_calls(False, usable)
