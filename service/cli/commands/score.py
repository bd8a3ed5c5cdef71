"""``carrossel score RULESET --end knock --ender 0 --hands "3H 2C | KD 9S 7C"``: settle a round.

Runs the same settlement as RummyService.ScoreRound, locally, and prints every line item.
Hands are separated by ``|`` in seat order (the number of hands is the number of players);
``-`` or nothing between two bars is an empty hand.
"""

from __future__ import annotations

import argparse
import sys

from carrossel.v1 import rummy_pb2
from service.cli.commands import Subparsers
from service.cli.rpc import call_rpc, print_json
from service.rummy import RummyServicer
from solver.core.errors import InvalidRequest
from solver.core.rulesets import RULESETS, Family
from solver.rummy.scoring import RoundScore, ScoreLine, parse_round, parse_round_end, score_round
from solver.rummy.scoring.text import seat
from solver.rummy.scoring.types import RoundEnd

_RUMMY = ", ".join(r.id for r in RULESETS.values() if r.family is not Family.FISHING)


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "score",
        help='settle a round, e.g. `carrossel score carrossel --end knock --hands "4H | 9S 7C"`',
        description="Settle the end of a rummy round (R11-R13, C7-C8) and explain every "
        "figure. Exit status 2 when the round is malformed.",
    )
    parser.add_argument("ruleset", help=f"ruleset id: {_RUMMY}")
    parser.add_argument(
        "--end",
        required=True,
        help="how the round ended: went out, knock or stock exhausted (spaces, '-' or '_'; "
        "any case) "
        "(carioca: stock-exhausted is a void deal, C8)",
    )
    parser.add_argument(
        "--ender", type=int, default=0, help="who went out or knocked, from 0 (default 0)"
    )
    parser.add_argument(
        "--hands",
        required=True,
        help='every hand in seat order, separated by "|": "3H 2C | KD 9S 7C | -"',
    )
    parser.add_argument("--totals", type=_numbers, default=(), help="totals before: 10,20,0")
    parser.add_argument("--rounds-won", type=_numbers, default=(), help="rounds won before: 1,0,0")
    parser.add_argument("--deal", type=int, default=0, help="carioca deal number, 1-7")
    parser.add_argument("--limit", type=int, default=None, help="agreed game limit (shangai)")
    parser.add_argument("--json", action="store_true", help="print ScoreRoundResponse as JSON")
    parser.set_defaults(func=run)


def _numbers(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.replace(" ", "").split(",") if part)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"comma-separated integers, not {text!r}") from exc


def split_hands(text: str) -> list[list[str]]:
    """``"3H 2C | KD,9S | -"`` → ``[["3H", "2C"], ["KD", "9S"], []]``."""
    hands = []
    for part in text.split("|"):
        codes = part.replace(",", " ").split()
        hands.append([] if codes == ["-"] else codes)
    return hands


# Spellings a player types that the solver's short list lacks: the past tense and the
# proto's enum names (``ROUND_END_WENT_OUT``, what grpcurl shows).
_END_ALIASES = {"knocked": "knock", "gone_out": "went_out", "go_out": "went_out"}


def round_end(text: str) -> RoundEnd | None:
    """``--end`` in any spelling its error message suggests: ``went out``, ``went-out``,
    ``went_out``, ``WENT_OUT``, ``ROUND_END_KNOCK``, ``stock exhausted``...; None when unknown."""
    words = "_".join(text.strip().lower().replace("-", " ").replace("_", " ").split())
    words = words.removeprefix("round_end_")
    return parse_round_end(_END_ALIASES.get(words, words))


def run(args: argparse.Namespace) -> int:
    end = round_end(args.end)
    if args.json:
        return run_json(args, end)
    hands = split_hands(args.hands)
    try:
        round_ = parse_round(
            args.ruleset,
            len(hands),
            end,
            args.ender,
            hands,
            args.totals,
            args.rounds_won,
            args.deal,
            args.limit,
        )
        score = score_round(round_)
    except InvalidRequest as error:
        for problem in error.problems:
            print(f"error: {_cli_field(problem.field)}: {problem.description}", file=sys.stderr)
        return 2
    print(render(score))
    return 0


def run_json(args: argparse.Namespace, end: RoundEnd | None) -> int:
    """The service's ScoreRound answer, as grpcurl prints it."""
    hands = split_hands(args.hands)
    request = rummy_pb2.ScoreRoundRequest(
        ruleset=args.ruleset,
        players=len(hands),
        end=_END_TO_PROTO[end] if end is not None else rummy_pb2.ROUND_END_UNSPECIFIED,
        ender=args.ender,
        hands=[rummy_pb2.Hand(cards=hand) for hand in hands],
        totals_before=args.totals,
        rounds_won_before=args.rounds_won,
        deal_number=args.deal,
        game_limit=args.limit,
    )
    answer = call_rpc(RummyServicer().ScoreRound, request)
    if isinstance(answer, int):
        return answer
    print_json(answer)
    return 0


_END_TO_PROTO = {
    RoundEnd.WENT_OUT: rummy_pb2.ROUND_END_WENT_OUT,
    RoundEnd.KNOCK: rummy_pb2.ROUND_END_KNOCK,
    RoundEnd.STOCK_EXHAUSTED: rummy_pb2.ROUND_END_STOCK_EXHAUSTED,
}

_OPTIONS = {
    "ruleset": "RULESET",
    "players": "--hands (one per player)",
    "end": "--end",
    "ender": "--ender",
    "totals_before": "--totals",
    "rounds_won_before": "--rounds-won",
    "deal_number": "--deal",
    "game_limit": "--limit",
}


def _cli_field(field: str) -> str:
    """Name a request field the way this command's options are named."""
    head, bracket, rest = field.partition("[")
    if head == "hands":
        return f"--hands {field}"
    return _OPTIONS.get(head, head) + bracket + rest


def render(score: RoundScore) -> str:
    """Every line item, then the round's and the game's figures."""
    out = [_line(line) for line in score.lines]
    players = range(len(score.round_points))

    def row(values: tuple[int, ...], signed: bool = False) -> str:
        return ", ".join(
            f"{seat(i)} {values[i]:+d}" if signed else f"{seat(i)} {values[i]}" for i in players
        )

    out.append("")
    out.append(f"round points:  {row(score.round_points, signed=True)}")
    out.append(f"round winners: {_names(score.winners) or 'none'}")
    out.append(f"totals after:  {row(score.totals_after)}")
    if score.void_deal:
        out.append("void deal: replay the same contract (C8)")
    if score.another_hand:
        out.append("tie for the lowest total: another hand (R13)")
    if score.game_over:
        out.append(f"final scores:  {row(score.final_scores)}")
        out.append(f"game over: {_names(score.game_winners)} won")
    else:
        out.append("game over: no")
    return "\n".join(out)


def _line(line: ScoreLine) -> str:
    who = seat(line.player) if line.player >= 0 else "-"
    points = f"{line.points:+d}" if line.points else ""
    return f"[{line.rule:>3}] {who:<2} {points:>5}  {line.text}"


def _names(players: tuple[int, ...]) -> str:
    return " ".join(seat(p) for p in players)
