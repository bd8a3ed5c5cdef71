"""Options shared by the commands that take a rummy position (``validate``, ``hint``, ``knock``).

One set of options, one set of defaults, so the same position gets the same answer from
every command. The default is the turn in which a play is allowed, because that is what a
player asking "is this play legal?" or "what should I play?" is in:

- ``--drawn``: what a play needs (R8): 1 where the ruleset makes the player draw first
  (carrossel, mexe-mexe), 0 where drawing ends the turn (vatikan, rummikub, shangai,
  manipulation); carioca 1 (C6), or 0 with ``hint --discard-top`` (the draw is the question).
- rummikub: opened (R8's 30 points already laid) unless ``--not-opened``.
- carioca: not opened unless ``--opened``: its players open during the deal (C4).
- vatikan: a sequence already laid unless ``--no-sequence-yet``.

``--opened`` and ``--melded-sequence`` are accepted in every ruleset, so a turn can be
written explicitly either way.
"""

from __future__ import annotations

import argparse
import re
import sys

from solver.core.errors import InvalidRequest
from solver.core.registry import Rpc, serves
from solver.core.rulesets import RULESETS, DrawRule, Family, Ruleset
from solver.rummy.position import Position, Turn, parse_position

# Shown once in every position command's --help (and in docs/validate.md).
DEFAULTS_TEXT = (
    "Defaults describe the turn in which a play is allowed: --drawn is what a play needs "
    "(1 in carrossel, mexe-mexe and carioca; 0 where drawing ends the turn), rummikub "
    "has opened (--not-opened), carioca has not (--opened), vatikan has laid a sequence "
    "(--no-sequence-yet). Melds are separated by '|', cards by spaces or commas: "
    '--table "7H 8S JK=9 | 5C 5D 5S".'
)

# Rulesets whose player must draw before playing (R8); elsewhere a draw ends the turn.
_DRAW_FIRST = (DrawRule.ONE_TO_THREE, DrawRule.EXACTLY_ONE)


def add_position_args(parser: argparse.ArgumentParser, rpc: Rpc = Rpc.SOLVE_MOVE) -> None:
    """RULESET, --players, --table, --hand and the turn flags, with the shared defaults."""
    parser.add_argument(
        "ruleset",
        help="ruleset id: " + ", ".join(r.id for r in RULESETS.values() if serves(r, rpc)),
    )
    parser.add_argument("--players", type=int, default=2, help="players in the game (default 2)")
    parser.add_argument("--table", default="", help="the table: melds split by '|'")
    parser.add_argument(
        "--hand", default="", help="the hand of the player to move (rummikub: 13C or KC)"
    )
    parser.add_argument(
        "--drawn", type=int, default=None, help="cards drawn this turn (default: what a play needs)"
    )
    parser.add_argument("--stock-empty", action="store_true", help="the stock is empty")
    opened = parser.add_mutually_exclusive_group()
    opened.add_argument(
        "--opened",
        dest="opened",
        action="store_true",
        default=None,
        help="the player has opened (carioca's default: not yet, C4)",
    )
    opened.add_argument(
        "--not-opened",
        dest="opened",
        action="store_false",
        help="the player has not opened yet (rummikub's default: opened)",
    )
    sequence = parser.add_mutually_exclusive_group()
    sequence.add_argument(
        "--melded-sequence",
        dest="melded_sequence",
        action="store_true",
        default=None,
        help="vatikan: the player has laid a sequence (the default)",
    )
    sequence.add_argument(
        "--no-sequence-yet",
        dest="melded_sequence",
        action="store_false",
        help="vatikan: the player has not laid a sequence yet",
    )
    parser.add_argument("--deal", type=int, default=0, help="carioca: the deal number, 1-7")


def split_melds(text: str, ruleset: str = "") -> list[list[str]]:
    """``"7H 8S JK=9 | 5C 5D 5S"`` -> ``[["7H", "8S", "JK=9"], ["5C", "5D", "5S"]]``."""
    return [split_cards(part, ruleset) for part in text.split("|") if part.strip()]


def split_cards(text: str, ruleset: str = "") -> list[str]:
    """The codes of a card list; rummikub tiles may be written as numbers (``13C``)."""
    codes = text.replace(",", " ").split()
    if ruleset == "rummikub":
        return [rummikub_code(code) for code in codes]
    return codes


# Rummikub's tiles are numbered 1-13; the service's codes are the cards' (A, J, Q, K).
_RUMMIKUB_NUMBERS = {"1": "A", "11": "J", "12": "Q", "13": "K"}
_NUMBERED_TILE = re.compile(r"(?P<joker>JK=)?(?P<number>1[1-3]?)(?P<colour>[A-Za-z])")


def rummikub_code(code: str) -> str:
    """``13C`` -> ``KC``, ``1H`` -> ``AH``, ``JK=12D`` -> ``JK=QD``; other codes unchanged."""
    tile = _NUMBERED_TILE.fullmatch(code)
    if tile is None:
        return code
    rank = _RUMMIKUB_NUMBERS[tile["number"]]
    return f"{tile['joker'] or ''}{rank}{tile['colour']}"


def print_malformed(error: InvalidRequest, prefix: str) -> int:
    print("malformed request:", file=sys.stderr)
    for problem in error.prefixed(prefix).problems:
        print(f"  {problem.field}: {problem.description}", file=sys.stderr)
    return 2


def default_drawn(ruleset: Ruleset | None, asks_about_discard: bool) -> int:
    """The cards a play needs drawn first (R8; carioca C6)."""
    if ruleset is None:
        return 0  # parse_position reports the unknown ruleset
    if ruleset.family is Family.CONTRACT:
        # Asking whether to take the top discard means the player has not drawn yet (C6).
        return 0 if asks_about_discard else 1
    return 1 if ruleset.draw_rule in _DRAW_FIRST else 0


def turn_from_args(args: argparse.Namespace) -> Turn:
    """The turn the flags describe, each unset flag at the shared default."""
    ruleset = RULESETS.get(args.ruleset)
    contract = ruleset is not None and ruleset.family is Family.CONTRACT
    drawn = args.drawn
    if drawn is None:
        drawn = default_drawn(ruleset, bool(getattr(args, "discard_top", "")))
    opened = args.opened
    if opened is None:
        # Carioca's players open during the deal (C4); elsewhere the opening is behind them.
        opened = not contract
    melded_sequence = True if args.melded_sequence is None else args.melded_sequence
    return Turn(
        cards_drawn=drawn,
        stock_empty=args.stock_empty,
        has_melded_sequence=melded_sequence,
        has_opened=opened,
        deal_number=args.deal,
    )


def position_from_args(args: argparse.Namespace) -> Position:
    """The position the options describe; raises InvalidRequest when malformed."""
    return parse_position(
        args.ruleset,
        args.players,
        split_melds(args.table, args.ruleset),
        split_cards(args.hand, args.ruleset),
        turn_from_args(args),
    )
