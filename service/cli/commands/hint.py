"""``carrossel hint RULESET ...``: the best moves the CP-SAT solver finds, best first.

Example::

    carrossel hint carrossel --players 2 --table "7H 8S JK=9" --hand "5C 9D" -n 2
    carrossel hint carioca --deal 2 --hand "8C 8D 4S 5S 6S 7S KD 2C 3C 9H 10C" \\
        --discard-top 8H

Each move is printed as its whole table; melds it changes or creates are marked ``*``.
Exit status: 0 with at least one move, 1 when no legal play exists, 2 malformed input.
"""

from __future__ import annotations

import argparse

from carrossel.v1 import rummy_pb2
from service.cli.commands import Subparsers
from service.cli.display import count, show_card, show_cards
from service.cli.position_args import (
    DEFAULTS_TEXT,
    add_position_args,
    position_from_args,
    print_malformed,
)
from service.cli.rpc import call_rpc, position_to_proto, print_json
from service.rummy import RummyServicer
from solver.contract.draw import DrawDecision, decide_draw, parse_discard_top
from solver.contract.search import ContractSolveResult, solve_contract_move
from solver.core.errors import InvalidRequest
from solver.core.registry import Rpc, not_served
from solver.core.rulesets import Family
from solver.rearrangement.search import DEFAULT_TIME_LIMIT_MS, Objective, SolveResult, solve_move
from solver.rummy.position import Position


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "hint",
        help="best moves: `carrossel hint carrossel --table ... --hand ... -n 3`",
        description="Find the best legal moves of a rearrangement game or of carioca with the "
        "CP-SAT solver. " + DEFAULTS_TEXT,
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
    parser.add_argument(
        "--discard-top",
        default="",
        help="carioca: the top discard, before the draw: take it or draw from the stock? (C6)",
    )
    parser.add_argument("--json", action="store_true", help="print SolveMoveResponse as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.json:
        return run_json(args)
    try:
        position = position_from_args(args)
    except InvalidRequest as error:
        return print_malformed(error, "position")
    if reason := not_served(position.ruleset, Rpc.SOLVE_MOVE):
        print(f"{position.ruleset.id}: {reason}")
        return 2
    if position.ruleset.family is Family.CONTRACT:
        return run_contract(args, position)
    objective = Objective(args.objective) if args.objective else None
    result = solve_move(position, objective, max(1, args.n), args.time_limit_ms)
    print(render(result))
    return 0 if result.moves else 1


def run_json(args: argparse.Namespace) -> int:
    """The service's SolveMove answer, as grpcurl prints it."""
    objective = (
        rummy_pb2.Objective.Value(f"OBJECTIVE_{args.objective.upper()}")
        if args.objective
        else rummy_pb2.OBJECTIVE_UNSPECIFIED
    )
    request = rummy_pb2.SolveMoveRequest(
        position=position_to_proto(args),
        objective=objective,
        max_moves=max(1, args.n),
        time_limit_ms=args.time_limit_ms,
    )
    answer = call_rpc(RummyServicer().SolveMove, request)
    if isinstance(answer, int):
        return answer
    print_json(answer)
    return 0 if answer.moves else 1


def run_contract(args: argparse.Namespace, position: Position) -> int:
    """Carioca: the best turns (C2-C7), and with --discard-top the draw decision (C6)."""
    most_cards = args.objective == Objective.MOST_CARDS.value
    count = max(1, args.n)
    if not args.discard_top:
        result = solve_contract_move(position, count, args.time_limit_ms, most_cards)
        print(render_contract(result))
        return 0 if result.moves else 1
    try:
        card = parse_discard_top(position, args.discard_top)
    except InvalidRequest as error:
        return print_malformed(error, "position")
    drawn = decide_draw(position, card, count, args.time_limit_ms, most_cards)
    print(render_draw(drawn.decision))
    print(render_contract(drawn.solved))
    return 0 if drawn.solved.moves else 1


def render_draw(decision: DrawDecision) -> str:
    card = show_card(decision.card.code)
    if decision.take:
        return (
            f"take {card}: {count(decision.points_after_taking, 'point')} left at best, "
            f"{decision.points_without} drawing from the stock"
        )
    return (
        f"draw from the stock: taking {card} leaves "
        f"{count(decision.points_after_taking, 'point')} at best, "
        f"{decision.points_without} without it"
    )


def render_contract(result: ContractSolveResult) -> str:
    """Every turn as its table (new or grown melds marked ``*``) and its discard."""
    if not result.moves:
        return "no turn: the hand is empty"
    lines = []
    for n, solved in enumerate(result.moves, 1):
        verdict = solved.verdict
        played = show_cards(c.code for c in verdict.played) or "nothing"
        discard = show_card(solved.move.discard.code) if solved.move.discard else "-"
        lines.append(
            f"move {n}: lay {played}, discard {discard} -> hand {verdict.hand_points_after} "
            f"points{', goes out' if verdict.went_out else ''}"
        )
        for meld, changed in zip(solved.move.table, solved.changed, strict=True):
            lines.append(f"  {'*' if changed else ' '} {show_cards(tc.code for tc in meld)}")
    proof = "optimal" if result.optimal else "best found in the time limit (not proved)"
    lines.append(f"{proof}; {result.stats.wall_time_ms:.0f} ms")
    return "\n".join(lines)


def render(result: SolveResult) -> str:
    """Every move as melds, changed melds marked with ``*``."""
    if not result.moves:
        return "no legal play: draw or pass"
    lines = []
    for n, solved in enumerate(result.moves, 1):
        verdict = solved.verdict
        played = show_cards(verdict.played)
        lines.append(
            f"move {n}: play {played} -> hand {count(verdict.hand_points_after, 'point')}"
            f"{', goes out' if verdict.went_out else ''}"
            f"{', may knock' if verdict.knock_eligible else ''}"
            f" ({count(solved.melds_changed, 'meld')} changed)"
        )
        for meld, changed in zip(solved.move.table, solved.changed, strict=True):
            mark = "*" if changed else " "
            lines.append(f"  {mark} {show_cards(meld)}")
        if solved.move.to_hand:
            lines.append(f"  to hand: {show_cards(solved.move.to_hand)}")
    proof = "optimal" if result.optimal else "best found in the time limit (not proved)"
    if result.optimal and result.stats.time_limited:
        proof += " (the time limit cut the rest of the search: more time may list other moves)"
    lines.append(f"{proof}; {result.stats.wall_time_ms:.0f} ms")
    return "\n".join(lines)
