"""Time ValidatePlay(suggest=true) for the fishing games (issue #53), per call.

    .venv/bin/python -m bench.fishing_suggest_bench [--n 300] [--seed 0] [--target host:port]

The positions are ``play_sample``'s with 6-8 table items (builds among them) and 4 cards in
hand; the proposals are players' mistakes (``tests.reference.fishing_proposals``) that the
referee rejects. Without ``--target`` each call goes through the servicer in process
(request parse, referee, suggestion search, response message: the call minus the wire) and
is timed in CPU time (``time.process_time``), so other load on the machine does not count;
with ``--target`` it is a real gRPC call on one kept channel, timed in wall time. Calls with
and without ``suggest`` alternate, so both see the same machine. Prints p50 / p90 / max in
ms and how many suggestions were proved nearest. Speed is reported, never asserted.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import grpc

from carrossel.v1 import fishing_pb2, fishing_pb2_grpc
from service.cli.rpc import LocalContext
from service.fishing import FishingServicer
from tests.fishing_suggest_differential import as_raw
from tests.reference.fishing_positions import play_sample
from tests.reference.fishing_proposals import mistakes

MIN_ITEMS = 6


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def requests(n: int, seed: int) -> list[fishing_pb2.ValidatePlayRequest]:
    """``n`` illegal proposals on positions with 6-8 table items and 4 cards in hand."""
    servicer, context = FishingServicer(), LocalContext()
    found: list[fishing_pb2.ValidatePlayRequest] = []
    while len(found) < n:
        sample = play_sample(seed)
        rng = random.Random(seed)
        seed += 1
        if len(sample.table) < MIN_ITEMS or len(sample.hand) < 4:
            continue
        raw = sample.raw
        position = fishing_pb2.FishingPosition(
            ruleset=raw.ruleset,
            deck_size=raw.deck_size,
            player=raw.player,
            players=raw.players,
            hand=list(raw.hand),
            table=[
                fishing_pb2.TableItem(cards=list(i.cards), value=i.value, owner=i.owner)
                for i in raw.table
            ],
        )
        for _, proposal in mistakes(sample, rng)[:1]:
            play = as_raw(proposal)
            message = fishing_pb2.FishingPlay(card=play.card)
            if play.action == "capture":
                message.capture.groups.extend(
                    fishing_pb2.CaptureGroup(items=list(g)) for g in play.groups
                )
            elif play.action == "build":
                message.build.items.extend(play.items)
                message.build.value = play.value
            else:
                message.trail.SetInParent()
            request = fishing_pb2.ValidatePlayRequest(position=position, play=message)
            if not servicer.ValidatePlay(request, context).legal:  # type: ignore[arg-type]
                found.append(request)
    return found


def caller(target: str | None) -> tuple[Callable[[Any], Any], Callable[[], float]]:
    """The call and its clock: in process on CPU time, or over gRPC on wall time."""
    if target is None:
        servicer, context = FishingServicer(), LocalContext()
        return (lambda r: servicer.ValidatePlay(r, context)), time.process_time  # type: ignore[arg-type]
    stub = fishing_pb2_grpc.FishingServiceStub(grpc.insecure_channel(target))
    return (lambda r: stub.ValidatePlay(r, timeout=30)), time.perf_counter


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300, help="illegal proposals")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--target", default=None, help="host:port of a running server")
    args = parser.parse_args(argv)
    call, clock = caller(args.target)
    timings: dict[bool, list[float]] = {False: [], True: []}
    proved = found = 0
    for request in requests(args.n, args.seed):
        for suggest in (False, True):
            request.suggest = suggest
            start = clock()
            answer = call(request)
            timings[suggest].append((clock() - start) * 1000.0)
        found += answer.HasField("nearest_legal")
        proved += answer.suggestion_optimal
    where = f"over gRPC to {args.target}, wall" if args.target else "in process, CPU"
    print(f"ValidatePlay on {args.n} illegal proposals (6-8 table items, 4 in hand), {where} ms:")
    for suggest, label in ((False, "without suggest"), (True, "suggest=true")):
        values = timings[suggest]
        print(
            f"  {label:16} p50 {percentile(values, 0.5):6.2f}  p90 "
            f"{percentile(values, 0.9):6.2f}  max {max(values):6.2f}"
        )
    print(f"  {found} suggestions, {proved} proved nearest")
    return 0


if __name__ == "__main__":
    sys.exit(main())
