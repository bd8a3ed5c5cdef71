"""``carrossel rulesets``: the ten rulesets, one line each with their key parameters."""

from __future__ import annotations

import argparse

from service.cli.commands import Subparsers
from solver.core.rulesets import RULESETS, Ruleset


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser("rulesets", help="list the rulesets with key parameters")
    parser.set_defaults(func=run)


def describe(ruleset: Ruleset) -> str:
    """One line: id, family, players, deck, cards dealt, wild cards, sequence rules, draw."""
    if ruleset.fishing is not None:
        deck = "/".join(str(d.size) for d in ruleset.fishing.decks) + " cards"
        sequences = f"prize suit {ruleset.fishing.prize_suit}"
    else:
        deck = ", ".join(f"{d.min_players}-{d.max_players}p {d.size} cards" for d in ruleset.decks)
        sequences = f"seq {ruleset.melds.sequence_suits.value}, ace {ruleset.melds.ace.value}"
    dealt = str(ruleset.hand_size)
    if ruleset.contract_rules is not None:
        dealt += f" (last deal {ruleset.contract_rules.last_deal_hand_size})"
    return (
        f"{ruleset.id:<13} {ruleset.family.value:<13} "
        f"{ruleset.min_players}-{ruleset.max_players} players; {deck}; dealt {dealt}; "
        f"wild {ruleset.wild.value}; {sequences}; draw {ruleset.draw_rule.value}"
    )


def run(args: argparse.Namespace) -> int:
    del args
    for ruleset in RULESETS.values():
        print(describe(ruleset))
    return 0
