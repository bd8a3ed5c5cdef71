"""Issue 51: the solves lane's warm thread (``service.keep_warm``).

Between a client's calls it solves the last SolveMove again, answer thrown away, so the next
call runs on a core whose caches hold the solve; a call handed to it stops the rehearsal at
once. These tests check what must hold whatever the timing: calls still get their own
answers, a rehearsal never delays a call by its whole solve, it runs only within its window
and on a spare core, and an idle or stopped server rehearses nothing.
"""

from __future__ import annotations

import argparse
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
from ortools.sat.python import cp_model
from prometheus_client import REGISTRY

from bench.over_grpc import solve_move_request
from bench.positions import bench_positions
from carrossel.v1 import rummy_pb2, rummy_pb2_grpc
from service import capacity, cores, keep_warm, serve_flags
from service.server import ServeOptions
from solver.core import cancel
from solver.rearrangement.budget import Budget
from solver.rearrangement.search import Objective
from tests.ops_helpers import own_server

LIVENESS_S = 20.0
"""How long a test waits for something that must happen (a loaded CI machine is slow; the
thing itself takes milliseconds). Reaching it is a failure, not a timing."""


def _until(condition: Callable[[], bool], within_s: float = LIVENESS_S) -> bool:
    deadline = time.monotonic() + within_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


@pytest.fixture
def fresh_last(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test its own process-wide last rehearsal (no other test's leftovers)."""
    monkeypatch.setattr(keep_warm, "_last", keep_warm._Last())
    yield


def _rehearsals(outcome: str) -> float:
    """The process's count of rehearsals ending so (the metric)."""
    value = REGISTRY.get_sample_value("carrossel_rehearsals_total", {"outcome": outcome})
    return value or 0.0


def _thread(window_s: float = 60.0, spare: bool = True) -> keep_warm.WarmThread:
    return keep_warm.WarmThread("test-warm", lambda: None, window_s, lambda: spare)


@contextmanager
def _running(window_s: float = 60.0, spare: bool = True) -> Iterator[keep_warm.WarmThread]:
    """A warm thread for the block, stopped and joined after it."""
    warm = _thread(window_s, spare)
    try:
        yield warm
    finally:
        warm.stop()
        warm.join(LIVENESS_S)


def _pigeons(holes: int) -> cp_model.CpModel:
    """More pigeons than holes: infeasible, and very slow to prove without presolve."""
    model = cp_model.CpModel()
    sits = {(p, h): model.new_bool_var(f"p{p}h{h}") for p in range(holes + 1) for h in range(holes)}
    for p in range(holes + 1):
        model.add_exactly_one(sits[p, h] for h in range(holes))
    for h in range(holes):
        model.add_at_most_one(sits[p, h] for p in range(holes + 1))
    return model


class _LongSolves:
    """A rehearsal whose solve would take 60 s unless stopped; counts its ends."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.statuses: list[cp_model.CpSolverStatus] = []

    def __call__(self, left_ms: int) -> None:
        solver = Budget(60_000).solver(lean=True)  # not left_ms: only the call stops it
        self.started.set()
        self.statuses.append(solver.solve(_pigeons(14)))


def test_a_call_offered_to_a_free_warm_thread_runs_on_it(fresh_last: None) -> None:
    with _running() as warm:
        ran_on: list[str] = []
        done = threading.Event()

        def call() -> None:
            ran_on.append(threading.current_thread().name)
            done.set()

        assert warm.offer(call)
        assert done.wait(LIVENESS_S)
        assert ran_on == ["test-warm"]


def test_a_busy_warm_thread_refuses_the_next_call(fresh_last: None) -> None:
    release = threading.Event()

    def held() -> None:
        release.wait(LIVENESS_S)

    with _running() as warm:
        try:
            assert warm.offer(held)
            assert not warm.offer(lambda: None)  # the lane's other threads take it
        finally:
            release.set()


def test_a_call_stops_the_rehearsal_and_runs_without_waiting_for_its_solve(
    fresh_last: None,
) -> None:
    rehearsal = _LongSolves()
    cancelled_before = _rehearsals("cancelled")
    with _running() as warm:
        keep_warm.remember(rehearsal)
        assert rehearsal.started.wait(LIVENESS_S)
        time.sleep(0.05)  # well inside the 60 s solve
        done = threading.Event()
        assert warm.offer(done.set)
        assert done.wait(LIVENESS_S)  # not after the rehearsal's 60 s
        assert rehearsal.statuses[:1] == [cp_model.UNKNOWN]  # stopped, not finished
        assert _rehearsals("cancelled") > cancelled_before


def test_rehearsals_repeat_within_the_window_and_end_after_it(fresh_last: None) -> None:
    runs: list[float] = []

    def rehearsal(left_ms: int) -> None:
        runs.append(time.monotonic())
        time.sleep(0.001)

    with _running(window_s=0.3):
        keep_warm.remember(rehearsal)
        given = keep_warm._last.given
        assert _until(lambda: len(runs) >= 3)
        time.sleep(0.3 + 0.2)
        settled = len(runs)
        time.sleep(0.2)
        assert len(runs) == settled  # nothing after the window
        assert all(at - given < 0.3 + 0.25 for at in runs)  # started within it


def test_a_rehearsal_is_limited_to_what_is_left_of_the_window(fresh_last: None) -> None:
    limits: list[int] = []
    with _running(window_s=0.5):
        keep_warm.remember(limits.append)
        assert _until(lambda: len(limits) >= 2)
        assert all(1 <= limit <= 500 for limit in limits)
        assert limits[-1] <= limits[0]


def test_no_rehearsal_without_a_spare_core_or_before_any_solve(fresh_last: None) -> None:
    runs: list[int] = []
    with _running(spare=False) as crowded, _running() as idle:
        time.sleep(0.1)
        assert idle.rehearsals == 0  # nothing given yet: an idle server stays idle
        keep_warm.remember(runs.append)
        assert _until(lambda: idle.rehearsals > 0)
        assert crowded.rehearsals == 0


def test_a_failing_rehearsal_leaves_the_thread_serving(fresh_last: None) -> None:
    def broken(left_ms: int) -> None:
        raise ValueError("a rehearsal that fails")

    failed_before = _rehearsals("failed")
    with _running() as warm:
        keep_warm.remember(broken)
        assert _until(lambda: warm.rehearsals >= 2)
        assert _until(lambda: _rehearsals("failed") >= failed_before + 2)
        done = threading.Event()
        assert _until(lambda: warm.offer(done.set))
        assert done.wait(LIVENESS_S)


def test_a_stopped_warm_thread_ends_and_takes_no_call(fresh_last: None) -> None:
    warm = _thread()
    keep_warm.remember(_LongSolves())
    assert _until(lambda: warm.rehearsals > 0)
    warm.stop()
    warm.join(LIVENESS_S)
    assert not warm._thread.is_alive()
    assert not warm.offer(lambda: None)


def test_the_lane_counts_calls_run_on_the_warm_thread_and_passes_their_answers(
    fresh_last: None,
) -> None:
    lanes = capacity.Capacity(workers=1, solve_places=2, keep_warm_s=60.0)
    pool = lanes.solves.pool
    try:
        assert pool.warm is not None
        release = threading.Event()
        first = pool.submit(lambda: release.wait(LIVENESS_S) and threading.current_thread().name)
        second = pool.submit(threading.current_thread)  # the warm thread is busy: the pool
        assert pool.load >= 1
        release.set()
        assert first.result(LIVENESS_S) == "carrossel-solve-warm"
        assert second.result(LIVENESS_S).name.startswith("carrossel-solve_")

        def fails() -> None:
            raise KeyError("handed to the future")

        with pytest.raises(KeyError):
            pool.submit(fails).result(LIVENESS_S)
        assert _until(lambda: pool.load == 0)
    finally:
        lanes.shutdown()
        if pool.warm is not None:
            pool.warm.join(LIVENESS_S)


def test_a_served_rummikub_solve_answers_the_same_with_the_warm_thread(
    fresh_last: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same moves from a server with a warm thread as from one without, call after
    call, the warm thread rehearsing between them (a spare core granted: a busy CI machine
    would otherwise, rightly, keep it from rehearsing)."""
    monkeypatch.setattr(keep_warm, "_spare_core", lambda: True)
    specs = bench_positions("rummikub", "mid", 4, 7)
    requests = [solve_move_request(spec, Objective.MOST_CARDS, 10_000) for spec in specs]
    answers: list[list[bytes]] = []
    for window in (0.0, 60.0):
        with (
            own_server(ServeOptions(keep_warm_s=window)) as server,
            grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel,
        ):
            stub = rummy_pb2_grpc.RummyServiceStub(channel)
            got = []
            for request in requests:
                response = stub.SolveMove(request, timeout=30)
                got.append(b"".join(m.SerializeToString() for m in response.moves))
                assert response.optimal
            answers.append(got)
            warm = server.capacity.solves.pool.warm
            if window:
                assert warm is not None and _until(_rehearsed(warm))
            else:
                assert warm is None
    assert answers[0] == answers[1]


def _rehearsed(warm: keep_warm.WarmThread) -> Callable[[], bool]:
    return lambda: warm.rehearsals > 0


def test_a_cancelled_search_ends_at_its_next_solve_record() -> None:
    """``Budget.record`` ends a search its caller cancelled, before the Python that would
    lead to another solve (a rehearsal gives the core back within CP-SAT's stop time)."""
    token = cancel.CancelToken()
    budget = Budget(10_000)
    with cancel.scope(token):
        solver = budget.solver(lean=True)
        model = cp_model.CpModel()
        model.new_bool_var("x")
        status = solver.solve(model)
        token.cancel()
        with pytest.raises(cancel.Cancelled):
            budget.record(solver, status)
    budget.record(solver, status)  # outside the scope: counted as before
    assert budget.solves == 1


def test_the_default_window_is_on_only_with_spare_cores_and_no_quota(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cores, "cgroup_cpu_quota", lambda: None)
    monkeypatch.setattr(cores, "usable_cores", lambda: 2)
    assert keep_warm.default_window() == keep_warm.DEFAULT_WINDOW_S
    monkeypatch.setattr(cores, "usable_cores", lambda: 1)
    assert keep_warm.default_window() == 0.0
    monkeypatch.setattr(cores, "usable_cores", lambda: 8)
    monkeypatch.setattr(cores, "cgroup_cpu_quota", lambda: 4.0)
    assert keep_warm.default_window() == 0.0


def test_runnable_threads_come_from_loadavg(tmp_path: Path) -> None:
    loadavg = tmp_path / "loadavg"
    loadavg.write_text("0.23 0.66 0.88 3/345 12345\n")
    assert keep_warm.runnable_threads(loadavg) == 3
    loadavg.write_text("garbled\n")
    assert keep_warm.runnable_threads(loadavg) is None
    assert keep_warm.runnable_threads(tmp_path / "absent") is None


def test_the_serve_flag_sets_the_window_or_leaves_it_to_the_cores() -> None:
    parser = argparse.ArgumentParser()
    serve_flags.add_arguments(parser)
    assert serve_flags.options_from_args(parser.parse_args([])).keep_warm_s is None
    for given in ("0", "2.5"):
        options = serve_flags.options_from_args(parser.parse_args(["--keep-warm", given]))
        assert options.keep_warm_s == float(given)
    for bad in ("-1", "7200"):
        with pytest.raises(SystemExit, match="--keep-warm"):
            serve_flags.options_from_args(parser.parse_args(["--keep-warm", bad]))
    assert ServeOptions().keep_warm_s == 0.0  # a server built in-process keeps none


def test_a_malformed_solve_is_refused_and_rehearses_nothing(
    fresh_last: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keep_warm, "_spare_core", lambda: True)  # only the request can stop it
    with (
        own_server(ServeOptions(keep_warm_s=60.0)) as server,
        grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel,
    ):
        stub = rummy_pb2_grpc.RummyServiceStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            stub.SolveMove(rummy_pb2.SolveMoveRequest(), timeout=30)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        time.sleep(0.1)
        warm = server.capacity.solves.pool.warm
        assert warm is not None and warm.rehearsals == 0
