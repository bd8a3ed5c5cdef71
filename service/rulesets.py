"""RulesetService: every ruleset of SPEC §1, straight from ``solver.core.rulesets``, with the
RPCs the registry says are served for it and the version of the release that answers."""

from __future__ import annotations

import grpc

from carrossel.v1 import rulesets_pb2, rulesets_pb2_grpc
from service.convert import enum_to_proto
from service.version import package_version
from solver.core import rulesets as domain
from solver.core.cards import rank_name
from solver.core.registry import served_rpcs
from solver.core.rulesets import RULESETS

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


# --- rulesets ----------------------------------------------------------------------------

_GAME_END_TEXT = {
    domain.Settlement.CARROSSEL: (
        "After a round that brings a player to {target} or more the game ends: "
        "+{target_bonus} to each player at {target} or more, +{round_bonus} per round won; "
        "the highest total wins{tie}."
    ),
    domain.Settlement.FIRST_OUT_WINS: "No points are kept: the first player to go out wins.",
    domain.Settlement.PENALTY: (
        "The game ends when a player reaches {target} penalty points; the lowest total wins{tie}."
    ),
    domain.Settlement.WINNER_TAKES_HANDS: (
        "Each round is settled on its own: the winner gains the others' hand values "
        "and each other player loses their own."
    ),
    domain.Settlement.CARIOCA: ("The game ends after deal {deals}; the lowest total wins{tie}."),
    domain.Settlement.FISHING: (
        "The first side to reach the target ({targets} points by deck size) wins; if several "
        "reach it in one deal the highest total wins, and a tie at the top means another deal."
    ),
}


_TIE_TEXT = {
    domain.TieRule.SHARE: " (ties share the win)",
    domain.TieRule.ANOTHER_HAND: "; a tie for the lowest means another hand, no winner yet",
}


def game_end_text(ruleset: domain.Ruleset) -> str:
    """How the game ends, in one line, from the ruleset's data."""
    targets = " / ".join(str(d.target) for d in ruleset.fishing.decks) if ruleset.fishing else ""
    return _GAME_END_TEXT[ruleset.scoring.settlement].format(
        target=ruleset.scoring.game_target or 0,
        target_bonus=ruleset.scoring.game_target_bonus,
        round_bonus=ruleset.scoring.round_won_bonus,
        deals=ruleset.last_deal,
        targets=targets,
        tie=_TIE_TEXT[ruleset.scoring.game_end_tie],
    )


def _deal_prizes(rules: domain.FishingRules) -> list[rulesets_pb2.DealPrize]:
    prizes = [
        rulesets_pb2.DealPrize(code=card, description=f"the numbered joker {card}", points=pts)
        for card, pts in rules.special_points.items()
    ]
    suit = SUIT_NAMES[rules.prize_suit]
    prizes += [
        rulesets_pb2.DealPrize(
            code="10D", description="the ten of diamonds", points=rules.ten_of_diamonds_points
        ),
        rulesets_pb2.DealPrize(
            code=f"2{rules.prize_suit}", description=f"the two of {suit}", points=rules.deuce_points
        ),
        rulesets_pb2.DealPrize(
            code="MOST_SUIT", description=f"most cards of {suit}", points=rules.most_suit_points
        ),
        rulesets_pb2.DealPrize(
            code="MOST_CARDS", description="most cards", points=rules.most_cards_points
        ),
        rulesets_pb2.DealPrize(code="ACE", description="each ace", points=rules.ace_points),
    ]
    return prizes


def _fishing_rules(rules: domain.FishingRules) -> rulesets_pb2.FishingRules:
    return rulesets_pb2.FishingRules(
        decks=[
            rulesets_pb2.FishingDeck(
                size=d.size,
                specials=list(d.specials),
                table_cards=d.table_cards,
                game_target=d.target,
            )
            for d in rules.decks
        ],
        prize_suit=rules.prize_suit,
        special_values=[
            rulesets_pb2.SpecialValue(card=card, value=value)
            for card, value in rules.special_values.items()
        ],
        deal_prizes=_deal_prizes(rules),
    )


def ruleset_to_proto(ruleset: domain.Ruleset) -> rulesets_pb2.Ruleset:
    """Every parameter of a ruleset, as ListRulesets serves it; a family's record that the
    ruleset does not have leaves its fields at their zero values."""
    scoring = ruleset.scoring
    message = rulesets_pb2.Ruleset(
        id=ruleset.id,
        name=ruleset.name,
        family=enum_to_proto(rulesets_pb2.Family, "FAMILY", ruleset.family),
        source=ruleset.source,
        description=ruleset.description,
        min_players=ruleset.min_players,
        max_players=ruleset.max_players,
        decks=[
            rulesets_pb2.DeckComposition(
                min_players=d.min_players,
                max_players=d.max_players,
                decks=d.decks,
                jokers=d.jokers,
                total_cards=d.size,
            )
            for d in ruleset.decks
            if ruleset.fishing is None  # fishing decks are described by deck size instead
        ],
        hand_size=ruleset.hand_size,
        wild_kind=enum_to_proto(rulesets_pb2.WildKind, "WILD_KIND", ruleset.wild),
        draw_rule=enum_to_proto(rulesets_pb2.DrawRule, "DRAW_RULE", ruleset.draw_rule),
        draw_rule_text=ruleset.draw_text,
        knock_threshold=ruleset.knock_threshold,
        going_out_bonus=scoring.going_out_bonus,
        knock_bonus=scoring.knock_bonus,
        card_points=[
            rulesets_pb2.CardPoints(rank=rank_name(rank), points=points)
            for rank, points in enumerate(scoring.card_points, start=1)
        ],
        joker_points=scoring.joker_points,
        hands_score=scoring.hands_score,
        settlement=enum_to_proto(rulesets_pb2.Settlement, "SETTLEMENT", scoring.settlement),
        game_target=scoring.game_target or 0,
        game_end_rule=game_end_text(ruleset),
        game_target_bonus=scoring.game_target_bonus,
        round_won_bonus=scoring.round_won_bonus,
        highest_total_wins=scoring.highest_wins,
        colours=[
            rulesets_pb2.Colour(name=name, suit=suit) for name, suit in ruleset.colours.items()
        ],
        served_rpcs=[rpc.value for rpc in served_rpcs(ruleset)],
    )
    _set_meld_rules(message, ruleset.meld_rules)
    if ruleset.rearrangement_rules is not None:
        _set_rearrangement_rules(message, ruleset.rearrangement_rules)
    if ruleset.contract_rules is not None:
        _set_contract_rules(message, ruleset.contract_rules)
    if ruleset.fishing is not None:
        message.fishing.CopyFrom(_fishing_rules(ruleset.fishing))
    return message


def _set_meld_rules(message: rulesets_pb2.Ruleset, rules: domain.MeldRules | None) -> None:
    """What a valid meld is (R2-R4, C3); sequence and ace rules say NOT_APPLICABLE without."""
    suits = rules.sequence_suits if rules else domain.SuitRule.NOT_APPLICABLE
    ace = rules.ace if rules else domain.AceRule.NOT_APPLICABLE
    message.sequence_suit_rule = enum_to_proto(
        rulesets_pb2.SequenceSuitRule, "SEQUENCE_SUIT_RULE", suits
    )
    message.ace_rule = enum_to_proto(rulesets_pb2.AceRule, "ACE_RULE", ace)
    if rules is None:
        return
    message.group_min_size = rules.group_min
    message.group_max_size = rules.group_max
    message.group_suits_distinct = rules.group_suits_distinct
    message.min_sequence_length = rules.min_sequence
    message.max_sequence_length = rules.max_sequence


def _set_rearrangement_rules(
    message: rulesets_pb2.Ruleset, rules: domain.RearrangementRules
) -> None:
    """What a rearrangement turn may do (R5-R8)."""
    message.max_new_melds_per_turn = rules.max_new_melds or 0
    message.unlimited_new_melds = rules.max_new_melds is None
    message.opening_min_points = rules.opening_points
    message.first_meld_must_be_sequence = rules.first_meld_sequence
    message.released_wild_to_hand = rules.released_wild_to_hand
    message.wild_stays_in_its_meld = rules.wild_lineage
    message.add_must_be_maximal = rules.add_must_be_maximal
    message.must_play_if_able = rules.must_play_if_able


def _set_contract_rules(message: rulesets_pb2.Ruleset, rules: domain.ContractRules) -> None:
    """Carioca's deals (C2): after opening only lay-offs, so no new melds per turn."""
    message.last_deal_hand_size = rules.last_deal_hand_size
    message.contracts.extend(
        rulesets_pb2.Contract(
            deal=c.deal,
            trios=c.trios,
            sequences=c.sequences,
            cards_dealt=c.cards_dealt,
            cards_laid=c.cards,
        )
        for c in rules.contracts
    )


class RulesetServicer(rulesets_pb2_grpc.RulesetServiceServicer):
    """Serves the rulesets; they are data, so the answer is built once."""

    def __init__(self) -> None:
        self._response = rulesets_pb2.ListRulesetsResponse(
            rulesets=[ruleset_to_proto(r) for r in RULESETS.values()],
            version=package_version(),
        )

    def ListRulesets(
        self, request: rulesets_pb2.ListRulesetsRequest, context: grpc.ServicerContext
    ) -> rulesets_pb2.ListRulesetsResponse:
        del request, context
        return self._response
