"""Time carioca's SolveMove as a client sees it: one kept channel to a server in another
process (``bench.over_grpc.solve_move_stub``), percentiles of the calls' wall time.

Positions (seeded): 12-card hands with up to 4 jokers, drawn from a two-deck pack (C1).
Three kinds, as many of each: before opening (the hand often holds the deal's contract,
C2-C4), after opening with a table of 4-8 melds grown by lay-offs (C5), and the draw
decision (11 cards and a top discard, C6). Run::

    .venv/bin/python -m bench.carioca_bench --positions 300

Prints p50 / p90 / p99 (nearest rank) / max per kind and overall, in milliseconds, and
exits 1 when a first move was not proved optimal.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bench.over_grpc import solve_move_stub
from bench.solve_bench import percentile
from carrossel.v1 import rummy_pb2

SUITS = "CDHS"
RANK_TEXT = {1: "A", 11: "J", 12: "Q", 13: "K"}
CONTRACTS = {1: (2, 0), 2: (1, 1), 3: (0, 2), 4: (3, 0), 5: (2, 1), 6: (1, 2), 7: (0, 3)}
HAND_SIZE = 12
MAX_JOKERS = 4


def code(rank: int, suit: str) -> str:
    return f"{RANK_TEXT.get(rank, str(rank))}{suit}"


def rank_at(position: int) -> int:
    return 1 if position == 14 else position


class Pack:
    """Two of every card and four jokers (C1); cards are taken out as they are dealt."""

    def __init__(self) -> None:
        self.left = {code(r, s): 2 for r in range(1, 14) for s in SUITS}
        self.left["JK"] = 4

    def take(self, card: str) -> bool:
        if self.left.get(card, 0) <= 0:
            return False
        self.left[card] -= 1
        return True

    def any_card(self, rng: random.Random) -> str:
        while True:
            card = code(rng.randint(1, 13), rng.choice(SUITS))
            if self.take(card):
                return card


@dataclass(frozen=True)
class BenchPosition:
    kind: str
    request: rummy_pb2.SolveMoveRequest


def _request(
    deal: int, opened: bool, table: Sequence[Sequence[str]], hand: Sequence[str], top: str = ""
) -> rummy_pb2.SolveMoveRequest:
    return rummy_pb2.SolveMoveRequest(
        position=rummy_pb2.RummyPosition(
            ruleset="carioca",
            players=4,
            table=[rummy_pb2.Meld(cards=list(m)) for m in table],
            hand=list(hand),
            turn=rummy_pb2.Turn(cards_drawn=0 if top else 1, deal_number=deal, has_opened=opened),
            discard_top=top,
        ),
        max_moves=1,
    )


def _contract_cards(rng: random.Random, pack: Pack, deal: int) -> list[str]:
    trios, sequences = CONTRACTS[deal]
    cards: list[str] = []
    for _ in range(trios):
        rank = rng.randint(1, 13)
        cards += [c for c in (code(rank, rng.choice(SUITS)) for _ in range(3)) if pack.take(c)]
    for _ in range(sequences):
        suit, start = rng.choice(SUITS), rng.randint(1, 11)
        window = (code(rank_at(p), suit) for p in range(start, start + 4))
        cards += [c for c in window if pack.take(c)]
    return cards


def _hand(rng: random.Random, pack: Pack, size: int, seed_cards: list[str]) -> list[str]:
    hand = seed_cards[:size]
    for _ in range(rng.randint(0, MAX_JOKERS)):
        if len(hand) < size and pack.take("JK"):
            hand.append("JK")
    while len(hand) < size:
        hand.append(pack.any_card(rng))
    return hand


def opening(rng: random.Random) -> rummy_pb2.SolveMoveRequest:
    deal = rng.randint(1, 7)
    pack = Pack()
    planted = _contract_cards(rng, pack, deal) if rng.random() < 0.6 else []
    rng.shuffle(planted)
    size = HAND_SIZE + (1 if deal == 7 else 0)
    return _request(deal, False, [], _hand(rng, pack, size, planted[: size - 2]))


def _table(rng: random.Random, pack: Pack) -> list[list[str]]:
    table: list[list[str]] = []
    while len(table) < rng.randint(4, 8):
        if rng.random() < 0.4:
            rank = rng.randint(1, 13)
            meld = [c for c in (code(rank, s) for s in rng.sample(SUITS, 3)) if pack.take(c)]
            if len(meld) == 3:
                table.append(meld)
            continue
        suit, length = rng.choice(SUITS), rng.randint(4, 7)
        start = rng.randint(1, 15 - length)
        joker_at = rng.randrange(length) if rng.random() < 0.3 else -1
        meld = []
        for k, p in enumerate(range(start, start + length)):
            card = "JK" if k == joker_at else code(rank_at(p), suit)
            if pack.take(card):
                meld.append(card)
        if len(meld) == length:
            table.append(meld)
    return table


def _near(rng: random.Random, pack: Pack, table: list[list[str]], count: int) -> list[str]:
    """Cards that fit the table's melds: a trio's rank, or beside a sequence's ends."""
    out: list[str] = []
    for _ in range(count * 4):
        if len(out) >= count:
            break
        meld = rng.choice(table)
        naturals = [c for c in meld if c != "JK"]
        if len({c[:-1] for c in naturals}) == 1:
            card = naturals[0][:-1] + rng.choice(SUITS)
        else:
            suit = naturals[0][-1]
            first = next(i for i, c in enumerate(meld) if c != "JK")
            text = meld[first][:-1]
            rank = {"A": 1, "J": 11, "Q": 12, "K": 13}.get(text) or int(text)
            low = rank - first if not (rank == 1 and first > 0) else 14 - first
            position = low + rng.randint(-3, len(meld) + 2)
            if not 1 <= position <= 14:
                continue
            card = code(rank_at(position), suit)
        if pack.take(card):
            out.append(card)
    return out


def layoff(rng: random.Random) -> rummy_pb2.SolveMoveRequest:
    pack = Pack()
    table = _table(rng, pack)
    hand = _hand(rng, pack, HAND_SIZE, _near(rng, pack, table, 8))
    return _request(rng.randint(1, 7), True, table, hand)


def draw(rng: random.Random) -> rummy_pb2.SolveMoveRequest:
    request = opening(rng) if rng.random() < 0.5 else layoff(rng)
    position = request.position
    top = position.hand.pop()
    position.discard_top = top
    position.turn.cards_drawn = 0
    return request


KINDS = {"opening": opening, "layoff": layoff, "draw": draw}


def positions(count: int, seed: int) -> list[BenchPosition]:
    rng = random.Random(seed)
    return [BenchPosition(kind, make(rng)) for _ in range(count) for kind, make in KINDS.items()]


def report(name: str, times: Sequence[float]) -> str:
    return (
        f"{name:8} n={len(times):5}  p50 {percentile(times, 50):6.2f}  "
        f"p90 {percentile(times, 90):6.2f}  p99 {percentile(times, 99):6.2f}  "
        f"max {max(times):6.2f}  mean {statistics.fmean(times):6.2f} ms"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=300, help="positions of each kind")
    parser.add_argument("--seed", type=int, default=48)
    parser.add_argument("--target", default=None, help="host:port of a running server")
    parser.add_argument("--warmup", type=int, default=30, help="untimed calls first")
    args = parser.parse_args(argv)
    bench = positions(args.positions, args.seed)
    times: dict[str, list[float]] = {kind: [] for kind in KINDS}
    unproved = 0
    with solve_move_stub(args.target) as stub:
        for item in bench[: args.warmup]:
            stub.SolveMove(item.request, timeout=30)
        for item in bench:
            started = time.perf_counter()
            response = stub.SolveMove(item.request, timeout=30)
            times[item.kind].append((time.perf_counter() - started) * 1000)
            if not response.optimal:
                unproved += 1
                print(f"not proved optimal: {item.request}")
    for kind, values in times.items():
        print(report(kind, values))
    print(report("all", [t for values in times.values() for t in values]))
    return 1 if unproved else 0


if __name__ == "__main__":
    raise SystemExit(main())
