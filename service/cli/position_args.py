"""Options shared by the commands that take a rummy position (``validate``, ``hint``)."""

from __future__ import annotations

import argparse
import sys

from solver.core.errors import InvalidRequest
from solver.core.registry import Rpc, serves
from solver.core.rulesets import RULESETS, Family
from solver.rummy.position import Position, Turn, parse_position


def add_position_args(parser: argparse.ArgumentParser) -> None:
    """RULESET, --players, --table, --hand and the turn flags."""
    parser.add_argument(
        "ruleset",
        help="ruleset id: "
        + ", ".join(r.id for r in RULESETS.values() if serves(r, Rpc.SOLVE_MOVE)),
    )
    parser.add_argument("--players", type=int, default=2, help="players in the game (default 2)")
    parser.add_argument("--table", default="", help="the table: melds split by '|'")
    parser.add_argument("--hand", default="", help="the hand of the player to move")
    parser.add_argument(
        "--drawn", type=int, default=None, help="cards drawn this turn (default: what a play needs)"
    )
    parser.add_argument("--stock-empty", action="store_true", help="the stock is empty")
    parser.add_argument(
        "--not-opened", action="store_true", help="rummikub: the player has not opened yet"
    )
    parser.add_argument(
        "--no-sequence-yet",
        action="store_true",
        help="vatikan: the player has not laid a sequence yet",
    )
    add_contract_args(parser)


def add_contract_args(parser: argparse.ArgumentParser) -> None:
    """Carioca's turn: the deal (C2) and whether the player has opened (C4)."""
    parser.add_argument("--deal", type=int, default=0, help="carioca: the deal number, 1-7")
    parser.add_argument(
        "--opened",
        action="store_true",
        help="carioca: the player has opened (default: not yet)",
    )


def split_melds(text: str) -> list[list[str]]:
    """``"7H 8S JK=9 | 5C 5D 5S"`` -> ``[["7H", "8S", "JK=9"], ["5C", "5D", "5S"]]``."""
    return [part.replace(",", " ").split() for part in text.split("|") if part.strip()]


def split_cards(text: str) -> list[str]:
    return text.replace(",", " ").split()


def print_malformed(error: InvalidRequest, prefix: str) -> int:
    print("malformed request:", file=sys.stderr)
    for problem in error.prefixed(prefix).problems:
        print(f"  {problem.field}: {problem.description}", file=sys.stderr)
    return 2


def position_from_args(args: argparse.Namespace) -> Position:
    """The position the options describe; raises InvalidRequest when malformed."""
    ruleset = RULESETS.get(args.ruleset)
    contract = ruleset is not None and ruleset.family is Family.CONTRACT
    drawn = args.drawn
    if drawn is None:
        # By default the player has drawn what a play needs (R8); a carioca player asking
        # about the top discard has not drawn yet (C6).
        drawn = (
            1
            if ruleset is not None and ruleset.draw_rule.value in ("one_to_three", "exactly_one")
            else 0
        )
        if contract:
            drawn = 0 if getattr(args, "discard_top", "") else 1
    turn = Turn(
        cards_drawn=drawn,
        stock_empty=args.stock_empty,
        has_melded_sequence=not args.no_sequence_yet,
        # Carioca's players open during the deal (C4): not opened unless --opened.
        has_opened=args.opened if contract else not args.not_opened,
        deal_number=args.deal,
    )
    return parse_position(
        args.ruleset, args.players, split_melds(args.table), split_cards(args.hand), turn
    )
