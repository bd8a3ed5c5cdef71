"""Time ValidateMove(suggest=true) as a client sees it (issue #53): through one kept channel
to a server this script starts (``bench.over_grpc``), on mid tables (``bench.positions``)
with illegal proposals made as players make them (``tests.reference.suggest_oracle``'s
mutations of the best move, or of the table as it was).

    .venv/bin/python -m bench.suggest_bench [--n 40] [--seed 1] [--size mid] [ruleset ...]

Prints per ruleset the call's p50 / p90 / max in ms, the same calls without ``suggest``, and
how many suggestions were found and proved nearest (``suggestion_optimal``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

import grpc

from bench.over_grpc import position_proto, solve_move_stub
from bench.positions import PositionSpec, bench_positions
from carrossel.v1 import rummy_pb2
from service.rummy.convert import move_to_proto
from solver.rearrangement.search import solve_move, validate_move
from solver.rummy.position import Move
from tests.reference.suggest_oracle import MUTATIONS

RULESETS = ("carrossel", "mexe-mexe", "rummikub")  # the rulesets bench.positions makes
TRIES = 20  # mutations tried per position for an illegal proposal


def illegal_proposal(spec: PositionSpec, rng: random.Random) -> Move | None:
    """One or two mutations of the best move (or of the table as it was) that the referee
    rejects; None if none of ``TRIES`` is illegal."""
    position = spec.position()
    best = solve_move(position, time_limit_ms=2000).moves
    for _ in range(TRIES):
        start = best[0].move if best and rng.random() < 0.7 else Move(position.table)
        table = [list(meld) for meld in start.table]
        for mutate in rng.sample(MUTATIONS, rng.choice((1, 1, 2))):
            mutate(table, rng, position)
        proposal = Move(tuple(tuple(meld) for meld in table if meld), start.to_hand)
        if not validate_move(position, proposal).legal:
            return proposal
    return None


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40, help="positions per ruleset")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", default="mid")
    parser.add_argument("--target", default=None, help="host:port of a running server")
    parser.add_argument("rulesets", nargs="*", default=list(RULESETS))
    args = parser.parse_args(argv)
    with solve_move_stub(args.target) as stub:
        for ruleset_id in args.rulesets:
            rng = random.Random(f"{args.seed}/{ruleset_id}/suggest")
            timed: list[float] = []
            plain: list[float] = []
            found = proved = 0
            for spec in bench_positions(ruleset_id, args.size, args.n, args.seed):
                proposal = illegal_proposal(spec, rng)
                if proposal is None:
                    continue
                request = rummy_pb2.ValidateMoveRequest(
                    position=position_proto(spec), move=move_to_proto(proposal), suggest=True
                )
                started = time.perf_counter()
                try:
                    answer = stub.ValidateMove(request, timeout=30)
                except grpc.RpcError as error:
                    # A mutation can write more copies of a card than the deck holds
                    # (a 2 both taken back and left on the table): a malformed request.
                    if error.code() is not grpc.StatusCode.INVALID_ARGUMENT:
                        raise
                    continue
                timed.append((time.perf_counter() - started) * 1000.0)
                request.suggest = False
                started = time.perf_counter()
                stub.ValidateMove(request, timeout=30)
                plain.append((time.perf_counter() - started) * 1000.0)
                found += answer.HasField("nearest_legal")
                proved += answer.suggestion_optimal
            if not timed:
                print(f"{ruleset_id}: no illegal proposal made")
                continue
            print(
                f"{ruleset_id} {args.size}: {len(timed)} proposals, suggest p50 "
                f"{statistics.median(timed):.1f} ms, p90 {percentile(timed, 0.9):.1f}, max "
                f"{max(timed):.1f}; without suggest p50 {statistics.median(plain):.1f} ms; "
                f"{found} suggestions, {proved} proved nearest",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
