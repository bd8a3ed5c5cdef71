"""Where a ValidateMove(suggest=true) call's time goes inside the server (issue #53), against
the same work in process, on frozen proposals (``bench.suggest_ab freeze``).

    .venv/bin/python -m bench.suggest_ab freeze /tmp/m1.json --seed 1 --ruleset mexe-mexe
    .venv/bin/python -m bench.suggest_stages /tmp/m1.json [FILE ...] [--rounds 3] \
        [--gap-ms 5] [--variant as-served --variant no-widen ...] [--other /tmp/main-ref]

It starts ``carrossel serve --workers 1 --pin-calls`` in a child process whose ValidateMove
handler is timed stage by stage on each call's own thread: the CPU that thread spent
(``time.thread_time_ns``) and the wall time on the clock both processes share
(``CLOCK_MONOTONIC``): the request's parse, the verdict (``search.validate_move``), the wait
for a solve slot and its end, the suggestion (``suggest.suggest_move``), the answer's
conversion (``solved_move_to_proto``), the collector; with the call's thread id, the core it
started and ended on, its minor page faults, and the collector's runs on grpcio's threads
between handlers. Then the same proposals in this process, one cold call each as the server
makes it, the same stages timed; server and process take turns round by round, after
``--gap-ms`` of client work before each call.

``--variant`` (several: servers called in turn, request by request): ``as-served``,
``unpinned`` (``--no-pin-calls``), ``no-widen`` (the search keeps the call path's core,
``service.affinity.every_core_while`` off), ``gc-loose`` (the collector's young limit
50,000); ``--other TREE``: a server of that tree too (e.g. main's, exported).

Prints the medians of each stage (thread CPU ms, the server's wall), the client's call and
its time to the handler and back (also without ``suggest``), how often a call ran on
another thread than the call before it, and the per-proposal median of the server's
suggestion CPU minus the in-process one.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # ``python bench/suggest_stages.py``: a server of this tree or
    # of the one named (``--other``)
    _tree = os.environ.get("SUGGEST_STAGES_TREE", str(Path(__file__).resolve().parent.parent))
    sys.path.insert(0, _tree)

STAGES = (
    "parse",
    "verdict",
    "slot",
    "suggestion",
    "slot's end",
    "conversion",
    "add_suggestion",
    "handler",
    "collector",
)


def _core() -> int:
    """The core the calling thread runs on now (Linux: field 39 of its stat)."""
    with open("/proc/thread-self/stat", "rb") as stat:
        return int(stat.read().rsplit(b")", 1)[1].split()[36])


def _minor_faults() -> int:
    """The calling thread's minor page faults so far (Linux: field 10 of its stat)."""
    with open("/proc/thread-self/stat", "rb") as stat:
        return int(stat.read().rsplit(b")", 1)[1].split()[7])


class _Clock:
    """Per stage: thread CPU ns and wall ns, summed over the stage's runs in one call."""

    def __init__(self) -> None:
        self.cpu: dict[str, int] = dict.fromkeys(STAGES, 0)
        self.wall: dict[str, int] = dict.fromkeys(STAGES, 0)
        self.generations = [0, 0, 0]
        self.faults = 0

    def timed(self, stage: str, run: Callable[[], Any]) -> Any:
        cpu, wall = time.thread_time_ns(), time.monotonic_ns()
        try:
            return run()
        finally:
            self.cpu[stage] += time.thread_time_ns() - cpu
            self.wall[stage] += time.monotonic_ns() - wall


_CURRENT: dict[int, _Clock] = {}


def _wrap(module: Any, name: str, stage: str) -> None:
    """Time ``module.name`` as ``stage`` of the current call's clock (if any)."""
    original = getattr(module, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        clock = _CURRENT.get(threading_id())
        if clock is None:
            return original(*args, **kwargs)
        return clock.timed(stage, lambda: original(*args, **kwargs))

    setattr(module, name, timed)


def threading_id() -> int:
    return threading.get_native_id()


def _wrap_slot(module: Any) -> None:
    """Time the wait for the solve slot (entering ``solve_slot``) apart from the search."""
    import contextlib

    original = module.solve_slot

    @contextlib.contextmanager
    def timed(context: Any) -> Any:
        clock = _CURRENT.get(threading_id())
        slot = original(context)
        if clock is None:
            with slot:
                yield
            return
        clock.timed("slot", slot.__enter__)
        try:
            yield
        finally:
            clock.timed("slot's end", lambda: slot.__exit__(None, None, None))

    module.solve_slot = timed


_GC_STARTED: dict[int, tuple[int, int]] = {}
_OUTSIDE = [0, 0]  # the collector's wall ns and runs outside any timed call since the last


def _on_collection(phase: str, info: dict[str, int]) -> None:
    """Count the collector's time in the current call's clock (it runs on the call's thread,
    inside whichever stage allocated), or outside the calls (grpcio's threads between
    calls, which the next call's record reports)."""
    tid = threading_id()
    clock = _CURRENT.get(tid)
    if phase == "start":
        _GC_STARTED[tid] = (time.thread_time_ns(), time.monotonic_ns())
    elif tid in _GC_STARTED:
        cpu, wall = _GC_STARTED.pop(tid)
        if clock is None:
            _OUTSIDE[0] += time.monotonic_ns() - wall
            _OUTSIDE[1] += 1
            return
        clock.cpu["collector"] += time.thread_time_ns() - cpu
        clock.wall["collector"] += time.monotonic_ns() - wall
        clock.generations[info["generation"]] += 1


def _instrument() -> None:
    import gc

    from service.rummy import convert as rummy_convert
    from service.rummy import validate_move as handler

    gc.callbacks.append(_on_collection)

    _wrap(handler, "validate_move", "verdict")
    _wrap(handler, "suggest_move", "suggestion")
    _wrap(handler, "solved_move_to_proto", "conversion")
    _wrap(handler, "add_suggestion", "add_suggestion")  # the four above and the copy
    _wrap(rummy_convert, "validate_move_call", "parse")
    _wrap_slot(handler)


def serve(port: int, record_path: str, serve_flags: Sequence[str]) -> None:
    """The server with its ValidateMove timed; one JSON line per call appended to the record."""
    import service.rummy as rummy
    from service.cli import main as cli

    _instrument()
    original = rummy.RummyServicer.ValidateMove
    record = open(record_path, "a", buffering=1)  # noqa: SIM115 - open for the server's life

    def timed(self: Any, request: Any, context: Any) -> Any:
        tid = threading_id()
        clock = _CURRENT[tid] = _Clock()
        started_on, start, faults = _core(), time.monotonic_ns(), _minor_faults()
        before, _OUTSIDE[:] = list(_OUTSIDE), [0, 0]  # since the last call's start
        try:
            return clock.timed("handler", lambda: original(self, request, context))
        finally:
            clock.faults = _minor_faults() - faults
            del _CURRENT[tid]
            line = {
                "tid": tid,
                "cores": [started_on, _core()],
                "gc": clock.generations,
                "gc before": before,
                "faults": clock.faults,
                "cpu": clock.cpu,
                "wall": clock.wall,
                "start": start,
                "end": time.monotonic_ns(),
            }
            record.write(json.dumps(line) + "\n")

    rummy.RummyServicer.ValidateMove = timed  # type: ignore[method-assign]
    if "--no-widen" in serve_flags:
        import contextlib

        from service import affinity

        affinity.every_core_while = contextlib.nullcontext  # type: ignore[assignment]
        serve_flags = [flag for flag in serve_flags if flag != "--no-widen"]
    if "--gc-loose" in serve_flags:
        import gc

        gc.set_threshold(50_000, 50, 100)
        serve_flags = [flag for flag in serve_flags if flag != "--gc-loose"]
    cli(["serve", "--port", str(port), "--workers", "1", "--pin-calls", *serve_flags])


def frozen_requests(files: Sequence[Path]) -> list[Any]:
    from bench.over_grpc import position_proto
    from carrossel.v1 import rummy_pb2
    from service.rummy.convert import move_to_proto, validate_move_call
    from solver.core.cards import parse_card, parse_table_card
    from solver.core.errors import InvalidRequest
    from solver.rummy.position import Move, Turn

    requests = []
    for path in files:
        for item in json.loads(path.read_text()):
            drawn, stock_empty, sequence, opened, deal = item["turn"]

            class Coded:
                ruleset = item["ruleset"]
                players = item["players"]
                table = item["table"]
                hand = item["hand"]
                turn = Turn(drawn, stock_empty, sequence, opened, deal)

            table = tuple(tuple(parse_table_card(c) for c in meld) for meld in item["proposal"])
            to_hand = tuple(parse_card(c) for c in item["to_hand"])
            move = move_to_proto(Move(table, to_hand, item["knock"]))
            request = rummy_pb2.ValidateMoveRequest(
                position=position_proto(Coded),
                move=move,
                suggest=True,
            )
            try:
                validate_move_call(request)
            except InvalidRequest:
                continue  # refused by the service (e.g. more copies of a card than the deck)
            requests.append(request)
    return requests


class _Context:
    """What the handler asks of a call's context in process: no deadline near."""

    def time_remaining(self) -> float:
        return 60.0

    def is_active(self) -> bool:
        return True


def _in_process_round(requests: Sequence[Any], gap_s: float) -> list[dict[str, float]]:
    """One cold call per request as the server makes it: each stage's thread CPU ms."""
    from service.rummy import convert
    from service.rummy import validate_move as handler

    rows: list[dict[str, float]] = []
    for request in requests:
        _client_work(gap_s)
        clock = _CURRENT[threading_id()] = _Clock()

        def call(request: Any = request) -> Any:
            parsed = convert.validate_move_call(request)
            return handler.handle(parsed, request, _Context())  # type: ignore[arg-type]

        faults = _minor_faults()
        clock.timed("handler", call)
        del _CURRENT[threading_id()]
        rows.append({stage: ns / 1e6 for stage, ns in clock.cpu.items()})
        rows[-1]["faults"] = _minor_faults() - faults
    return rows


def _client_work(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def _median(rows: Sequence[dict[str, float]], stage: str) -> float:
    return statistics.median(row[stage] for row in rows)


def _server_round(
    stubs: Sequence[Any],
    requests: Sequence[Any],
    records: Sequence[Path],
    gap_s: float,
    rotate: int,
) -> list[list[dict[str, Any]]]:
    """One call per request to each server in turn (the order rotating from request to
    request): per server, its records with the client's view (``reach``, ``back``, ``call``)."""
    before = [len(record.read_text().splitlines()) for record in records]
    client_ns: list[list[tuple[int, int]]] = [[] for _ in stubs]
    for k, request in enumerate(requests):
        for j in range(len(stubs)):
            which = (j + k + rotate) % len(stubs)
            _client_work(gap_s)
            sent = time.monotonic_ns()
            stubs[which].ValidateMove(request, timeout=60)
            client_ns[which].append((sent, time.monotonic_ns()))
    out = []
    for record, skip, sent_back in zip(records, before, client_ns, strict=True):
        calls = [json.loads(line) for line in record.read_text().splitlines()[skip:]]
        for call, (sent, back) in zip(calls, sent_back, strict=True):
            call["reach"] = (call["start"] - sent) / 1e6
            call["back"] = (back - call["end"]) / 1e6
            call["call"] = (back - sent) / 1e6
        out.append(calls)
    return out


VARIANTS: dict[str, tuple[str, ...]] = {
    "as-served": (),
    "unpinned": ("--no-pin-calls",),
    "no-widen": ("--no-widen",),  # this bench's own: the search keeps the call path's core
    "gc-loose": ("--gc-loose",),  # this bench's own: the collector's young limit 50,000
}


def _start(variant: str, port: int, record: str, tree: Path | None) -> subprocess.Popen[bytes]:
    command = [sys.executable, str(Path(__file__).resolve()), "--serve", str(port), record]
    env = dict(os.environ)
    if tree is not None:
        env["SUGGEST_STAGES_TREE"] = str(tree)
    flags = [f"--serve-flag={flag}" for flag in VARIANTS.get(variant, ())]
    return subprocess.Popen(
        [*command, *flags],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tree,
        env=env,
    )


def measure(
    files: Sequence[Path], rounds: int, gap_s: float, variants: Sequence[str], other: Path | None
) -> None:
    import contextlib

    import grpc

    from bench.over_grpc import free_port, wait_serving
    from carrossel.v1 import rummy_pb2_grpc

    requests = frozen_requests(files)
    plain = [_without_suggest(request) for request in requests]
    _instrument()
    names = list(variants) + (["other tree"] if other is not None else [])
    calls: list[list[dict[str, Any]]] = [[] for _ in names]
    plain_calls: list[list[dict[str, Any]]] = [[] for _ in names]
    local_rounds: list[list[dict[str, float]]] = []
    with contextlib.ExitStack() as stack:
        records, stubs = [], []
        for name in names:
            record = Path(stack.enter_context(tempfile.NamedTemporaryFile("r")).name)
            port = free_port()
            server = _start(name, port, str(record), other if name == "other tree" else None)
            stack.callback(server.wait, 30)
            stack.callback(server.terminate)
            channel = stack.enter_context(grpc.insecure_channel(f"127.0.0.1:{port}"))
            wait_serving(channel, server)
            records.append(record)
            stubs.append(rummy_pb2_grpc.RummyServiceStub(channel))
        _server_round(stubs, requests[:3], records, 0, 0)  # the servers build their models
        _in_process_round(requests[:3], 0)
        for r in range(rounds):  # the servers and this process in turn, round by round
            for into, served in zip(
                calls, _server_round(stubs, requests, records, gap_s, r), strict=False
            ):
                into += served
            local_rounds.append(_in_process_round(requests, gap_s))
        for into, served in zip(
            plain_calls, _server_round(stubs, plain, records, gap_s, 0), strict=False
        ):
            into += served
    _report(requests, names, calls, plain_calls, local_rounds)


def _without_suggest(request: Any) -> Any:
    plain = type(request)()
    plain.CopyFrom(request)
    plain.suggest = False
    return plain


def _ms(call: dict[str, Any], key: str, stage: str) -> float:
    return float(call[key][stage]) / 1e6


def _report(
    requests: Sequence[Any],
    names: Sequence[str],
    calls: list[list[dict[str, Any]]],
    plain_calls: list[list[dict[str, Any]]],
    local_rounds: list[list[dict[str, float]]],
) -> None:
    n, rounds = len(requests), len(local_rounds)
    local = [row for rows in local_rounds for row in rows]
    best_local = [min(rows[i]["suggestion"] for rows in local_rounds) for i in range(n)]
    searched = [i for i in range(n) if best_local[i] > 1.0]
    print(f"{n} proposals, {rounds} rounds; {len(searched)} searched (> 1 ms in process)")
    print("p50 ms: thread CPU per stage (server wall in brackets)")
    print(f"{'stage':>12} " + " ".join(f"{name:>20}" for name in [*names, "in process"]))
    for stage in STAGES:
        cells = [
            f"{statistics.median(_ms(c, 'cpu', stage) for c in served):>7.3f} "
            f"({statistics.median(_ms(c, 'wall', stage) for c in served):>8.3f})"
            for served in calls
        ]
        cells = [f"{cell:>20}" for cell in cells]
        print(f"{stage:>12} " + " ".join(cells) + f" {_median(local, stage):>20.3f}")
    for name, served in zip(names, calls, strict=True):
        ms = [call["gc before"][0] / 1e6 for call in served]
        runs = sum(call["gc before"][1] for call in served)
        print(
            f"{name}: the collector on grpcio's threads between handlers: {runs} runs over "
            f"{len(served)} calls, p50 {statistics.median(ms):.3f} ms, "
            f"mean {statistics.mean(ms):.3f}"
        )
    faults = statistics.median(row["faults"] for row in local)
    print(
        f"minor page faults per call p50: in process {faults:.0f}, "
        + ", ".join(
            f"{name} {statistics.median(c['faults'] for c in served):.0f}"
            for name, served in zip(names, calls, strict=True)
        )
    )
    for name, served, plain in zip(names, calls, plain_calls, strict=True):
        threads = [call["tid"] for call in served]
        switched = sum(a != b for a, b in itertools.pairwise(threads))
        generations = [sum(call["gc"][g] for call in served) for g in range(3)]
        best = [
            min(served[r * n + i]["cpu"]["suggestion"] / 1e6 for r in range(rounds))
            for i in range(n)
        ]
        diff = statistics.median(best[i] - best_local[i] for i in searched) if searched else 0.0
        print(
            f"{name}: call p50 {statistics.median(c['call'] for c in served):.2f} ms (to the "
            f"handler {statistics.median(c['reach'] for c in served):.3f}, back "
            f"{statistics.median(c['back'] for c in served):.3f}); without suggest "
            f"{statistics.median(c['call'] for c in plain):.2f} (to the handler "
            f"{statistics.median(c['reach'] for c in plain):.3f}, handler "
            f"{statistics.median(_ms(c, 'wall', 'handler') for c in plain):.3f}, back "
            f"{statistics.median(c['back'] for c in plain):.3f}); {len(set(threads))} threads, "
            f"{switched} of {len(served)} calls on another thread than the one before; "
            f"collections by generation {generations}; suggestion CPU minus in process "
            f"(best of the rounds, per searched proposal) p50 {diff:+.3f}"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--gap-ms", type=float, default=5.0)
    parser.add_argument(
        "--variant",
        action="append",
        choices=sorted(VARIANTS),
        help="a server to time (several: called in turn); default as-served",
    )
    parser.add_argument("--other", type=Path, help="also a server from this tree (e.g. main's)")
    parser.add_argument("--serve-flag", action="append", default=[], help=argparse.SUPPRESS)
    parser.add_argument("--serve", nargs=2, metavar=("PORT", "RECORD"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(int(args.serve[0]), args.serve[1], args.serve_flag)
        return 0
    measure(args.files, args.rounds, args.gap_ms / 1000, args.variant or ["as-served"], args.other)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
