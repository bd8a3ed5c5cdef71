"""Time the fishing RPCs as a client sees them: real gRPC calls on one kept channel.

``python -m bench.fishing_bench [--n 200] [--target host:port]`` starts ``carrossel serve``
on a free port (or uses ``--target``) and times, per call, the client's wall time:

- ``ValidatePlay`` on full tables (8 items, a build among them on some) with 4-card hands,
  validating the best play found for the position (the F7 check runs on every trail);
- ``SolvePlay`` (HORIZON_PLAY, max_plays 1) on the same positions: the CP-SAT model;
- ``SolvePlay`` with ``HORIZON_DEAL_END`` on 2-player last rounds (4 + 4 cards, 4 on the
  table, every other card in the piles).

Prints p50 / p90 / p99 and the mean in milliseconds. Speed is reported, never asserted.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import grpc

from bench.over_grpc import free_port, wait_serving
from bench.solve_bench import percentile
from carrossel.v1 import fishing_pb2, fishing_pb2_grpc

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
DECK = (*(f"{r}{s}" for s in "CDHS" for r in RANKS), "JK20", "JK15", "JK11", "BROOM")
VALUES = {**{r: i + 1 for i, r in enumerate(RANKS[:10])}, "JK20": 20, "JK15": 15, "JK11": 11}


def _value(code: str) -> int:
    return VALUES.get(code, VALUES.get(code[:-1], 0))


def full_table(rng: random.Random) -> fishing_pb2.FishingPosition:
    """8 table items (a build of two numbered cards on every other position) and 4 cards."""
    deck = [c for c in DECK if c != "BROOM"]
    rng.shuffle(deck)
    table = []
    for _ in range(8):
        table.append(fishing_pb2.TableItem(cards=[deck.pop()]))
    if rng.random() < 0.5:
        numbered = [c for c in deck if 0 < _value(c) <= 9][:2]
        for code in numbered:
            deck.remove(code)
        table[0] = fishing_pb2.TableItem(cards=numbered, value=sum(map(_value, numbered)), owner=1)
    hand = [deck.pop() for _ in range(4)]
    return fishing_pb2.FishingPosition(
        ruleset=rng.choice(("carosello", "carrusel", "karusele")),
        deck_size=56,
        table=table,
        hand=hand,
    )


def last_round(rng: random.Random) -> fishing_pb2.FishingPosition:
    """A 2-player last round: 4 + 4 cards in hand, 4 on the table, the rest in the piles."""
    deck = list(DECK)
    rng.shuffle(deck)
    deck.remove("BROOM")
    deck.insert(0, "BROOM")  # never on the table (F6): it sits in a pile or a hand
    table = [deck.pop() for _ in range(4)]
    own, other = [deck.pop() for _ in range(4)], [deck.pop() for _ in range(4)]
    half = len(deck) // 2
    return fishing_pb2.FishingPosition(
        ruleset="carosello",
        deck_size=56,
        players=2,
        player=0,
        hand=own,
        table=[fishing_pb2.TableItem(cards=[c]) for c in table],
        piles=[fishing_pb2.Pile(cards=deck[:half]), fishing_pb2.Pile(cards=deck[half:])],
        last_capturer=rng.randrange(2),
        other_hands=[fishing_pb2.PlayerHand(player=1, cards=other)],
    )


def timed(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000.0


def report(name: str, times: Sequence[float]) -> str:
    return (
        f"{name:<26} n={len(times):<4} p50 {percentile(times, 50):7.2f}  "
        f"p90 {percentile(times, 90):7.2f}  p99 {percentile(times, 99):7.2f}  "
        f"mean {statistics.fmean(times):7.2f} ms"
    )


def run(stub: fishing_pb2_grpc.FishingServiceStub, n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    positions = [full_table(rng) for _ in range(n)]
    requests = [fishing_pb2.SolvePlayRequest(position=p, max_plays=1) for p in positions]
    answers = [stub.SolvePlay(r, timeout=30) for r in requests]  # warm-up, and the plays
    validate = [
        fishing_pb2.ValidatePlayRequest(position=p, play=a.plays[0].play)
        for p, a in zip(positions, answers, strict=True)
    ]
    endgames = [
        fishing_pb2.SolvePlayRequest(
            position=last_round(rng),
            max_plays=1,
            horizon=fishing_pb2.HORIZON_DEAL_END,
            time_limit_ms=10_000,
        )
        for _ in range(max(1, n // 4))
    ]
    return [
        report(
            "ValidatePlay (8 items)",
            [timed(partial(stub.ValidatePlay, r, timeout=30)) for r in validate],
        ),
        report(
            "SolvePlay (8 items)",
            [timed(partial(stub.SolvePlay, r, timeout=30)) for r in requests],
        ),
        report(
            "SolvePlay deal end (4+4)",
            [timed(partial(stub.SolvePlay, r, timeout=60)) for r in endgames],
        ),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="positions per RPC (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--target", default=None, help="host:port of a running server")
    args = parser.parse_args(argv)
    server: subprocess.Popen[bytes] | None = None
    target = args.target
    if target is None:
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve", "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        target = f"127.0.0.1:{port}"
    try:
        with grpc.insecure_channel(target) as channel:
            wait_serving(channel, server)
            for line in run(fishing_pb2_grpc.FishingServiceStub(channel), args.n, args.seed):
                print(line)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
