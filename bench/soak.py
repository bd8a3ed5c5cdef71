"""Soak a server: mixed concurrent load, hostile requests among it, statuses and RSS reported.

Run from the repository root::

    python -m bench.soak                      # 60 s, 8 clients, a server started for the run
    python -m bench.soak --seconds 10 --clients 4 --target 127.0.0.1:50051
    python -m bench.soak --huge-passes 5      # RSS after each burst of huge requests

Each client loops over a weighted mix: ValidateMove and SolveMove on seeded random positions
(small to large, some asking for 30 s and cancelled after 0.2-1 s, some with deadlines
shorter than their search), ScoreRound, ListRulesets, Health/Check, and hostile requests
(500,000 ``totals_before``, 500,000 empty melds, 4 MB strings, lookalike card codes, bytes
that are not a message). Each kind has the statuses it may end with; any other is counted
as unexpected and printed. The server's RSS (from ``/proc``, so on Linux and for a server
started here or with ``--pid``) is read before, during and after.

Exit status: 0, or 1 when a call ended with an unexpected status or the server died.
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # ``python bench/soak.py``
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench.over_grpc import free_port, wait_serving
from bench.positions import SIZES, random_position
from carrossel.v1 import rulesets_pb2, rulesets_pb2_grpc, rummy_pb2, rummy_pb2_grpc

OK = grpc.StatusCode.OK
INVALID = grpc.StatusCode.INVALID_ARGUMENT
EXHAUSTED = grpc.StatusCode.RESOURCE_EXHAUSTED
EXPIRED = grpc.StatusCode.DEADLINE_EXCEEDED
CANCELLED = grpc.StatusCode.CANCELLED
INTERNAL = grpc.StatusCode.INTERNAL
UNIMPLEMENTED = grpc.StatusCode.UNIMPLEMENTED


@dataclass(frozen=True)
class Stubs:
    rummy: rummy_pb2_grpc.RummyServiceStub
    rulesets: rulesets_pb2_grpc.RulesetServiceStub
    health: health_pb2_grpc.HealthStub
    raw_validate: Callable[..., Any]  # ValidateMove taking bytes as they are


def make_stubs(channel: grpc.Channel) -> Stubs:
    raw = channel.unary_unary(
        "/carrossel.v1.RummyService/ValidateMove",
        request_serializer=lambda data: data,
        response_deserializer=lambda data: data,
    )
    return Stubs(
        rummy_pb2_grpc.RummyServiceStub(channel),
        rulesets_pb2_grpc.RulesetServiceStub(channel),
        health_pb2_grpc.HealthStub(channel),
        raw,
    )


def rss_mb(pid: int) -> float | None:
    """The resident set of process ``pid`` in MB, from /proc (None elsewhere)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


# --- the requests ----------------------------------------------------------------------------


def _position(rng: random.Random) -> rummy_pb2.RummyPosition:
    ruleset = rng.choice(("carrossel", "rummikub", "vatikan", "mexe-mexe", "shangai"))
    size = rng.choice(("small", "small", "mid", "large"))
    spec = random_position(
        rng,
        ruleset,
        table_size=SIZES[size],
        hand_size=(3, 14),
        table_jokers=rng.randint(0, 1),
        hand_jokers=rng.randint(0, 1),
    )
    return rummy_pb2.RummyPosition(
        ruleset=spec.ruleset,
        players=spec.players,
        table=[rummy_pb2.Meld(cards=list(m)) for m in spec.table],
        hand=list(spec.hand),
        turn=rummy_pb2.Turn(
            cards_drawn=spec.turn.cards_drawn,
            stock_empty=spec.turn.stock_empty,
            has_melded_sequence=spec.turn.has_melded_sequence,
            has_opened=spec.turn.has_opened,
        ),
    )


def huge_requests() -> list[tuple[str, Any]]:
    """Requests far beyond the server's bounds, each refused with INVALID_ARGUMENT (or, past
    the 4 MB message bound, RESOURCE_EXHAUSTED)."""
    totals = rummy_pb2.ScoreRoundRequest(
        ruleset="carrossel",
        players=2,
        end=rummy_pb2.ROUND_END_WENT_OUT,
        hands=[rummy_pb2.Hand(), rummy_pb2.Hand(cards=["7H"])],
        totals_before=[1] * 500_000,
    )
    melds = rummy_pb2.ValidateMoveRequest(
        position=rummy_pb2.RummyPosition(ruleset="carrossel", players=2, hand=["7H"]),
        move=rummy_pb2.RummyMove(),
    )
    melds.position.table.extend(rummy_pb2.Meld() for _ in range(500_000))
    long_codes = rummy_pb2.ValidateMoveRequest(
        position=rummy_pb2.RummyPosition(ruleset="carrossel", players=2, hand=["Z" * 3900] * 1000),
        move=rummy_pb2.RummyMove(),
    )
    long_id = rummy_pb2.SolveMoveRequest(
        position=rummy_pb2.RummyPosition(ruleset="x" * 3_000_000, players=2, hand=["7H"])
    )
    too_big = rummy_pb2.SolveMoveRequest(
        position=rummy_pb2.RummyPosition(ruleset="x" * 5_000_000, players=2, hand=["7H"])
    )
    return [
        ("ScoreRound", totals),
        ("ValidateMove", melds),
        ("ValidateMove", long_codes),
        ("SolveMove", long_id),
        ("SolveMove", too_big),
    ]


@dataclass
class Tally:
    counts: Counter[tuple[str, str]]
    unexpected: list[str]
    lock: threading.Lock

    def add(
        self, kind: str, code: grpc.StatusCode, allowed: set[grpc.StatusCode], why: str
    ) -> None:
        with self.lock:
            self.counts[kind, code.name] += 1
            if code not in allowed:
                self.unexpected.append(f"{kind}: {code.name} {why[:200]}")


def _call(
    tally: Tally,
    kind: str,
    allowed: set[grpc.StatusCode],
    call: Callable[..., Any],
    request: Any,
    **kwargs: Any,
) -> None:
    try:
        call(request, **kwargs)
        tally.add(kind, OK, allowed, "")
    except grpc.RpcError as error:
        tally.add(kind, error.code(), allowed, error.details() or "")


def one_call(rng: random.Random, stubs: Stubs, tally: Tally, huge: list[tuple[str, Any]]) -> None:
    """One call of the mix, chosen at random."""
    pick = rng.random()
    busy = {OK, EXHAUSTED}  # any call may be refused by a full server
    if pick < 0.30:
        position = _position(rng)
        validate = rummy_pb2.ValidateMoveRequest(
            position=position, move=rummy_pb2.RummyMove(table=list(position.table))
        )
        _call(tally, "ValidateMove", busy, stubs.rummy.ValidateMove, validate, timeout=30)
    elif pick < 0.55:
        request = rummy_pb2.SolveMoveRequest(
            position=_position(rng), time_limit_ms=rng.choice((50, 300, 2000))
        )
        _call(tally, "SolveMove", busy, stubs.rummy.SolveMove, request, timeout=30)
    elif pick < 0.60:  # asks for 30 s, gives up after a moment
        request = rummy_pb2.SolveMoveRequest(position=_position(rng), time_limit_ms=30_000)
        future = stubs.rummy.SolveMove.future(request, timeout=60)
        time.sleep(rng.uniform(0.2, 1.0))
        future.cancel()
        try:
            future.result()
            tally.add("SolveMove cancelled", OK, busy, "")
        except grpc.FutureCancelledError:
            tally.add("SolveMove cancelled", CANCELLED, {CANCELLED}, "")
        except grpc.RpcError as error:
            tally.add("SolveMove cancelled", error.code(), busy, error.details() or "")
    elif pick < 0.65:  # a deadline shorter than the search
        request = rummy_pb2.SolveMoveRequest(position=_position(rng), time_limit_ms=30_000)
        _call(
            tally,
            "SolveMove short deadline",
            busy | {EXPIRED},
            stubs.rummy.SolveMove,
            request,
            timeout=rng.uniform(0.05, 0.5),
        )
    elif pick < 0.72:
        score = rummy_pb2.ScoreRoundRequest(
            ruleset="carrossel",
            players=2,
            end=rummy_pb2.ROUND_END_WENT_OUT,
            hands=[rummy_pb2.Hand(), rummy_pb2.Hand(cards=["7H", "KD"])],
        )
        _call(tally, "ScoreRound", busy, stubs.rummy.ScoreRound, score, timeout=30)
    elif pick < 0.78:
        _call(
            tally,
            "ListRulesets",
            busy,
            stubs.rulesets.ListRulesets,
            rulesets_pb2.ListRulesetsRequest(),
            timeout=30,
        )
    elif pick < 0.88:
        _call(
            tally,
            "Health/Check",
            {OK},
            stubs.health.Check,
            health_pb2.HealthCheckRequest(),
            timeout=10,
        )
    elif pick < 0.93:
        name, request = rng.choice(huge)
        _call(
            tally,
            f"{name} huge",
            {INVALID, EXHAUSTED},
            getattr(stubs.rummy, name),
            request,
            timeout=30,
        )
    elif pick < 0.96:
        odd_card = rummy_pb2.ValidateMoveRequest(
            position=rummy_pb2.RummyPosition(ruleset="carrossel", players=2, hand=["7\u017f"]),
            move=rummy_pb2.RummyMove(),
        )
        _call(
            tally,
            "ValidateMove lookalike",
            {INVALID, EXHAUSTED},
            stubs.rummy.ValidateMove,
            odd_card,
            timeout=30,
        )
    else:
        garbage = bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
        # Not a protobuf message: gRPC's documented INTERNAL (or a lucky parse, then a
        # malformed request).
        _call(
            tally,
            "ValidateMove raw bytes",
            {INTERNAL, INVALID, EXHAUSTED},
            stubs.raw_validate,
            garbage,
            timeout=30,
        )


# --- runs --------------------------------------------------------------------------------------


@contextmanager
def server_for_run(target: str | None) -> Iterator[tuple[str, int | None]]:
    """``target`` as given (pid unknown), or a ``carrossel serve`` started for the run."""
    if target is not None:
        yield target, None
        return
    import subprocess

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            wait_serving(channel, server)
        yield f"127.0.0.1:{port}", server.pid
        if server.poll() is not None:
            raise RuntimeError(f"the server died during the run (exit {server.returncode})")
    finally:
        server.terminate()
        server.wait(timeout=30)


def soak(target: str, pid: int | None, seconds: float, clients: int, seed: int) -> int:
    huge = huge_requests()
    tally = Tally(Counter(), [], threading.Lock())
    stop_at = time.monotonic() + seconds
    samples: list[float] = []
    options = [("grpc.max_send_message_length", 8 * 1024 * 1024)]
    with grpc.insecure_channel(target, options=options) as channel:
        stubs = make_stubs(channel)

        def client(k: int) -> None:
            rng = random.Random(f"soak/{seed}/{k}")
            while time.monotonic() < stop_at:
                one_call(rng, stubs, tally, huge)

        before = rss_mb(pid) if pid else None
        threads = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(clients)]
        for thread in threads:
            thread.start()
        while any(t.is_alive() for t in threads):
            time.sleep(1.0)
            if pid and (now := rss_mb(pid)) is not None:
                samples.append(now)
        time.sleep(1.0)  # let the last answers' memory go
        after = rss_mb(pid) if pid else None
    total = sum(tally.counts.values())
    print(f"{total} calls in {seconds:.0f} s from {clients} clients")
    for (kind, code), count in sorted(tally.counts.items()):
        print(f"  {kind:28} {code:20} {count:6}")
    if before is not None and after is not None:
        warm = samples[len(samples) // 6] if samples else after
        print(
            f"server RSS: before {before:.0f} MB, after the first sixth of the run "
            f"{warm:.0f} MB, peak {max(samples, default=after):.0f} MB, after {after:.0f} MB"
        )
    for line in tally.unexpected[:20]:
        print("UNEXPECTED", line)
    print(f"unexpected statuses: {len(tally.unexpected)}")
    return 1 if tally.unexpected else 0


def huge_passes(target: str, pid: int | None, passes: int, burst: int) -> int:
    """Passes of ``burst`` concurrent copies of every huge request; RSS after each."""
    huge = huge_requests()
    tally = Tally(Counter(), [], threading.Lock())
    options = [("grpc.max_send_message_length", 8 * 1024 * 1024)]
    with grpc.insecure_channel(target, options=options) as channel:
        stubs = make_stubs(channel)
        print(f"pass 0 (before): RSS {rss_mb(pid) if pid else float('nan'):.0f} MB")
        for n in range(1, passes + 1):
            for name, request in huge:
                futures = [
                    getattr(stubs.rummy, name).future(request, timeout=60) for _ in range(burst)
                ]
                for future in futures:
                    error = future.exception()
                    code = error.code() if isinstance(error, grpc.RpcError) else OK
                    tally.add(f"{name} huge", code, {INVALID, EXHAUSTED}, str(error))
            time.sleep(1.5)  # the server trims its heap after a burst (service/memory.py)
            print(f"pass {n}: RSS {rss_mb(pid) if pid else float('nan'):.0f} MB")
    for line in tally.unexpected[:20]:
        print("UNEXPECTED", line)
    return 1 if tally.unexpected else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", help="host:port of a running server (default: start one)")
    parser.add_argument("--pid", type=int, help="the --target server's pid, for its RSS")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--huge-passes",
        type=int,
        default=0,
        help="instead of the soak: this many bursts of huge requests",
    )
    parser.add_argument("--burst", type=int, default=8)
    args = parser.parse_args(argv)
    with server_for_run(args.target) as (target, pid):
        pid = args.pid or pid
        if args.huge_passes:
            return huge_passes(target, pid, args.huge_passes, args.burst)
        return soak(target, pid, args.seconds, args.clients, args.seed)


if __name__ == "__main__":
    sys.exit(main())
