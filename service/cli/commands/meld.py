"""``carrossel meld RULESET CARDS...``: classify one meld (sequence, group or invalid)."""

from __future__ import annotations

import argparse
import sys

from service.cli.commands import Subparsers
from solver.core.cards import parse_table_card
from solver.core.errors import NotationError
from solver.core.rulesets import RULESETS, Family, get_ruleset
from solver.rummy.melds import classify


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "meld",
        help="classify one meld, e.g. `carrossel meld carrossel 5H JK 7H`",
        description="Classify one meld; exit status 1 when it is invalid or ambiguous.",
    )
    parser.add_argument("ruleset", help="ruleset id: " + ", ".join(RULESETS))
    parser.add_argument("cards", nargs="+", metavar="CARD", help="card codes in meld order")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    ruleset = get_ruleset(args.ruleset)
    if ruleset is None:
        print(
            f"unknown ruleset {args.ruleset!r} (use one of: {', '.join(RULESETS)})", file=sys.stderr
        )
        return 2
    if ruleset.family is Family.FISHING:
        print(f"{ruleset.id} is a fishing game: it has no melds", file=sys.stderr)
        return 2
    try:
        cards = [parse_table_card(text) for text in args.cards]
    except NotationError as exc:
        print(f"invalid: {exc}")
        return 1
    verdict = classify(ruleset, cards)
    if not verdict.ok:
        label = "ambiguous" if verdict.ambiguous else "invalid"
        print(f"{label}: {verdict.reason}")
        return 1
    kind = verdict.kind.value if verdict.kind is not None else "meld"
    print(f"{kind}: {' '.join(tc.code for tc in verdict.normalized)}")
    return 0
