"""Time carioca's ValidateMove(suggest=true) as a client sees it (issue #53): through one
kept channel to a server in another process (``bench.over_grpc``), on mid carioca positions
(``bench.carioca_bench``: 12-card hands with up to 4 jokers, before opening and after it
with tables of 4-8 melds), with illegal proposals made as players make them (the mistakes
of ``tests.reference.carioca_suggest_oracle`` applied to SolveMove's best turn, or to the
table as it was).

    .venv/bin/python -m bench.carioca_suggest_bench [--n 150] [--seed 1] [--target host:port]

Prints per kind the call's p50 / p90 / max in ms (wall time through the call), the same
calls without ``suggest``, the search's in-process CPU time (``time.process_time`` of
``suggest_contract_move``: steady on a loaded machine), and how many suggestions were
found and proved nearest.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable

import grpc

from bench.carioca_bench import layoff, opening
from bench.over_grpc import solve_move_stub
from bench.solve_bench import percentile
from carrossel.v1 import rummy_pb2
from service.rummy.convert import move_to_proto
from solver.contract.referee import validate_contract_move
from solver.contract.search import solve_contract_move
from solver.contract.suggest import suggest_contract_move
from solver.rummy.position import Move, Position, Turn, parse_position
from tests.reference.carioca_suggest_oracle import MUTATIONS

TRIES = 20  # mistakes tried per position for an illegal proposal
KINDS: dict[str, Callable[[random.Random], rummy_pb2.SolveMoveRequest]] = {
    "opening": opening,
    "layoff": layoff,
}


def parsed(request: rummy_pb2.SolveMoveRequest) -> Position:
    p = request.position
    turn = Turn(
        cards_drawn=p.turn.cards_drawn,
        has_opened=p.turn.has_opened,
        deal_number=p.turn.deal_number,
    )
    return parse_position("carioca", p.players, [list(m.cards) for m in p.table], p.hand, turn)


def illegal_proposal(position: Position, rng: random.Random) -> Move | None:
    """One or two mistakes on the best turn (or on the table as it was) that the referee
    rejects; None if none of ``TRIES`` is illegal."""
    best = solve_contract_move(position, 1, 2000).moves[0].move
    for _ in range(TRIES):
        start = best if rng.random() < 0.7 else Move(position.table, discard=best.discard)
        table = [list(meld) for meld in start.table]
        for mutate in rng.sample(MUTATIONS, rng.choice((1, 1, 2))):
            mutate(table, rng, position)
        proposal = Move(tuple(tuple(m) for m in table if m), discard=start.discard)
        if not validate_contract_move(position, proposal).legal:
            return proposal
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=150, help="positions per kind")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--target", default=None, help="host:port of a running server")
    args = parser.parse_args(argv)
    with solve_move_stub(args.target) as stub:
        for kind, make in KINDS.items():
            rng = random.Random(f"{args.seed}/{kind}/carioca-suggest")
            timed: list[float] = []
            plain: list[float] = []
            cpu: list[float] = []
            found = proved = 0
            for _ in range(args.n):
                request = make(rng)
                position = parsed(request)
                proposal = illegal_proposal(position, rng)
                if proposal is None:
                    continue
                asked = rummy_pb2.ValidateMoveRequest(
                    position=request.position, move=move_to_proto(proposal), suggest=True
                )
                started = time.perf_counter()
                try:
                    answer = stub.ValidateMove(asked, timeout=30)
                except grpc.RpcError as error:
                    # A mistake can write a third copy of a card: a malformed request.
                    if error.code() is not grpc.StatusCode.INVALID_ARGUMENT:
                        raise
                    continue
                timed.append((time.perf_counter() - started) * 1000.0)
                asked.suggest = False
                started = time.perf_counter()
                stub.ValidateMove(asked, timeout=30)
                plain.append((time.perf_counter() - started) * 1000.0)
                started = time.process_time()
                suggest_contract_move(position, proposal, 10_000)
                cpu.append((time.process_time() - started) * 1000.0)
                found += answer.HasField("nearest_legal")
                proved += answer.suggestion_optimal
            if not timed:
                print(f"carioca {kind}: no illegal proposal made")
                continue
            print(
                f"carioca {kind}: {len(timed)} proposals, suggest p50 "
                f"{statistics.median(timed):.2f} ms, p90 {percentile(timed, 90):.2f}, max "
                f"{max(timed):.2f}; without suggest p50 {statistics.median(plain):.2f} ms; "
                f"in-process CPU p50 {statistics.median(cpu):.2f} ms, p90 "
                f"{percentile(cpu, 90):.2f}, max {max(cpu):.2f}; {found} suggestions, "
                f"{proved} proved nearest",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
