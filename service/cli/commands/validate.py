"""``carrossel validate RULESET ...``: judge one move, printing the verdict and every reason.

Example::

    carrossel validate carrossel --players 2 \\
        --table "7H 8S JK=9" --hand "5C 9D" --after "5C JK 7H 8S 9D"
    carrossel validate carioca --deal 2 --hand "8C 8D 8H 4S 5S 6S 7S 8S KD" \\
        --after "8C 8D 8H | 4S 5S 6S 7S" --discard KD

The position options and their defaults are ``position_args``'s, shared with ``hint`` and
``knock``. Exit status: 0 legal, 1 illegal, 2 malformed input (bad code, impossible counts,
...), 3 when shangai or manipulation's R8 search could not be settled in 10 s (no verdict is
guessed).

With ``--suggest``, an illegal move is followed by the nearest legal table (issue #53), its
melds kept from the proposal marked ``*`` (for carioca, with its discard).
"""

from __future__ import annotations

import argparse
import sys

from carrossel.v1 import rummy_pb2
from service.cli.commands import Subparsers
from service.cli.display import show_cards
from service.cli.position_args import (
    DEFAULTS_TEXT,
    add_position_args,
    position_from_args,
    print_malformed,
    split_cards,
    split_melds,
)
from service.cli.rpc import call_rpc, move_to_proto, position_to_proto, print_json
from service.rummy import RummyServicer
from solver.contract.referee import ContractVerdict, validate_contract_move
from solver.contract.suggest import ContractSuggestion, suggest_contract_move
from solver.core.errors import InvalidRequest
from solver.core.registry import Rpc, not_served
from solver.core.rulesets import Family
from solver.rearrangement.referee import Verdict
from solver.rearrangement.search import SearchUndecided, validate_move
from solver.rearrangement.suggest import Suggestion, suggest_move
from solver.rummy.position import parse_move


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="judge a move: `carrossel validate carrossel --table ... --hand ... --after ...`",
        description=(
            "Judge a move of a rearrangement game (R1-R10) or of carioca (C2-C6) and print "
            "every violation. Exit status: 0 legal, 1 illegal, 2 malformed input. " + DEFAULTS_TEXT
        ),
    )
    add_position_args(parser, Rpc.VALIDATE_MOVE)
    parser.add_argument("--after", required=True, help="the whole table after the play")
    parser.add_argument(
        "--to-hand", default="", help="released wilds taken to the hand (mexe-mexe)"
    )
    parser.add_argument("--knock", action="store_true", help="the player knocks (carrossel)")
    parser.add_argument("--discard", default="", help="carioca: the card discarded (C6)")
    parser.add_argument("--json", action="store_true", help="print ValidateMoveResponse as JSON")
    parser.add_argument(
        "--suggest",
        action="store_true",
        help="if the move is illegal, print the nearest legal table (kept melds marked *)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.json:
        return run_json(args)
    try:
        position = position_from_args(args)
    except InvalidRequest as error:
        return print_malformed(error, "position")
    if reason := not_served(position.ruleset, Rpc.VALIDATE_MOVE):
        print(f"{position.ruleset.id}: {reason}", file=sys.stderr)
        return 2
    try:
        move = parse_move(
            position,
            split_melds(args.after, args.ruleset),
            split_cards(args.to_hand, args.ruleset),
            args.knock,
            args.discard,
        )
    except InvalidRequest as error:
        return print_malformed(error, "move")
    if position.ruleset.family is Family.CONTRACT:
        contract_verdict = validate_contract_move(position, move)
        print(render(contract_verdict))
        if args.suggest and not contract_verdict.legal:
            print(render_suggestion(suggest_contract_move(position, move)))
        return 0 if contract_verdict.legal else 1
    try:
        verdict = validate_move(position, move)
    except SearchUndecided as undecided:
        print(f"undecided: {undecided}", file=sys.stderr)
        return 3
    print(render(verdict))
    if args.suggest and not verdict.legal:
        print(render_suggestion(suggest_move(position, move)))
    return 0 if verdict.legal else 1


def run_json(args: argparse.Namespace) -> int:
    """The service's ValidateMove answer, as grpcurl prints it."""
    request = rummy_pb2.ValidateMoveRequest(
        position=position_to_proto(args), move=move_to_proto(args), suggest=args.suggest
    )
    answer = call_rpc(RummyServicer().ValidateMove, request)
    if isinstance(answer, int):
        return answer
    print_json(answer)
    return 0 if answer.legal else 1


def render_suggestion(suggestion: Suggestion | ContractSuggestion) -> str:
    """The nearest legal table, each meld kept from the proposal marked ``*``."""
    found = suggestion.move
    if found is None:
        return f"nearest legal: none. {suggestion.note}"
    solved = found.solved
    kept = zip(solved.move.table, found.kept_here, strict=True)
    melds = [("*" if mark else "") + show_cards(meld) for meld, mark in kept]
    proved = "" if suggestion.optimal else " (not proved nearest in the time given)"
    lines = [f"nearest legal{proved}: {' | '.join(melds)}"]
    if solved.move.to_hand:
        lines.append(f"  to hand: {show_cards(solved.move.to_hand)}")
    lines.append(f"  played: {show_cards(solved.verdict.played)}")
    if solved.move.discard is not None:
        lines.append(f"  discard: {show_cards([solved.move.discard])}")
    lines.append(f"  {suggestion.note} (* = a meld kept as proposed)")
    return "\n".join(lines)


def render(verdict: Verdict | ContractVerdict) -> str:
    """The verdict as a player reads it."""
    lines = ["legal" if verdict.legal else "illegal"]
    lines += [f"  - {v}" for v in verdict.violations]
    table = " | ".join(show_cards(meld) for meld in verdict.table) or "(empty)"
    lines.append(f"table after: {table}")
    lines.append(f"played: {show_cards(verdict.played) or '(nothing)'}")
    hand = show_cards(verdict.hand_after) or "(empty)"
    lines.append(f"hand after: {hand} ({verdict.hand_points_after} points)")
    lines.append(
        f"went out: {'yes' if verdict.went_out else 'no'}; "
        f"knock eligible: {'yes' if verdict.knock_eligible else 'no'}"
    )
    return "\n".join(lines)
