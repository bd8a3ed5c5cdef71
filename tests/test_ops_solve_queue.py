"""SPEC §5 (overload answers RESOURCE_EXHAUSTED, never a crash; the deadline bounds a call),
issue 51 with 52's guarantees: a solve beyond the running ones waits its turn in a short
queue, bounded by its deadline and the queue's length, and the cheap calls never wait
behind solves (``service.limits.SolveSlots``, the ``solves`` lane of ``service.capacity``).

Before, a process ran 4 solves and refused the fifth at once: 16 clients saw SolveMove
refused hundreds of times a minute. Now the fifth waits; what cannot be served in time is
still refused at once with a retry hint.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from carrossel.v1 import rummy_pb2, rummy_pb2_grpc
from service import capacity, limits
from service import cores as service_cores
from service.server import CarrosselServer, ServeOptions
from tests.ops_helpers import CARROSSEL_MOVE, error_of, own_server, retry_delay_s

SOLVE = rummy_pb2.SolveMoveRequest(position=CARROSSEL_MOVE.position)


def _until(condition: Callable[[], bool], within_s: float = 10.0) -> None:
    deadline = time.monotonic() + within_s
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.01)


Served = tuple[CarrosselServer, rummy_pb2_grpc.RummyServiceStub]


@contextmanager
def _one_held_slot(queue: int) -> Iterator[Served]:
    """A server with one solve slot, held by the test, a queue of ``queue`` and one thread
    for the cheap calls."""
    options = ServeOptions(max_workers=1, max_concurrent_solves=1, solve_queue=queue)
    with (
        own_server(options) as server,
        grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel,
    ):
        slots = limits.solve_slots()
        assert (slots.limit, slots.queue) == (1, queue)
        assert slots.try_acquire()
        try:
            yield server, rummy_pb2_grpc.RummyServiceStub(channel)
        finally:
            slots.release()


def test_a_solve_waits_for_a_busy_slot_and_runs_when_it_frees() -> None:
    with _one_held_slot(queue=2) as (_, stub):
        waiting = stub.SolveMove.future(SOLVE, timeout=20)
        _until(lambda: limits.solve_slots().waiting == 1)
        assert not waiting.done()
        limits.solve_slots().release()  # the held slot goes to the waiting solve
        assert waiting.result().moves
        assert limits.solve_slots().try_acquire()  # given back when it ended; held again


def test_a_solve_beyond_the_queue_is_refused_at_once_with_a_retry_hint() -> None:
    with _one_held_slot(queue=1) as (_, stub):
        first = stub.SolveMove.future(SOLVE, timeout=20)
        _until(lambda: limits.solve_slots().waiting == 1)
        error = error_of(stub.SolveMove, SOLVE, timeout=20)
        assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "1 more wait" in (error.details() or "")
        assert (retry_delay_s(error) or 0) > 0
        assert not first.done()  # refused while the queue was full, not after a wait
        first.cancel()


def test_a_solve_that_could_not_start_before_its_deadline_is_refused_at_once() -> None:
    """Solves have lately held their slot 10 s: one with a 2 s deadline behind a busy slot
    is refused before it waits (the queue stays empty)."""
    with _one_held_slot(queue=4) as (_, stub):
        slots = limits.solve_slots()
        slots.release(held_s=50.0)  # the mean moves a fifth of the way: 10 s
        assert slots.try_acquire()
        error = error_of(stub.SolveMove, SOLVE, timeout=2)
        assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "before its deadline" in (error.details() or "")
        assert (retry_delay_s(error) or 0) > 0
        assert slots.waiting == 0


def test_a_waiting_solve_whose_client_leaves_gives_its_place_up() -> None:
    with _one_held_slot(queue=1) as (_, stub):
        waiting = stub.SolveMove.future(SOLVE, timeout=20)
        _until(lambda: limits.solve_slots().waiting == 1)
        waiting.cancel()
        _until(lambda: limits.solve_slots().waiting == 0)
        # Its place is free again: the next solve waits instead of being refused.
        second = stub.SolveMove.future(SOLVE, timeout=20)
        _until(lambda: limits.solve_slots().waiting == 1)
        limits.solve_slots().release()
        assert second.result().moves
        assert limits.solve_slots().try_acquire()


def test_cheap_calls_and_health_never_wait_behind_solves() -> None:
    """One thread for cheap calls, the one slot busy and two solves waiting: ValidateMove
    and Health/Check are answered at once (before, solves ran on the calls' threads)."""
    with _one_held_slot(queue=2) as (server, stub):
        waiting = [stub.SolveMove.future(SOLVE, timeout=20) for _ in range(2)]
        _until(lambda: limits.solve_slots().waiting == 2)
        assert server.capacity.solves.pool.load == 2
        assert server.capacity.calls.pool.load == 0
        assert stub.ValidateMove(CARROSSEL_MOVE, timeout=5).legal
        channel = grpc.insecure_channel(f"127.0.0.1:{server.port}")
        with channel:
            health = health_pb2_grpc.HealthStub(channel)
            reply = health.Check(health_pb2.HealthCheckRequest(), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        limits.solve_slots().release()
        assert all(future.result().moves for future in waiting)
        assert limits.solve_slots().try_acquire()


@pytest.mark.parametrize(("processes", "cores", "slots"), [(1, 2, 2), (2, 2, 1), (4, 2, 1)])
def test_by_default_each_core_runs_one_solve(
    monkeypatch: pytest.MonkeyPatch, processes: int, cores: int, slots: int
) -> None:
    monkeypatch.setattr("service.cores.os.sched_getaffinity", lambda pid: set(range(cores)))
    monkeypatch.setattr(service_cores, "cgroup_cpu_quota", lambda: None)
    assert limits.default_concurrent_solves(processes) == slots


def test_solves_run_on_nicer_threads_than_the_cheap_calls() -> None:
    """The OS schedules a cheap call before a solve when both want a core (Linux: per
    thread nice values)."""
    with own_server() as server:

        def nice() -> int:
            return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

        cheap = server.capacity.calls.pool.submit(nice).result()
        solve = server.capacity.solves.pool.submit(nice).result()
        assert solve == min(cheap + capacity.SOLVE_THREAD_NICE, 19)
