"""``carrossel score-deal carosello --piles "JK20 10D AH | rest"``: a fishing deal's points.

Runs the same scoring as FishingService.ScoreDeal, locally: every side's pile, ``|`` between
sides; the word ``rest`` is every card no other pile holds. Prints every line item (F9), the
new totals and whether the game is over (F10).
"""

from __future__ import annotations

import argparse
import sys

from carrossel.v1 import fishing_pb2
from service.cli.commands import Subparsers
from service.cli.rpc import call_rpc, print_json
from service.fishing import FishingServicer
from solver.core.errors import InvalidRequest
from solver.core.rulesets import get_ruleset
from solver.fishing.items import deck_cards, deck_for
from solver.fishing.scoring import DealScore, parse_deal, score_deal


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "score-deal",
        help='score a fishing deal, e.g. `carrossel score-deal carosello --piles "JK20 | rest"`',
        description="Score the end of a fishing deal (F8-F10) and explain every figure. "
        "Exit status 2 when the piles are malformed.",
    )
    parser.add_argument("ruleset", help="carosello, carrusel or karusele")
    parser.add_argument("--piles", required=True, help='piles by side: "JK20 10D AH | rest"')
    parser.add_argument("--deck", type=int, default=56, help="56, 55 or 54 (default 56)")
    parser.add_argument("--omit-broom", action="store_true", help="55 cards without the broom")
    parser.add_argument("--totals", default="", help="totals before, by side: 110,60")
    parser.add_argument("--json", action="store_true", help="print ScoreDealResponse as JSON")
    parser.set_defaults(func=run)


def expand_piles(ruleset: str, deck_size: int, omit_broom: bool, text: str) -> list[list[str]]:
    """The piles, ``rest`` standing for every card of the deck that no other pile holds."""
    piles = [part.split() for part in text.split("|")]
    found = get_ruleset(ruleset)
    deck = deck_for(found.fishing, deck_size, omit_broom) if found and found.fishing else None
    if deck is None:
        return [[] if p == ["rest"] else p for p in piles]
    named = {code.upper() for pile in piles if pile != ["rest"] for code in pile}
    rest = sorted(c.code for c in deck_cards(deck) if c.code not in named)
    return [rest if pile == ["rest"] else pile for pile in piles]


def run(args: argparse.Namespace) -> int:
    try:
        totals = [int(t) for t in args.totals.replace(" ", "").split(",") if t]
    except ValueError:
        print(f"error: --totals: comma-separated integers, not {args.totals!r}", file=sys.stderr)
        return 2
    piles = expand_piles(args.ruleset, args.deck, args.omit_broom, args.piles)
    if args.json:
        return run_json(args, piles, totals)
    try:
        rules, deck, parsed = parse_deal(args.ruleset, args.deck, piles, totals, args.omit_broom)
    except InvalidRequest as error:
        for problem in error.problems:
            print(f"error: {problem.field}: {problem.description}", file=sys.stderr)
        return 2
    print(render(score_deal(rules, deck, parsed, totals)))
    return 0


def render(score: DealScore) -> str:
    out = [f"[{line.rule}] side {line.side} {line.points:+d}  {line.text}" for line in score.lines]
    out.append("")
    out.append("deal points:  " + ", ".join(f"side {s} {p}" for s, p in enumerate(score.points)))
    out.append(
        "totals after: " + ", ".join(f"side {s} {t}" for s, t in enumerate(score.totals_after))
    )
    if score.another_deal:
        out.append("tie at the top: another deal (F10)")
    elif score.game_over:
        out.append(f"game over: side {score.winner} wins (F10)")
    else:
        out.append("game over: no")
    return "\n".join(out)


def run_json(args: argparse.Namespace, piles: list[list[str]], totals: list[int]) -> int:
    """The service's ScoreDeal answer, as grpcurl prints it."""
    request = fishing_pb2.ScoreDealRequest(
        ruleset=args.ruleset,
        deck_size=args.deck,
        piles=[fishing_pb2.Pile(cards=pile) for pile in piles],
        totals_before=totals,
        omit_broom=args.omit_broom,
    )
    answer = call_rpc(FishingServicer().ScoreDeal, request)
    if isinstance(answer, int):
        return answer
    print_json(answer)
    return 0
