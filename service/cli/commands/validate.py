"""``carrossel validate RULESET ...``: judge one move, printing the verdict and every reason.

Example::

    carrossel validate carrossel --players 2 --drawn 1 \\
        --table "7H 8S JK=9" --hand "5C 9D" --after "5C JK 7H 8S 9D"

With ``--suggest``, an illegal move is followed by the nearest legal table (issue #53), its
melds kept from the proposal marked ``*``.

Exit status: 0 legal, 1 illegal, 2 malformed input (bad code, impossible counts, ...), 3 when
shangai or manipulation's R8 search could not be settled in 10 s (no verdict is guessed).
"""

from __future__ import annotations

import argparse
import sys

from service.cli.commands import Subparsers
from service.cli.position_args import print_malformed, split_cards, split_melds
from solver.core.cards import format_cards
from solver.core.errors import InvalidRequest
from solver.core.registry import Rpc, not_served, serves
from solver.core.rulesets import RULESETS
from solver.rearrangement.referee import Verdict
from solver.rearrangement.search import SearchUndecided, validate_move
from solver.rearrangement.suggest import Suggestion, suggest_move
from solver.rummy.position import Turn, parse_move, parse_position


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="judge a move: `carrossel validate carrossel --table ... --hand ... --after ...`",
        description=(
            "Judge a move of a rearrangement game (R1-R10) and print every violation. "
            "Melds are separated by '|', cards by spaces: --table \"7H 8S JK=9 | 5C 5D 5S\". "
            "Exit status: 0 legal, 1 illegal, 2 malformed input."
        ),
    )
    parser.add_argument(
        "ruleset",
        help="ruleset id: "
        + ", ".join(r.id for r in RULESETS.values() if serves(r, Rpc.VALIDATE_MOVE)),
    )
    parser.add_argument("--players", type=int, default=2, help="players in the game (default 2)")
    parser.add_argument("--table", default="", help="the table before the play")
    parser.add_argument("--hand", default="", help="the hand of the player to move")
    parser.add_argument("--after", required=True, help="the whole table after the play")
    parser.add_argument(
        "--to-hand", default="", help="released wilds taken to the hand (mexe-mexe)"
    )
    parser.add_argument("--knock", action="store_true", help="the player knocks (carrossel)")
    parser.add_argument("--drawn", type=int, default=0, help="cards drawn this turn")
    parser.add_argument("--stock-empty", action="store_true", help="the stock is empty")
    parser.add_argument("--opened", action="store_true", help="rummikub: has opened already")
    parser.add_argument(
        "--melded-sequence", action="store_true", help="vatikan: has laid a sequence already"
    )
    parser.add_argument(
        "--suggest",
        action="store_true",
        help="if the move is illegal, print the nearest legal table (kept melds marked *)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    turn = Turn(
        cards_drawn=args.drawn,
        stock_empty=args.stock_empty,
        has_melded_sequence=args.melded_sequence,
        has_opened=args.opened,
    )
    try:
        position = parse_position(
            args.ruleset, args.players, split_melds(args.table), split_cards(args.hand), turn
        )
    except InvalidRequest as error:
        return print_malformed(error, "position")
    if reason := not_served(position.ruleset, Rpc.VALIDATE_MOVE):
        print(f"{position.ruleset.id}: {reason}", file=sys.stderr)
        return 2
    try:
        move = parse_move(position, split_melds(args.after), split_cards(args.to_hand), args.knock)
    except InvalidRequest as error:
        return print_malformed(error, "move")
    try:
        verdict = validate_move(position, move)
    except SearchUndecided as undecided:
        print(f"undecided: {undecided}", file=sys.stderr)
        return 3
    print(render(verdict))
    if args.suggest and not verdict.legal:
        print(render_suggestion(suggest_move(position, move)))
    return 0 if verdict.legal else 1


def render_suggestion(suggestion: Suggestion) -> str:
    """The nearest legal table, each meld kept from the proposal marked ``*``."""
    found = suggestion.move
    if found is None:
        return f"nearest legal: none. {suggestion.note}"
    solved = found.solved
    kept = zip(solved.move.table, found.kept_here, strict=True)
    melds = [("*" if mark else "") + format_cards(meld) for meld, mark in kept]
    proved = "" if suggestion.optimal else " (not proved nearest in the time given)"
    lines = [f"nearest legal{proved}: {' | '.join(melds)}"]
    if solved.move.to_hand:
        lines.append(f"  to hand: {format_cards(solved.move.to_hand)}")
    lines.append(f"  played: {format_cards(solved.verdict.played)}")
    lines.append(f"  {suggestion.note} (* = a meld kept as proposed)")
    return "\n".join(lines)


def render(verdict: Verdict) -> str:
    """The verdict as a player reads it."""
    lines = ["legal" if verdict.legal else "illegal"]
    lines += [f"  - {v}" for v in verdict.violations]
    table = " | ".join(format_cards(meld) for meld in verdict.table) or "(empty)"
    lines.append(f"table after: {table}")
    lines.append(f"played: {format_cards(verdict.played) or '(nothing)'}")
    hand = format_cards(verdict.hand_after) or "(empty)"
    lines.append(f"hand after: {hand} ({verdict.hand_points_after} points)")
    lines.append(
        f"went out: {'yes' if verdict.went_out else 'no'}; "
        f"knock eligible: {'yes' if verdict.knock_eligible else 'no'}"
    )
    return "\n".join(lines)
