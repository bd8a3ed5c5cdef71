"""``carrossel hint RULESET ...``: the best moves the CP-SAT solver finds, best first.

Example::

    carrossel hint carrossel --players 2 --table "7H 8S JK=9" --hand "5C 9D" -n 2

Each move is printed as its whole table; melds it changes or creates are marked ``*``.
Exit status: 0 with at least one move, 1 when no legal play exists, 2 malformed input.
"""

from __future__ import annotations

import argparse

from service.cli.commands import Subparsers
from service.cli.position_args import (
    add_position_args,
    position_from_args,
    print_malformed,
)
from solver.core.cards import format_cards
from solver.core.errors import InvalidRequest
from solver.core.registry import Rpc, not_served
from solver.rearrangement.search import DEFAULT_TIME_LIMIT_MS, Objective, SolveResult, solve_move


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "hint",
        help="best moves: `carrossel hint carrossel --table ... --hand ... -n 3`",
        description="Find the best legal moves of a rearrangement game with the CP-SAT solver.",
    )
    add_position_args(parser)
    parser.add_argument(
        "--objective",
        choices=[o.value for o in Objective],
        default=None,
        help="most_cards, fewest_points (default where hands score) or go_out",
    )
    parser.add_argument("-n", type=int, default=1, help="how many distinct moves (default 1)")
    parser.add_argument(
        "--time-limit-ms", type=int, default=DEFAULT_TIME_LIMIT_MS, help="solver time budget"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        position = position_from_args(args)
    except InvalidRequest as error:
        return print_malformed(error, "position")
    if reason := not_served(position.ruleset, Rpc.SOLVE_MOVE):
        print(f"{position.ruleset.id}: {reason}")
        return 2
    objective = Objective(args.objective) if args.objective else None
    result = solve_move(position, objective, max(1, args.n), args.time_limit_ms)
    print(render(result))
    return 0 if result.moves else 1


def render(result: SolveResult) -> str:
    """Every move as melds, changed melds marked with ``*``."""
    if not result.moves:
        return "no legal play: draw or pass"
    lines = []
    for n, solved in enumerate(result.moves, 1):
        verdict = solved.verdict
        played = format_cards(verdict.played)
        lines.append(
            f"move {n}: play {played} -> hand {verdict.hand_points_after} points"
            f"{', goes out' if verdict.went_out else ''}"
            f"{', may knock' if verdict.knock_eligible else ''}"
            f" ({solved.melds_changed} melds changed)"
        )
        for meld, changed in zip(solved.move.table, solved.changed, strict=True):
            mark = "*" if changed else " "
            lines.append(f"  {mark} {format_cards(meld)}")
        if solved.move.to_hand:
            lines.append(f"  to hand: {format_cards(solved.move.to_hand)}")
    proof = "optimal" if result.optimal else "best found in the time limit (not proved)"
    if result.optimal and result.stats.time_limited:
        proof += " (the time limit cut the rest of the search: more time may list other moves)"
    lines.append(f"{proof}; {result.stats.wall_time_ms:.0f} ms")
    return "\n".join(lines)
