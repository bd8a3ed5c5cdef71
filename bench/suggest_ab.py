"""Two source trees' suggestions on the same frozen proposals (issue #53): the same keys, and
the CPU time of each, main and a branch interleaved run by run.

    .venv/bin/python -m bench.suggest_ab freeze FILE [--n 40] [--seed 1] [--size mid]
        [--ruleset mexe-mexe]
    .venv/bin/python -m bench.suggest_ab compare FILE --other /tmp/main [--runs 2] [--rounds 3]

``freeze`` writes ``bench.suggest_bench``'s illegal proposals (and their positions) to FILE as
card codes. They are made from a time-limited SolveMove, which a loaded machine can cut
short, so two runs of the bench may not judge the same proposals; frozen, they are the same
for every tree and every run. ``compare`` answers FILE's proposals in this tree and in the
tree ``--other`` (an exported copy of main, ``git archive main | tar -x -C DIR``, run with
this tree's interpreter), ``--runs`` times each in turn, each proposal's suggestion timed
``--rounds`` times (in-process CPU, ``time.process_time()``, best of the rounds and runs);
it prints per tree the p50, mean and p90 over the proposals, the per-proposal median
difference where the other tree takes 1-20 ms (the group the median lies in), and exits 1
if any proposal's keys (cards laid, proposal melds kept, melds changed) or proof differ.
The trees run in separate processes: ``python bench/suggest_ab.py time FILE`` with the
tree as working directory and ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

Frozen = dict[str, Any]


def freeze(path: Path, ruleset_id: str, size: str, n: int, seed: int) -> int:
    from bench.suggest_bench import judged_proposals

    frozen: list[Frozen] = []
    for spec, _, proposal in judged_proposals(ruleset_id, size, n, seed):
        turn = spec.turn
        frozen.append(
            {
                "name": spec.name,
                "ruleset": spec.ruleset,
                "players": spec.players,
                "table": spec.table,
                "hand": spec.hand,
                "turn": [
                    turn.cards_drawn,
                    turn.stock_empty,
                    turn.has_melded_sequence,
                    turn.has_opened,
                    turn.deal_number,
                ],
                "proposal": [[tc.code for tc in meld] for meld in proposal.table],
                "to_hand": [card.code for card in proposal.to_hand],
                "knock": proposal.knock,
            }
        )
    path.write_text(json.dumps(frozen))
    return len(frozen)


def time_tree(path: Path, rounds: int) -> list[tuple[float, Any]]:
    """Per frozen proposal: the best CPU ms of ``rounds`` suggestions, and its keys."""
    from solver.core.cards import parse_card, parse_table_card
    from solver.rearrangement.suggest import suggest_move
    from solver.rummy.position import Move, Turn, parse_position

    out: list[tuple[float, Any]] = []
    for item in json.loads(path.read_text()):
        drawn, stock_empty, sequence, opened, deal = item["turn"]
        turn = Turn(drawn, stock_empty, sequence, opened, deal)
        position = parse_position(
            item["ruleset"], item["players"], item["table"], item["hand"], turn
        )
        table = tuple(tuple(parse_table_card(c) for c in meld) for meld in item["proposal"])
        to_hand = tuple(parse_card(c) for c in item["to_hand"])
        proposal = Move(table, to_hand, item["knock"])
        best = float("inf")
        for _ in range(rounds):
            started = time.process_time()
            found = suggest_move(position, proposal)
            best = min(best, (time.process_time() - started) * 1000)
        move = found.move
        keys = None
        if move is not None:
            keys = [len(move.solved.verdict.played), len(move.kept), move.solved.melds_changed]
        out.append((best, [keys, found.optimal]))
    return out


def _run_tree(tree: Path, path: Path, rounds: int) -> list[tuple[float, Any]]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    command = [sys.executable, str(Path(__file__).resolve()), "time", str(path)]
    command += ["--rounds", str(rounds)]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=True)
    return [(ms, answer) for ms, answer in json.loads(done.stdout)]


def _summary(label: str, times: list[float]) -> str:
    p90 = sorted(times)[max(0, round(0.9 * len(times)) - 1)]
    return (
        f"{label:>6}: p50 {statistics.median(times):6.2f}  mean {statistics.mean(times):6.2f}"
        f"  p90 {p90:6.1f} ms CPU"
    )


def compare(path: Path, other: Path, runs: int, rounds: int) -> int:
    here = Path(__file__).resolve().parent.parent
    best: dict[str, list[float]] = {}
    answers: dict[str, list[Any]] = {}
    for run in range(runs):
        for label, tree in (("other", other), ("this", here)):
            timed = _run_tree(tree, path, rounds)
            times = [ms for ms, _ in timed]
            print(f"run {run + 1} {_summary(label, times)}", flush=True)
            best[label] = [min(a, b) for a, b in zip(best.get(label, times), times, strict=True)]
            answers.setdefault(label, [answer for _, answer in timed])
    print(_summary("other", best["other"]))
    print(_summary("this", best["this"]))
    group = [i for i, ms in enumerate(best["other"]) if 1 < ms < 20]
    if group:
        diff = statistics.median(best["this"][i] - best["other"][i] for i in group)
        print(f"per proposal, where the other tree takes 1-20 ms ({len(group)}): {diff:+.2f} ms")
    names = [item["name"] for item in json.loads(path.read_text())]
    differ = [
        (name, a, b)
        for name, a, b in zip(names, answers["other"], answers["this"], strict=True)
        if a != b
    ]
    for name, a, b in differ:
        print(f"  {name}: other {a}, this {b}")
    print(f"keys and proof: {len(names) - len(differ)} of {len(names)} the same")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    frozen = commands.add_parser("freeze")
    frozen.add_argument("file", type=Path)
    frozen.add_argument("--n", type=int, default=40)
    frozen.add_argument("--seed", type=int, default=1)
    frozen.add_argument("--size", default="mid")
    frozen.add_argument("--ruleset", default="mexe-mexe")
    timed = commands.add_parser("time")
    timed.add_argument("file", type=Path)
    timed.add_argument("--rounds", type=int, default=3)
    both = commands.add_parser("compare")
    both.add_argument("file", type=Path)
    both.add_argument("--other", type=Path, required=True)
    both.add_argument("--runs", type=int, default=2)
    both.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if args.command == "freeze":
        count = freeze(args.file, args.ruleset, args.size, args.n, args.seed)
        print(f"{count} proposals written to {args.file}")
        return 0
    if args.command == "time":
        print(json.dumps(time_tree(args.file, args.rounds)))
        return 0
    return compare(args.file, args.other.resolve(), args.runs, args.rounds)


if __name__ == "__main__":
    sys.exit(main())
