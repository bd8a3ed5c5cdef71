"""Time ValidateMove alone through the call (issue #51: p50 ≤ 1 ms on mid tables).

One client, one kept channel, each request built before the clock starts; the time is the
client's wall time of the whole call. The requests are mid positions (30-60 table cards)
of every rearrangement ruleset, each with the moves players send: its best move (legal,
solved in-process before the clock starts) and mutations of it or of the table that the
referee rejects (``tests.reference.suggest_oracle``'s). No ``suggest``.

The same run times echo servers started with the serving options of ``carrossel serve``
(thread pools, channel options, switch interval), so the overhead above the floor shows:

- ``echo``: grpcio alone, a handler that sends the request's bytes back;
- ``echo+interceptor``: the same behind carrossel's ``CallInterceptor`` (admission, bounds,
  cancellation scope, metrics, the log line), the layer every real call goes through;
- ``proto echo`` (``--proto-echo``): behind the interceptor too, the real
  ``ValidateMoveRequest`` parsed by protobuf and the real ``ValidateMoveResponse`` (the
  servicer's answer to those bytes, made on the first call and kept) serialized and parsed
  by the client: ValidateMove's call without the servicer's work; ``proto echo, raw
  answer`` is the same call whose client keeps the answer's bytes unparsed.

Each is timed back to back and with a ``--gap-ms`` pause before every call (a server that
was idle wakes up), in interleaved rounds, so a busy moment of a shared machine hits all
alike. Per line: calls, p50/p90/p99 ms, and the server's CPU per call (``/proc``), which
a shared machine disturbs less than the wall time.

``--parts`` starts no server: it times the servicer's parts in this process, in CPU time
(``time.process_time_ns``), per ruleset: the request's bounds (``service.bounds``), its
parse, the referee (with shangai and manipulation's searches), the answer; ``--profile N``
adds cProfile's top N entries by own time.

    .venv/bin/python -m bench.validate_bench
    .venv/bin/python -m bench.validate_bench --n 10 --rounds 5 --gap-ms 5 --workers 2
    .venv/bin/python -m bench.validate_bench --target 127.0.0.1:50051   # a running server
    .venv/bin/python -m bench.validate_bench --no-echo --target 127.0.0.1:50051@PID \
        --target 127.0.0.1:50052@PID2   # two servers (before/after), interleaved rounds
    .venv/bin/python -m bench.validate_bench --parts --profile 15
    .venv/bin/python -m bench.validate_bench --n 40 --save-proposals /tmp/p.pkl --answers /tmp/a
    .venv/bin/python -m bench.validate_bench --load-proposals /tmp/p.pkl --answers /tmp/b

The last two check a speed change: the same saved requests judged by two trees must give
the same answers, byte for byte (the same sha256 printed).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import hashlib
import io
import os
import pickle
import pstats
import random
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from bench.load import cpu_s, server_pids
from bench.over_grpc import free_port, position_proto, wait_serving
from bench.positions import HAND_SIZES, SIZES, PositionSpec, random_position
from bench.solve_bench import machine, percentile
from carrossel.v1 import rummy_pb2, rummy_pb2_grpc
from service import bounds
from service.limits import bounded_search
from service.rummy.convert import move_to_proto, validate_move_call
from service.rummy.validate_move import verdict_to_proto
from solver.core.errors import InvalidRequest
from solver.core.rulesets import RULESETS, Family
from solver.rearrangement.search import solve_move, validate_move
from solver.rummy.position import Move, Turn
from tests.reference.suggest_oracle import MUTATIONS

ECHO_METHOD = "/carrossel.bench.Echo/Echo"
PROTO_ECHO_METHOD = "/carrossel.bench.Echo/ValidateMove"
REARRANGEMENT = tuple(r.id for r in RULESETS.values() if r.family is Family.REARRANGEMENT)
ILLEGAL_TRIES = 20  # mutations tried per illegal proposal


@dataclass(frozen=True)
class Proposal:
    """One ValidateMove request as it goes on the wire, and what it is."""

    ruleset: str
    legal: bool
    request: rummy_pb2.ValidateMoveRequest


def _position(rng: random.Random, ruleset: str, i: int) -> PositionSpec:
    """A mid position: the bench's own where it has one (``bench.positions``), else one of
    the same shape with 5-15 hand cards and 0-2 jokers (one card drawn where a turn draws)."""
    jokers = rng.choices((0, 1, 2), weights=(5, 3, 2))[0]
    on_table = 0 if ruleset == "rummikub" else rng.randint(0, jokers)
    drawn = ruleset not in ("rummikub", "vatikan", "shangai", "manipulation")
    return random_position(
        rng,
        ruleset,
        table_size=SIZES["mid"],
        hand_size=HAND_SIZES.get(ruleset, (5, 15)),
        table_jokers=on_table,
        table_twos=rng.randint(1, 8) if ruleset == "mexe-mexe" else 0,
        hand_jokers=jokers - on_table,
        turn=Turn(cards_drawn=1 if drawn else 0, has_opened=True),
        name=f"{ruleset}-validate-{i}",
    )


def _illegal(spec: PositionSpec, best: Move | None, rng: random.Random) -> Move | None:
    """One or two player-like mistakes on the best move or the table as it was."""
    position = spec.position()
    for _ in range(ILLEGAL_TRIES):
        start = best if best is not None and rng.random() < 0.7 else Move(position.table)
        table = [list(meld) for meld in start.table]
        for mutate in rng.sample(MUTATIONS, rng.choice((1, 1, 2))):
            mutate(table, rng, position)
        proposal = Move(tuple(tuple(meld) for meld in table if meld), start.to_hand)
        try:  # a request the service refuses as malformed (a meld of 15) is no proposal
            validate_move_call(_request(spec, proposal))
            if not validate_move(position, proposal).legal:
                return proposal
        except (InvalidRequest, ValueError):
            continue
    return None


def _request(spec: PositionSpec, move: Move) -> rummy_pb2.ValidateMoveRequest:
    return rummy_pb2.ValidateMoveRequest(position=position_proto(spec), move=move_to_proto(move))


def proposals(rulesets: Sequence[str], n: int, seed: int) -> list[Proposal]:
    """Per ruleset, ``n`` mid positions, each with its best move and one illegal proposal."""
    out: list[Proposal] = []
    for ruleset in rulesets:
        rng = random.Random(f"{seed}/{ruleset}/validate")
        for i in range(n):
            spec = _position(rng, ruleset, i)
            position = spec.position()
            moves = solve_move(position, time_limit_ms=2000).moves
            best = moves[0].move if moves else None
            for move, legal in ((best, True), (_illegal(spec, best, rng), False)):
                if move is None:
                    continue
                out.append(Proposal(ruleset, legal, _request(spec, move)))
    return out


# --- the echo servers ----------------------------------------------------------------------


def serve_echo(port: int, intercepted: bool, pin_calls: bool) -> None:
    """An echo server with ``carrossel serve``'s options (run in its own process), its call
    path on one core as ``carrossel serve``'s unless ``pin_calls`` is False."""
    from service import affinity

    with affinity.pinned_while_built(affinity.calls_core(0) if pin_calls else None):
        echo = _echo_server(port, intercepted)
    echo.wait_for_termination()


def _echo_server(port: int, intercepted: bool) -> grpc.Server:
    from service import capacity, limits, server

    sys.setswitchinterval(server.SWITCH_INTERVAL_S)
    lanes = capacity.Capacity()
    limits.configure_solve_slots(limits.default_concurrent_solves(1), limits.DEFAULT_SOLVE_QUEUE)
    interceptors: list[grpc.ServerInterceptor] = []
    if intercepted:
        from service.interceptors import CallInterceptor

        interceptors.append(CallInterceptor(lanes))
    echo = grpc.server(
        lanes.calls.pool,
        interceptors=interceptors,
        options=server._channel_options(limits.MAX_MESSAGE_BYTES, False),
        maximum_concurrent_rpcs=lanes.max_concurrent_rpcs,
    )

    def echo_bytes(request: bytes, context: grpc.ServicerContext) -> bytes:
        del context
        return request

    handler: grpc.RpcMethodHandler[bytes, bytes] = grpc.unary_unary_rpc_method_handler(echo_bytes)
    service, method = ECHO_METHOD.rsplit("/", 1)
    proto_method = PROTO_ECHO_METHOD.rsplit("/", 1)[1]
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {
        method: handler,
        proto_method: _proto_echo_handler(),
    }
    echo.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(service.lstrip("/"), handlers),)
    )
    from grpc_health.v1 import health, health_pb2_grpc

    health_pb2_grpc.add_HealthServicer_to_server(health.HealthServicer(), echo)
    echo.add_insecure_port(f"127.0.0.1:{port}")
    echo.start()
    return echo


def _proto_echo_handler() -> grpc.RpcMethodHandler[object, rummy_pb2.ValidateMoveResponse]:
    """ValidateMove's messages without its work: the request parsed by protobuf (kept with
    its bytes, the key of its answer), the servicer's answer made once per request's bytes
    and then sent again, serialized by grpcio each call."""
    from service.rummy import RummyServicer

    servicer = RummyServicer()
    answers: dict[bytes, rummy_pb2.ValidateMoveResponse] = {}

    def parse(wire: bytes) -> tuple[bytes, rummy_pb2.ValidateMoveRequest]:
        return wire, rummy_pb2.ValidateMoveRequest.FromString(wire)

    def answer(
        request: tuple[bytes, rummy_pb2.ValidateMoveRequest], context: grpc.ServicerContext
    ) -> rummy_pb2.ValidateMoveResponse:
        wire, message = request
        response = answers.get(wire)
        if response is None:
            response = answers[wire] = servicer.ValidateMove(message, context)
        return response

    return grpc.unary_unary_rpc_method_handler(
        answer,
        request_deserializer=parse,
        response_serializer=rummy_pb2.ValidateMoveResponse.SerializeToString,
    )


@dataclass
class Target:
    """A server to time: its name, address, process (when started here) and its call."""

    name: str
    address: str
    process: subprocess.Popen[bytes] | None
    channel: grpc.Channel
    call: Callable[[Proposal], object]
    pid: int | None = None  # a running server's process, for its CPU (``--target ADDR@PID``)
    warm_every_call: bool = False  # a server whose first call of a request is not its own

    def cpu(self) -> float:
        pid = self.process.pid if self.process else self.pid
        return cpu_s(server_pids(pid)) if pid else 0.0

    def close(self) -> None:
        self.channel.close()
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)


def _start(command: list[str], port: int) -> tuple[subprocess.Popen[bytes], grpc.Channel]:
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    wait_serving(channel, process)
    return process, channel


def carrossel_target(
    address: str | None, workers: int, name: str = "ValidateMove", pin_calls: bool = True
) -> Target:
    """``carrossel serve`` started here, or a running server at ``address`` (``ADDR@PID``
    names its process, whose CPU is then read too)."""
    process = None
    pid = None
    if address is not None and "@" in address:
        address, pid_text = address.rsplit("@", 1)
        pid = int(pid_text)
    if address is None:
        port = free_port()
        address = f"127.0.0.1:{port}"
        serve = [sys.executable, "-m", "service.cli", "serve", "--port", str(port)]
        # One worker of `make run`'s server, pinned as each of its workers is on a machine
        # of its own (`serve` alone would not pin one process on two cores).
        serve += ["--pin-calls"] if pin_calls else ["--no-pin-calls"]
        process, channel = _start([*serve, "--workers", str(workers)], port)
    else:
        channel = grpc.insecure_channel(address)
        wait_serving(channel)
    stub = rummy_pb2_grpc.RummyServiceStub(channel)
    return Target(name, address, process, channel, lambda p: stub.ValidateMove(p.request), pid)


def echo_target(intercepted: bool, pin_calls: bool = True) -> Target:
    process, channel, port = _start_echo(intercepted, pin_calls)
    echo: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(ECHO_METHOD)
    name = "echo+interceptor" if intercepted else "echo"
    return Target(
        name,
        f"127.0.0.1:{port}",
        process,
        channel,
        lambda p: echo(p.request.SerializeToString()),
    )


def _start_echo(
    intercepted: bool, pin_calls: bool
) -> tuple[subprocess.Popen[bytes], grpc.Channel, int]:
    port = free_port()
    command = [sys.executable, "-m", "bench.validate_bench", "--serve-echo", str(port)]
    if intercepted:
        command.append("--intercepted")
    if not pin_calls:
        command.append("--no-pin-calls")
    process, channel = _start(command, port)
    return process, channel, port


def proto_echo_targets(pin_calls: bool = True) -> list[Target]:
    """One echo server behind the interceptor, called with ValidateMove's messages: by a
    client that parses the answer (as the stub does) and by one that keeps its bytes."""
    process, channel, port = _start_echo(True, pin_calls)
    parsed = channel.unary_unary(
        PROTO_ECHO_METHOD,
        request_serializer=rummy_pb2.ValidateMoveRequest.SerializeToString,
        response_deserializer=rummy_pb2.ValidateMoveResponse.FromString,
    )
    raw: grpc.UnaryUnaryMultiCallable[rummy_pb2.ValidateMoveRequest, bytes] = channel.unary_unary(
        PROTO_ECHO_METHOD, request_serializer=rummy_pb2.ValidateMoveRequest.SerializeToString
    )
    address = f"127.0.0.1:{port}"
    return [
        # Warmed with every proposal: its first call of each makes the answer it then keeps.
        Target(
            "proto echo",
            address,
            process,
            channel,
            lambda p: parsed(p.request),
            warm_every_call=True,
        ),
        # The same server: closed once, by the first target.
        Target(
            "proto echo, raw answer", address, None, channel, lambda p: raw(p.request), process.pid
        ),
    ]


# --- timing --------------------------------------------------------------------------------


@dataclass
class Times:
    """Per (target, gap, label): call times in ms; per (target, gap): server CPU and calls."""

    ms: dict[tuple[str, str, str], list[float]]
    cpu_s: dict[tuple[str, str], float]

    @classmethod
    def empty(cls) -> Times:
        return cls(defaultdict(list), defaultdict(float))


def time_round(target: Target, calls: Sequence[Proposal], gap_s: float, times: Times) -> None:
    gap = f"gap {gap_s * 1000:g} ms" if gap_s else "back to back"
    cpu_before = target.cpu()
    for proposal in calls:
        if gap_s:
            time.sleep(gap_s)
        start = time.perf_counter()
        target.call(proposal)
        elapsed = (time.perf_counter() - start) * 1000.0
        times.ms[(target.name, gap, "all")].append(elapsed)
        if target.name.startswith("ValidateMove"):
            label = f"{proposal.ruleset} {'legal' if proposal.legal else 'illegal'}"
            times.ms[(target.name, gap, label)].append(elapsed)
    times.cpu_s[(target.name, gap)] += target.cpu() - cpu_before


def report(times: Times) -> list[str]:
    width = max(36, *(len(f"{name}, {gap}") + 1 for name, gap, _ in times.ms))
    lines = [
        f"{'server / calls':<{width}} {'calls':>6} {'p50':>6} {'p90':>6} {'p99':>6} {'cpu/call':>8}"
    ]
    for (name, gap, label), values in sorted(times.ms.items(), key=lambda kv: _order(kv[0])):
        cpu = ""
        if label == "all" and times.cpu_s.get((name, gap)):
            cpu = f"{times.cpu_s[(name, gap)] / len(values) * 1000:.3f}"
        # With two servers (``--target`` twice) each ruleset's line names its server.
        server = name.removeprefix("ValidateMove").strip()
        title = f"{name}, {gap}" if label == "all" else f"  {label} {server}".rstrip()
        lines.append(
            f"{title:<{width}} {len(values):>6} {percentile(values, 50):>6.3f} "
            f"{percentile(values, 90):>6.3f} {percentile(values, 99):>6.3f} {cpu:>8}"
        )
    lines.append("(ms of wall time per call; cpu/call: the server process's CPU ms per call)")
    return lines


def _order(key: tuple[str, str, str]) -> tuple[int, str, int, str]:
    name, gap, label = key
    names = ("echo", "echo+interceptor", "proto echo", "proto echo, raw answer")
    return (names.index(name) if name in names else len(names), gap, label != "all", label)


# --- in process: where a call's CPU goes ------------------------------------------------

PARTS = ("bounds", "parse", "referee", "answer")


class _Context:
    """The little of a ServicerContext that ValidateMove reads without ``suggest``."""

    def time_remaining(self) -> float:
        return 60.0

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise RuntimeError(f"{code}: {details}")


def _batch_parts(wires: Sequence[bytes], context: _Context) -> dict[str, int]:
    """The servicer's work (``RummyServicer.ValidateMove``) on every request, one part at a
    time over the whole batch: the CPU clock is a system call of several µs here, read
    once per part, not per call."""
    spent: dict[str, int] = {}
    start = time.process_time_ns()
    requests = [rummy_pb2.ValidateMoveRequest.FromString(wire) for wire in wires]
    for request in requests:
        bounds.check(request)
    spent["bounds"] = time.process_time_ns() - start
    start = time.process_time_ns()
    parsed = [validate_move_call(request) for request in requests]
    spent["parse"] = time.process_time_ns() - start
    start = time.process_time_ns()
    oracle = bounded_search(context)  # type: ignore[arg-type]
    verdicts = [
        validate_move(call.position, call.move, max_placed=oracle)
        for call in parsed
        if call.move is not None
    ]
    spent["referee"] = time.process_time_ns() - start
    start = time.process_time_ns()
    for verdict in verdicts:
        verdict_to_proto(verdict).SerializeToString()
    spent["answer"] = time.process_time_ns() - start
    return spent


def cpu_parts(calls: Sequence[Proposal], rounds: int, profile_top: int) -> list[str]:
    """CPU µs per call and part (means over warm rounds; the first round warms the caches),
    per ruleset, and cProfile's top entries by own time over one more round."""
    context = _Context()
    # As `carrossel serve` does (service.server): what is alive now is never collected, so a
    # full collection (tens of ms here) does not land on whichever part runs then.
    gc.collect()
    gc.freeze()
    by_ruleset: dict[str, list[bytes]] = defaultdict(list)
    for proposal in calls:
        by_ruleset[proposal.ruleset].append(proposal.request.SerializeToString())
    spent: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(PARTS, 0))
    for round_ in range(rounds + 1):
        for ruleset, wires in by_ruleset.items():
            batch = _batch_parts(wires, context)
            if round_:
                for part, ns in batch.items():
                    spent[ruleset][part] += ns
    head = f"{'ruleset':<14}" + "".join(f"{p:>9}" for p in PARTS) + f"{'total':>9}"
    lines = ["CPU µs per call in process, mean over warm rounds", head]
    for ruleset, by_part in spent.items():
        n = rounds * len(by_ruleset[ruleset])
        cells = "".join(f"{by_part[p] / n / 1000:>9.0f}" for p in PARTS)
        lines.append(f"{ruleset:<14}{cells}{sum(by_part.values()) / n / 1000:>9.0f}")
    if profile_top:
        profiler = cProfile.Profile()
        profiler.enable()
        for wires in by_ruleset.values():
            _batch_parts(wires, context)
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(profile_top)
        lines.append(out.getvalue().rstrip())
    return lines


# --- the answers, for checking that a change leaves them as they were ----------------------


def save_proposals(calls: Sequence[Proposal], path: str) -> None:
    """The proposals as (ruleset, legal, request bytes), so that two trees whose solvers
    differ judge the very same requests."""
    with open(path, "wb") as out:
        pickle.dump([(p.ruleset, p.legal, p.request.SerializeToString()) for p in calls], out)


def load_proposals(path: str) -> list[Proposal]:
    with open(path, "rb") as source:
        saved = pickle.load(source)  # a file this bench wrote (``--save-proposals``)
    return [
        Proposal(ruleset, legal, rummy_pb2.ValidateMoveRequest.FromString(wire))
        for ruleset, legal, wire in saved
    ]


def write_answers(calls: Sequence[Proposal], path: str) -> str:
    """Judge every proposal twice through the servicer's path (parse, referee with R8's
    search, answer) and write the answers' bytes; the line printed ends with their digest."""
    context = _Context()
    answers: list[bytes] = []
    for _ in range(2):
        for proposal in calls:
            call = validate_move_call(proposal.request)
            assert call.move is not None
            oracle = bounded_search(context)  # type: ignore[arg-type]
            verdict = validate_move(call.position, call.move, max_placed=oracle)
            answers.append(verdict_to_proto(verdict).SerializeToString())
    with open(path, "wb") as out:
        pickle.dump(answers, out)
    digest = hashlib.sha256(b"".join(len(a).to_bytes(4, "big") + a for a in answers))
    return f"{len(answers)} answers written to {path}; sha256 {digest.hexdigest()}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20, help="positions per ruleset")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rulesets", default=",".join(REARRANGEMENT))
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds per server")
    parser.add_argument("--gap-ms", type=float, default=5.0, help="pause before a gap call")
    parser.add_argument("--workers", type=int, default=1, help="carrossel serve --workers")
    parser.add_argument(
        "--target",
        action="append",
        help="host:port[@pid] of a running carrossel server (loopback); given twice, both "
        "servers are timed in interleaved rounds (e.g. before and after a change)",
    )
    parser.add_argument("--no-echo", action="store_true", help="time ValidateMove only")
    parser.add_argument(
        "--proto-echo",
        action="store_true",
        help="also an echo server with ValidateMove's messages (parsed and serialized)",
    )
    parser.add_argument(
        "--parts", action="store_true", help="no servers: CPU per part of a call in process"
    )
    parser.add_argument("--profile", type=int, default=0, help="with --parts: cProfile's top N")
    parser.add_argument(
        "--save-proposals", metavar="PATH", help="write the proposals (request bytes) to PATH"
    )
    parser.add_argument(
        "--load-proposals", metavar="PATH", help="read the proposals from PATH, not solving"
    )
    parser.add_argument(
        "--answers",
        metavar="PATH",
        help="no servers: judge every proposal twice in process (the second pass hits every "
        "cache), write the serialized answers to PATH and print their digest",
    )
    parser.add_argument("--serve-echo", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--intercepted", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--no-pin-calls",
        dest="pin_calls",
        action="store_false",
        help="servers started here leave their call path to the scheduler (serve --no-pin-calls)",
    )
    args = parser.parse_args(argv)
    if args.serve_echo is not None:
        serve_echo(args.serve_echo, args.intercepted, args.pin_calls)
        return 0
    loopback = ("127.", "localhost", "[::1]")
    if any(not address.startswith(loopback) for address in args.target or ()):
        parser.error("--target must be a loopback address")
    print(f"bench.validate_bench: {machine()}", flush=True)
    if args.load_proposals:
        calls = load_proposals(args.load_proposals)
    else:
        calls = proposals(args.rulesets.split(","), args.n, args.seed)
    if args.save_proposals:
        save_proposals(calls, args.save_proposals)
    legal = sum(p.legal for p in calls)
    print(
        f"{len(calls)} proposals ({legal} legal, {len(calls) - legal} illegal) on mid tables "
        f"of {args.rulesets}; {args.rounds} rounds, workers {args.workers}",
        flush=True,
    )
    if args.answers:
        print(write_answers(calls, args.answers))
        return 0
    if args.parts:
        for line in cpu_parts(calls, args.rounds, args.profile):
            print(line)
        return 0
    if args.target and len(args.target) > 1:
        targets = [carrossel_target(a, 1, f"ValidateMove {a.split('@')[0]}") for a in args.target]
    else:
        address = args.target[0] if args.target else None
        targets = [carrossel_target(address, args.workers, pin_calls=args.pin_calls)]
    if args.proto_echo:
        targets = [*proto_echo_targets(args.pin_calls), *targets]
    if not args.no_echo:
        pin = args.pin_calls
        targets = [echo_target(False, pin), echo_target(True, pin), *targets]
    times = Times.empty()
    rng = random.Random(args.seed)
    try:
        for target in targets:  # warm: connections, caches, the first parse of each ruleset
            for proposal in calls if target.warm_every_call else calls[:: max(1, len(calls) // 20)]:
                target.call(proposal)
        for _ in range(args.rounds):
            order = list(calls)
            rng.shuffle(order)
            for gap_s in (0.0, args.gap_ms / 1000.0):
                for target in targets:
                    time_round(target, order, gap_s, times)
    finally:
        for target in targets:
            target.close()
    for line in report(times):
        print(line)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
