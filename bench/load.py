"""A closed-loop load benchmark: N concurrent clients call a server for a bounded time.

Each client sends one call, waits for its answer, and sends the next (closed loop), drawing
ValidateMove or SolveMove at the given mix over mid positions of the chosen rulesets; each
client has its own connection. The ValidateMove requests carry the best move of their
position (solved in-process before the clock starts), so they are the plays a client would
really submit. It prints the throughput, p50/p90/p99 per RPC, and every status other than
OK with its count; with a server it started itself (or one named ``--target ADDR@PID``),
also the resident memory of each of its processes every ``--rss-every`` seconds and the
server's CPU time (OK calls per CPU second compares runs on a shared machine).
``--compare`` runs one server per ``CPUS:WORKERS`` setting (``taskset -c CPUS``,
``--workers WORKERS``) and prints a row each.

    .venv/bin/python -m bench.load --clients 16 --duration 20
    .venv/bin/python -m bench.load --clients 16 --duration 60 --rss-every 10
    .venv/bin/python -m bench.load --clients 16 --duration 20 --compare '0:1;0,1:1;0,1:2'
    .venv/bin/python -m bench.load --target 127.0.0.1:50051 --clients 64 --mix 0.6
    .venv/bin/python -m bench.load --target 127.0.0.1:50051@PID --clients 16 --duration 15

Loopback only: ``--target`` must be a 127.0.0.0/8 or localhost address.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import grpc.aio

from bench.over_grpc import free_port, position_proto, wait_serving
from bench.positions import PositionSpec, bench_positions
from bench.solve_bench import machine, percentile
from carrossel.v1 import rummy_pb2, rummy_pb2_grpc
from service.rummy.convert import move_to_proto
from solver.rearrangement.search import solve_move
from solver.rummy.position import parse_position

LOOPBACK = ("127.", "localhost", "[::1]")


@dataclass
class Tally:
    """What the clients saw: call latencies per RPC and statuses."""

    latencies_ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: Counter[tuple[str, str]] = field(default_factory=Counter)


@dataclass(frozen=True)
class Calls:
    """The prepared requests: one ValidateMove and one SolveMove per position."""

    validate: tuple[rummy_pb2.ValidateMoveRequest, ...]
    solve: tuple[rummy_pb2.SolveMoveRequest, ...]


def prepare(rulesets: Sequence[str], size: str, n: int, seed: int, limit_ms: int) -> Calls:
    """Requests built before the clock starts; ValidateMove gets each position's best move."""
    validate: list[rummy_pb2.ValidateMoveRequest] = []
    solve: list[rummy_pb2.SolveMoveRequest] = []
    for ruleset in rulesets:
        for spec in bench_positions(ruleset, size, n, seed):
            solve.append(
                rummy_pb2.SolveMoveRequest(position=position_proto(spec), time_limit_ms=limit_ms)
            )
            best = _best_move(spec, limit_ms)
            if best is not None:
                validate.append(
                    rummy_pb2.ValidateMoveRequest(position=position_proto(spec), move=best)
                )
    return Calls(tuple(validate), tuple(solve))


def _best_move(spec: PositionSpec, limit_ms: int) -> rummy_pb2.RummyMove | None:
    position = parse_position(
        spec.ruleset, spec.players, [list(m) for m in spec.table], list(spec.hand), spec.turn
    )
    result = solve_move(position, None, 1, limit_ms)
    return move_to_proto(result.moves[0].move) if result.moves else None


async def _client(
    stub: rummy_pb2_grpc.RummyServiceAsyncStub,
    calls: Calls,
    mix: float,
    stop_at: float,
    rng: random.Random,
    tally: Tally,
    deadline_s: float,
) -> None:
    while time.monotonic() < stop_at:
        validate = rng.random() < mix and calls.validate
        rpc = "ValidateMove" if validate else "SolveMove"
        start = time.perf_counter()
        try:
            if validate:
                await stub.ValidateMove(rng.choice(calls.validate), timeout=deadline_s)
            else:
                await stub.SolveMove(rng.choice(calls.solve), timeout=deadline_s)
            status = "OK"
        except grpc.aio.AioRpcError as error:
            status = error.code().name
        tally.latencies_ms[rpc].append((time.perf_counter() - start) * 1000.0)
        tally.statuses[(rpc, status)] += 1


async def run_load(
    target: str,
    calls: Calls,
    clients: int,
    duration_s: float,
    mix: float,
    seed: int,
    deadline_s: float,
) -> tuple[Tally, float]:
    """Run ``clients`` closed-loop clients for ``duration_s`` seconds, each on a channel and
    connection of its own, as separate game clients are (so a server's worker processes,
    which share connections out, all get work)."""
    tally = Tally()
    options = [("grpc.use_local_subchannel_pool", 1)]  # one connection per client
    channels = [grpc.aio.insecure_channel(target, options=options) for _ in range(clients)]
    try:
        for channel in channels:
            await channel.channel_ready()
        start = time.monotonic()
        stop_at = start + duration_s
        await asyncio.gather(
            *(
                _client(
                    rummy_pb2_grpc.RummyServiceStub(channel),
                    calls,
                    mix,
                    stop_at,
                    random.Random(seed * 1000 + i),
                    tally,
                    deadline_s,
                )
                for i, channel in enumerate(channels)
            )
        )
        elapsed = time.monotonic() - start
    finally:
        for channel in channels:
            await channel.close()
    return tally, elapsed


def report(tally: Tally, elapsed_s: float, clients: int) -> list[str]:
    """The lines the benchmark prints."""
    ok = sum(n for (_, status), n in tally.statuses.items() if status == "OK")
    total = sum(tally.statuses.values())
    lines = [
        f"{clients} clients, {elapsed_s:.1f} s: {total} calls, {ok} OK, "
        f"{ok / elapsed_s:.1f} OK calls/s",
        f"{'rpc':<13} {'calls':>7} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8}",
    ]
    for rpc in sorted(tally.latencies_ms):
        times = tally.latencies_ms[rpc]
        lines.append(
            f"{rpc:<13} {len(times):>7} {percentile(times, 50):>8.2f} "
            f"{percentile(times, 90):>8.2f} {percentile(times, 99):>8.2f} {max(times):>8.2f}"
        )
    errors = {key: n for key, n in tally.statuses.items() if key[1] != "OK"}
    lines.append(
        "errors: none"
        if not errors
        else "errors: " + ", ".join(f"{rpc} {status} ×{n}" for (rpc, status), n in errors.items())
    )
    return lines


def server_pids(pid: int) -> list[int]:
    """A server process and its children (``--workers`` processes; multiprocessing's helper)."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    found = [pid]
    if children.exists():
        found += [int(p) for p in children.read_text().split()]
    return found


def rss_mb(pid: int) -> float:
    """The resident memory of one process, in MB (0 once it has exited)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cpu_s(pids: Sequence[int]) -> float:
    """User and system CPU seconds the processes have used so far."""
    ticks = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


@dataclass
class ServerWatch:
    """A server started here: its processes' RSS sampled during the run, and its CPU time."""

    pid: int
    samples: list[tuple[float, dict[int, float]]] = field(default_factory=list)
    cpu_before: float = 0.0
    cpu_after: float = 0.0

    def sample(self, at_s: float) -> None:
        self.samples.append((at_s, {p: rss_mb(p) for p in server_pids(self.pid)}))

    async def sample_every(self, every_s: float, stop_at: float) -> None:
        start = time.monotonic()
        while time.monotonic() + every_s <= stop_at:
            await asyncio.sleep(every_s)
            self.sample(time.monotonic() - start)

    def lines(self, ok: int) -> list[str]:
        """RSS per process, before, during and after, and OK calls per server CPU second."""
        pids = sorted({p for _, by_pid in self.samples for p in by_pid})
        names = {p: "parent" if p == self.pid else f"pid {p}" for p in pids}
        if len(pids) == 1:
            names[self.pid] = "server"
        lines = ["server RSS MB by process, " + ", ".join(f"t={t:.0f}s" for t, _ in self.samples)]
        for p in pids:
            values = " ".join(f"{by_pid.get(p, 0.0):6.0f}" for _, by_pid in self.samples)
            lines.append(f"  {names[p]:<10} {values}")
        first, last = self.samples[0][1], self.samples[-1][1]
        lines.append(
            f"server RSS: {sum(first.values()):.0f} MB before, {sum(last.values()):.0f} MB after"
        )
        used = self.cpu_after - self.cpu_before
        if used > 0:
            lines.append(
                f"server CPU: {used:.1f} s, {ok / used:.0f} OK calls per CPU second "
                "(a shared machine's figure: wall-clock throughput needs a quiet one)"
            )
        return lines


def _start_server(workers: int | None, cpus: str | None) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [sys.executable, "-m", "service.cli", "serve", "--port", str(port)]
    if workers is not None:
        command += ["--workers", str(workers)]
    if cpus:
        command = ["taskset", "-c", cpus, *command]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    target = f"127.0.0.1:{port}"
    with grpc.insecure_channel(target) as channel:
        wait_serving(channel, server)
    return server, target


@dataclass(frozen=True)
class Setting:
    """One server configuration of a comparison: its CPU list and worker processes."""

    cpus: str | None
    workers: int | None

    @classmethod
    def parse(cls, text: str) -> Setting:
        """``CPUS:WORKERS``, e.g. ``0:1`` or ``0,1:2``; an empty part is the default."""
        cpus, _, workers = text.partition(":")
        return cls(cpus or None, int(workers) if workers else None)

    def __str__(self) -> str:
        return f"cpus {self.cpus or 'all'}, workers {self.workers or 'default'}"


def run_once(
    args: argparse.Namespace, calls: Calls, setting: Setting
) -> tuple[Tally, float, ServerWatch | None, str]:
    """One load run against ``--target`` or a server started with ``setting``."""
    server: subprocess.Popen[bytes] | None = None
    target, _, pid = (args.target or "").partition("@")
    if not target:
        server, target = _start_server(setting.workers, setting.cpus)
    # A running server named with its process (``--target ADDR@PID``) is watched as one
    # started here: its CPU per OK call, its RSS.
    watch = ServerWatch(server.pid) if server else ServerWatch(int(pid)) if pid else None

    async def load() -> tuple[Tally, float]:
        stop_at = time.monotonic() + args.duration
        sampler = (
            asyncio.ensure_future(watch.sample_every(args.rss_every, stop_at)) if watch else None
        )
        try:
            return await run_load(
                target, calls, args.clients, args.duration, args.mix, args.seed, args.deadline_s
            )
        finally:
            if sampler is not None:
                sampler.cancel()

    try:
        if watch is not None:
            watch.sample(0.0)
            watch.cpu_before = cpu_s(server_pids(watch.pid))
        tally, elapsed = asyncio.run(load())
        if watch is not None:
            watch.cpu_after = cpu_s(server_pids(watch.pid))
            watch.sample(elapsed)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
    return tally, elapsed, watch, target


def summary(setting: Setting, tally: Tally, elapsed_s: float, watch: ServerWatch | None) -> str:
    """One row of a comparison."""
    ok = sum(n for (_, status), n in tally.statuses.items() if status == "OK")
    errors = sum(n for (_, status), n in tally.statuses.items() if status != "OK")
    cells = [f"{setting!s:<28}", f"{ok / elapsed_s:>7.1f}"]
    for rpc in ("ValidateMove", "SolveMove"):
        times = tally.latencies_ms.get(rpc) or [float("nan")]
        cells.append(f"{percentile(times, 50):>7.2f} {percentile(times, 99):>7.2f}")
    cells.append(f"{errors:>6}")
    if watch is not None and watch.cpu_after > watch.cpu_before:
        cells.append(f"{ok / (watch.cpu_after - watch.cpu_before):>8.0f}")
        before, after = (sum(watch.samples[i][1].values()) for i in (0, -1))
        cells.append(f"{before:>5.0f}->{after:.0f}")
    return " ".join(cells)


COMPARE_HEADER = (
    f"{'setting':<28} {'OK/s':>7} {'VM p50':>7} {'VM p99':>7} {'SM p50':>7} {'SM p99':>7} "
    f"{'errors':>6} {'OK/cpu-s':>8} RSS MB"
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--target",
        help="host:port of a running server (loopback only); host:port@PID also reads the "
        "server's CPU and RSS (its process and its workers)",
    )
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of load")
    parser.add_argument("--mix", type=float, default=0.6, help="share of ValidateMove calls")
    parser.add_argument("--rulesets", default="carrossel,rummikub")
    parser.add_argument("--size", default="mid", choices=["small", "mid", "large"])
    parser.add_argument("--n", type=int, default=40, help="positions per ruleset")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit-ms", type=int, default=2000)
    parser.add_argument("--deadline-s", type=float, default=10.0, help="each call's deadline")
    parser.add_argument("--workers", type=int, help="the server's --workers (when started here)")
    parser.add_argument("--cpus", help="taskset CPU list for a server started here, e.g. 0")
    parser.add_argument(
        "--rss-every", type=float, default=10.0, help="seconds between RSS samples of the server"
    )
    parser.add_argument(
        "--compare",
        help="run once per CPUS:WORKERS setting, separated by ';' or spaces, e.g. "
        "'0:1;0,1:1;0,1:2' (taskset -c 0 with 1 worker, ...), and print one row each",
    )
    args = parser.parse_args(argv)
    if args.target and not args.target.startswith(LOOPBACK):
        parser.error("--target must be a loopback address (127.0.0.0/8, localhost, [::1])")
    if not 0.0 <= args.mix <= 1.0 or args.clients < 1 or args.duration <= 0:
        parser.error("--mix is 0-1, --clients at least 1, --duration positive")
    if args.compare and args.target:
        parser.error("--compare starts its own servers: no --target")
    print(f"bench.load: {machine()}", flush=True)
    calls = prepare(args.rulesets.split(","), args.size, args.n, args.seed, args.time_limit_ms)
    if args.compare:
        settings = [Setting.parse(t) for t in args.compare.replace(";", " ").split()]
        print(
            f"{args.clients} clients, {args.duration:.0f} s each, mix {args.mix}, "
            f"{args.size} positions of {args.rulesets}"
        )
        print(COMPARE_HEADER, flush=True)
        for setting in settings:
            tally, elapsed, watch, _ = run_once(args, calls, setting)
            print(summary(setting, tally, elapsed, watch), flush=True)
        return 0
    setting = Setting(args.cpus, args.workers)
    tally, elapsed, watch, target = run_once(args, calls, setting)
    print(f"{target}: {setting}, mix {args.mix}, {args.size} positions of {args.rulesets}")
    for line in report(tally, elapsed, args.clients):
        print(line)
    if watch is not None:
        ok = sum(n for (_, status), n in tally.statuses.items() if status == "OK")
        for line in watch.lines(ok):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
