"""``carrossel knock RULESET ...``: CheckKnock (R10) from the command line.

Example::

    carrossel knock carrossel --table "7H 8S JK=9" --hand "5C 9D 3S"
    carrossel knock carrossel --table "7H 8S JK=9" --hand "5C 9D 3S" --after "5C JK 7H 8S 9D"

With ``--after``: may the player knock after that move, and why not. Without: the lowest hand
total a play this turn can leave, whether a knock or going out is reachable, and a move that
reaches the lowest total (the witness). The answer is RummyService.CheckKnock's own.
Exit status: 0 a knock is allowed / reachable, 1 not, 2 malformed input or a ruleset without
a knock that refuses the question (carioca), 3 when a search could not be settled in time.
"""

from __future__ import annotations

import argparse

from carrossel.v1 import rummy_pb2
from service.cli.commands import Subparsers
from service.cli.display import count, show_cards
from service.cli.position_args import DEFAULTS_TEXT, add_position_args
from service.cli.rpc import call_rpc, move_to_proto, position_to_proto, print_json
from service.rummy import RummyServicer
from solver.core.registry import Rpc


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "knock",
        help="may the player knock: `carrossel knock carrossel --table ... --hand ...`",
        description="Ask CheckKnock (R10): with --after, may the player knock after that move; "
        "without, the lowest hand total reachable this turn and whether a knock or going out "
        "is. Exit status: 0 yes, 1 no, 2 malformed input. " + DEFAULTS_TEXT,
    )
    add_position_args(parser, Rpc.CHECK_KNOCK)
    parser.add_argument(
        "--after", default=None, help="the whole table after a move: judge a knock after it"
    )
    parser.add_argument(
        "--to-hand", default="", help="released wilds taken to the hand by that move"
    )
    parser.add_argument(
        "--time-limit-ms", type=int, default=0, help="solver time budget (default: the service's)"
    )
    parser.add_argument("--json", action="store_true", help="print CheckKnockResponse as JSON")
    parser.set_defaults(func=run)


def request_from_args(args: argparse.Namespace) -> rummy_pb2.CheckKnockRequest:
    request = rummy_pb2.CheckKnockRequest(
        position=position_to_proto(args), time_limit_ms=args.time_limit_ms
    )
    if args.after is not None:
        # The knock itself is what is asked, so the move is judged as a knock-less play.
        request.move.CopyFrom(move_to_proto(args))
    return request


def run(args: argparse.Namespace) -> int:
    request = request_from_args(args)
    answer = call_rpc(RummyServicer().CheckKnock, request)
    if isinstance(answer, int):
        return answer
    if args.json:
        print_json(answer)
    elif request.HasField("move"):
        print(render_after_move(answer))
    else:
        print(render_reach(answer))
    return 0 if answer.eligible or answer.can_knock else 1


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def render_after_move(answer: rummy_pb2.CheckKnockResponse) -> str:
    """Eligibility after the given move, and the reason when not."""
    lines = [f"may knock: {_yes(answer.eligible)}"]
    if answer.reason:
        lines.append(f"  - {answer.reason}")
    lines.append(f"hand after: {count(answer.hand_points, 'point')}")
    return "\n".join(lines)


def render_reach(answer: rummy_pb2.CheckKnockResponse) -> str:
    """What this turn can reach, and the witness move."""
    lines = [
        f"hand now: {count(answer.hand_points, 'point')}; lowest reachable: "
        f"{count(answer.best_hand_points, 'point')}",
        f"knock reachable: {_yes(answer.can_knock)}; going out reachable: "
        f"{_yes(answer.can_go_out)}",
    ]
    if answer.reason:
        lines.append(f"  - {answer.reason}")
    if answer.HasField("witness"):
        lines.append("witness (the lowest total):")
        lines += [f"    {show_cards(meld.cards)}" for meld in answer.witness.table]
        if answer.witness.to_hand:
            lines.append(f"  to hand: {show_cards(answer.witness.to_hand)}")
    proof = "optimal" if answer.optimal else "best found in the time limit (not proved)"
    lines.append(proof)
    return "\n".join(lines)
