"""The ten rulesets of SPEC §1 as data: one frozen object each, no behaviour branches.

Code elsewhere reads these parameters; adding a ruleset means adding an entry here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType

from solver.core.cards import JOKER_CARD, ORDINARY_CARDS, Card


class Family(Enum):
    """Which kind of game: what the RPCs of a ruleset mean."""

    REARRANGEMENT = "rearrangement"
    CONTRACT = "contract"
    FISHING = "fishing"


class WildKind(Enum):
    """Which cards are wild."""

    NONE = "none"
    JOKERS = "jokers"
    TWOS = "twos"  # mexe-mexe: every 2, also natural where it stands (R4)
    NUMBERED_JOKERS = "numbered_jokers"  # fishing: JK20/JK15/JK11 are values, not wilds


class SuitRule(Enum):
    """Whether the cards of a sequence must share a suit."""

    ANY_SUIT = "any_suit"
    SAME_SUIT = "same_suit"
    NOT_APPLICABLE = "not_applicable"


class AceRule(Enum):
    """Where an ace may stand in a sequence (R2)."""

    LOW_OR_HIGH = "low_or_high"
    LOW_ONLY = "low_only"
    HIGH_ONLY = "high_only"
    NOT_APPLICABLE = "not_applicable"


class DrawRule(Enum):
    """The turn's draw obligation (R8, C6)."""

    ONE_TO_THREE = "one_to_three"  # carrossel: 1-3, a 3rd draw ends the turn
    EXACTLY_ONE = "exactly_one"  # mexe-mexe: exactly 1 (0 with the stock empty)
    DRAW_OR_PLAY = "draw_or_play"  # vatikan, rummikub: drawing ends the turn
    PLAY_IF_ABLE = "play_if_able"  # shangai, manipulation: draw only when unable to play
    DRAW_THEN_DISCARD = "draw_then_discard"  # carioca: draw 1, discard 1
    NONE = "none"  # fishing games


class TieRule(Enum):
    """What a tie at the top of the final standings means."""

    SHARE = "share"  # equal best share the win (R12, C7)
    ANOTHER_HAND = "another_hand"  # manipulation: play another hand, no winner yet (R13)


class Settlement(Enum):
    """How a round is scored (R11-R13, C7-C8)."""

    CARROSSEL = "carrossel"  # differences, knock bonus, going-out bonus
    FIRST_OUT_WINS = "first_out_wins"  # mexe-mexe, vatikan: no points
    PENALTY = "penalty"  # shangai, manipulation: others take their hand as penalty
    WINNER_TAKES_HANDS = "winner_takes_hands"  # rummikub
    CARIOCA = "carioca"  # penalties over seven deals
    FISHING = "fishing"  # deal points (F9)


@dataclass(frozen=True)
class DeckSpec:
    """The deck used by a range of player counts (R1)."""

    min_players: int
    max_players: int
    decks: int  # standard 52-card decks
    jokers: int  # rummy jokers added

    @property
    def size(self) -> int:
        return 52 * self.decks + self.jokers


@dataclass(frozen=True)
class Contract:
    """A carioca deal's contract (C2)."""

    deal: int
    trios: int
    sequences: int
    cards_dealt: int

    @property
    def cards(self) -> int:
        """Cards the opening lays: 3 per trio, 4 per sequence (C3)."""
        return 3 * self.trios + 4 * self.sequences


@dataclass(frozen=True)
class FishingDeck:
    """One fishing deck size (F1)."""

    size: int
    specials: tuple[str, ...]
    table_cards: int
    target: int


def _face(ace: int, court: int) -> tuple[int, ...]:
    """A point table by rank (index rank-1): ace, 2-10 face value, J Q K ``court``."""
    return (ace, *range(2, 11), court, court, court)


_ALL_ONE = (1,) * 13


@dataclass(frozen=True)
class MeldRules:
    """What a valid meld is in a rummy family (R2-R4; carioca C3, C5)."""

    sequence_suits: SuitRule
    ace: AceRule
    min_sequence: int = 3
    max_sequence: int = 13  # A-2-…-K-A is invalid (R2); carioca lays up to 14 (C5)
    group_min: int = 3
    group_max: int = 4
    group_suits_distinct: bool = True


@dataclass(frozen=True)
class RearrangementRules:
    """What a turn may do in the rearrangement family (R5-R10)."""

    max_new_melds: int | None = 1  # per turn, net (R6); None = unlimited
    released_wild_to_hand: bool = False  # mexe-mexe 2s (R5)
    wild_lineage: bool = False  # vatikan: unreleased wilds stay in their meld's line (R7)
    first_meld_sequence: bool = False  # vatikan (R7)
    add_must_be_maximal: bool = False  # shangai, manipulation (R8)
    must_play_if_able: bool = False  # shangai, manipulation (R8)
    opening_points: int = 0  # rummikub: first play ≥ 30 from the rack (R8)
    knock_threshold: int = 0  # carrossel: 5 (R10); 0 = no knock


@dataclass(frozen=True)
class ContractRules:
    """Contract rummy's deals and opening (C2-C5)."""

    contracts: tuple[Contract, ...]
    last_deal_hand_size: int
    opening_trio_size: int = 3  # a trio laid at the opening has exactly 3 cards (C3)
    opening_sequence_size: int = 4  # an opening sequence has exactly 4 (C3)
    opening_wilds_per_meld: int = 1  # at most one joker per opening meld (C3)

    def for_deal(self, deal: int) -> Contract | None:
        """The contract of that deal (C2), or None when there is no such deal."""
        for contract in self.contracts:
            if contract.deal == deal:
                return contract
        return None

    @property
    def last_deal(self) -> int:
        """The last deal (carioca: 7)."""
        return max(c.deal for c in self.contracts)


@dataclass(frozen=True)
class FishingRules:
    """Parameters only the fishing family has (F1-F10)."""

    decks: tuple[FishingDeck, ...]
    prize_suit: str  # the suit of the 2-point deuce and of "most cards of a suit"
    special_values: Mapping[str, int]  # capture values of JK20/JK15/JK11 (F2)
    special_points: Mapping[str, int]  # deal points of the numbered jokers (F9)
    ten_of_diamonds_points: int = 2
    deuce_points: int = 2
    most_suit_points: int = 2
    most_cards_points: int = 2
    ace_points: int = 1


@dataclass(frozen=True)
class ScoringRules:
    """How rounds and games are scored (R10-R13, C7, F8-F10)."""

    settlement: Settlement
    card_points: tuple[int, ...] = _face(1, 10)  # by rank, index rank-1
    joker_points: int = 0
    hands_score: bool = True  # whether cards left in hand count (R13)
    going_out_bonus: int = 0
    knock_bonus: int = 0
    game_target: int | None = None
    game_target_bonus: int = 0  # R12: +100 to each player at or above the target
    round_won_bonus: int = 0  # R12: +25 per round won
    highest_wins: bool = True
    game_end_tie: TieRule = TieRule.SHARE


@dataclass(frozen=True)
class Ruleset:
    """One game (SPEC §1): what every family has, plus its family's own typed records.

    A rummy ruleset has ``meld_rules``; a rearrangement one also ``rearrangement_rules``, a
    contract one ``contract_rules``, a fishing one ``fishing``. The accessors without the
    ``_rules`` suffix return the record and fail loudly for a ruleset of another family.
    """

    id: str
    name: str
    family: Family
    source: str
    description: str
    min_players: int
    max_players: int
    decks: tuple[DeckSpec, ...]
    hand_size: int
    wild: WildKind
    draw_rule: DrawRule
    draw_text: str
    scoring: ScoringRules
    meld_rules: MeldRules | None = None
    rearrangement_rules: RearrangementRules | None = None
    contract_rules: ContractRules | None = None
    fishing: FishingRules | None = None
    colours: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    # --- the family records --------------------------------------------------------------

    @property
    def melds(self) -> MeldRules:
        """The meld rules of a rummy ruleset."""
        if self.meld_rules is None:
            raise ValueError(f"{self.id} is a {self.family.value} game: it has no melds")
        return self.meld_rules

    @property
    def rearrangement(self) -> RearrangementRules:
        """The turn rules of a rearrangement ruleset."""
        if self.rearrangement_rules is None:
            raise ValueError(f"{self.id} is not a rearrangement game")
        return self.rearrangement_rules

    @property
    def contract(self) -> ContractRules:
        """The contracts of a contract-rummy ruleset."""
        if self.contract_rules is None:
            raise ValueError(f"{self.id} is not a contract rummy game")
        return self.contract_rules

    # --- derived facts ---------------------------------------------------------------

    def deck_spec(self, players: int) -> DeckSpec | None:
        """The deck for that many players, or None when the count is out of range."""
        for spec in self.decks:
            if spec.min_players <= players <= spec.max_players:
                return spec
        return None

    def deck(self, players: int) -> Counter[Card]:
        """How many copies of each card the deck holds (R1). Empty when out of range."""
        counts: Counter[Card] = Counter()
        if self.fishing is not None:
            return counts  # fishing decks depend on the deck size, see FishingRules.decks
        spec = self.deck_spec(players)
        if spec is None:
            return counts
        counts.update(dict.fromkeys(ORDINARY_CARDS, spec.decks))
        if spec.jokers:
            counts[JOKER_CARD] = spec.jokers
        return counts

    def points(self, card: Card) -> int:
        """A card left in hand, in this ruleset's point table."""
        if card.is_joker:
            return self.scoring.joker_points
        if card.special:
            return 0
        return self.scoring.card_points[card.rank - 1]

    def hand_points(self, cards: Iterable[Card]) -> int:
        """The point total of a hand."""
        return sum(self.points(c) for c in cards)

    @property
    def sequence_positions(self) -> range:
        """Rank positions a sequence may use: 1 = low ace … 13 = K, 14 = high ace."""
        ace = self.melds.ace
        if ace is AceRule.LOW_ONLY:
            return range(1, 14)
        if ace is AceRule.HIGH_ONLY:
            return range(2, 15)
        return range(1, 15)

    @property
    def twos_wild(self) -> bool:
        return self.wild is WildKind.TWOS

    def is_wild_card(self, card: Card) -> bool:
        """Can this card act as a wild here (jokers; 2s in mexe-mexe)?"""
        if card.is_joker:
            return self.wild is WildKind.JOKERS
        return self.wild is WildKind.TWOS and card.is_ordinary and card.rank == 2

    def is_always_wild(self, card: Card) -> bool:
        """A card that can never be natural (a joker)."""
        return card.is_joker

    @property
    def knock_threshold(self) -> int:
        """The most hand points a knock may leave (R10); 0 where there is no knock."""
        rules = self.rearrangement_rules
        return rules.knock_threshold if rules is not None else 0

    @property
    def last_deal(self) -> int:
        """The last contract deal (carioca: 7); 0 when the ruleset has no contracts."""
        return self.contract_rules.last_deal if self.contract_rules else 0


def rank_of_position(position: int) -> int:
    """Rank at a sequence position: 14 (high ace) is the ace."""
    return 1 if position == 14 else position


_TWO_TO_FIVE_CARROSSEL = (DeckSpec(2, 2, 1, 1), DeckSpec(3, 5, 2, 2))
_CARROSSEL_DRAW = "must draw 1-3 cards; a play needs 1 or 2 drawn; a 3rd draw ends the turn"

CARROSSEL = Ruleset(
    id="carrossel",
    name="Carrossel",
    family=Family.REARRANGEMENT,
    source="000",
    description="Brazilian rummy without discards: rearrange the table freely, knock at ≤5.",
    min_players=2,
    max_players=5,
    decks=_TWO_TO_FIVE_CARROSSEL,
    hand_size=10,
    wild=WildKind.JOKERS,
    draw_rule=DrawRule.ONE_TO_THREE,
    draw_text=_CARROSSEL_DRAW,
    meld_rules=MeldRules(SuitRule.ANY_SUIT, AceRule.LOW_OR_HIGH),
    rearrangement_rules=RearrangementRules(knock_threshold=5),
    scoring=ScoringRules(
        Settlement.CARROSSEL,
        card_points=_face(1, 10),
        joker_points=25,
        going_out_bonus=25,
        knock_bonus=10,
        game_target=150,
        game_target_bonus=100,
        round_won_bonus=25,
        highest_wins=True,
    ),
)

MEXE_MEXE = Ruleset(
    id="mexe-mexe",
    name="Mexe-mexe",
    family=Family.REARRANGEMENT,
    source="000",
    description="Carrossel with 11 cards, same-suit sequences and every 2 wild (and natural).",
    min_players=2,
    max_players=5,
    decks=(DeckSpec(2, 2, 1, 0), DeckSpec(3, 5, 2, 0)),
    hand_size=11,
    wild=WildKind.TWOS,
    draw_rule=DrawRule.EXACTLY_ONE,
    draw_text="must draw exactly 1 card (none with the stock empty), then may play",
    meld_rules=MeldRules(SuitRule.SAME_SUIT, AceRule.LOW_OR_HIGH),
    rearrangement_rules=RearrangementRules(released_wild_to_hand=True),
    scoring=ScoringRules(Settlement.FIRST_OUT_WINS, hands_score=False),
)

VATIKAN = Ruleset(
    id="vatikan",
    name="Vatikan",
    family=Family.REARRANGEMENT,
    source="000",
    description="Carrossel with 13 cards; draw or play; jokers stay in their meld; sequence first.",
    min_players=2,
    max_players=5,
    decks=(DeckSpec(2, 5, 2, 2),),
    hand_size=13,
    wild=WildKind.JOKERS,
    draw_rule=DrawRule.DRAW_OR_PLAY,
    draw_text="draw 1 card or play, not both",
    meld_rules=MeldRules(SuitRule.ANY_SUIT, AceRule.LOW_OR_HIGH),
    rearrangement_rules=RearrangementRules(wild_lineage=True, first_meld_sequence=True),
    scoring=ScoringRules(Settlement.FIRST_OUT_WINS, joker_points=25, hands_score=False),
)

_PLAY_IF_ABLE = "must play if able (a meld, or an add of as many cards as possible); else draw"
_PLAY_IF_ABLE_RULES = RearrangementRules(add_must_be_maximal=True, must_play_if_able=True)

SHANGAI = Ruleset(
    id="shangai",
    name="Shangai",
    family=Family.REARRANGEMENT,
    source="000",
    description="Carrossel without jokers, ace low only; play if you can, adds must be maximal.",
    min_players=2,
    max_players=5,
    decks=(DeckSpec(2, 5, 2, 0),),
    hand_size=10,
    wild=WildKind.NONE,
    draw_rule=DrawRule.PLAY_IF_ABLE,
    draw_text=_PLAY_IF_ABLE,
    meld_rules=MeldRules(SuitRule.ANY_SUIT, AceRule.LOW_ONLY),
    rearrangement_rules=_PLAY_IF_ABLE_RULES,
    scoring=ScoringRules(
        Settlement.PENALTY, card_points=_ALL_ONE, game_target=100, highest_wins=False
    ),
)

MANIPULATION = Ruleset(
    id="manipulation",
    name="Manipulation",
    family=Family.REARRANGEMENT,
    source="000",
    description="Shangai with 7 cards, ace high only, penalties by card value to 200.",
    min_players=2,
    max_players=5,
    decks=(DeckSpec(2, 5, 2, 0),),
    hand_size=7,
    wild=WildKind.NONE,
    draw_rule=DrawRule.PLAY_IF_ABLE,
    draw_text=_PLAY_IF_ABLE,
    meld_rules=MeldRules(SuitRule.ANY_SUIT, AceRule.HIGH_ONLY),
    rearrangement_rules=_PLAY_IF_ABLE_RULES,
    scoring=ScoringRules(
        Settlement.PENALTY,
        card_points=_face(15, 10),
        game_target=200,
        highest_wins=False,
        game_end_tie=TieRule.ANOTHER_HAND,  # R13: a tie for lowest means another hand
    ),
)

RUMMIKUB = Ruleset(
    id="rummikub",
    name="Rummikub",
    family=Family.REARRANGEMENT,
    source="extra",
    description="Tiles 1-13 in four colours; same-colour runs; first play ≥30 from the rack.",
    min_players=2,
    max_players=4,
    decks=(DeckSpec(2, 4, 2, 2),),
    hand_size=14,
    wild=WildKind.JOKERS,
    draw_rule=DrawRule.DRAW_OR_PLAY,
    draw_text="draw 1 tile or play; the first play is worth ≥30 from your own rack",
    meld_rules=MeldRules(SuitRule.SAME_SUIT, AceRule.LOW_ONLY),
    rearrangement_rules=RearrangementRules(max_new_melds=None, opening_points=30),
    scoring=ScoringRules(
        Settlement.WINNER_TAKES_HANDS, card_points=tuple(range(1, 14)), joker_points=30
    ),
    colours=MappingProxyType({"black": "S", "blue": "C", "orange": "D", "red": "H"}),
)

CARIOCA = Ruleset(
    id="carioca",
    name="Carioca",
    family=Family.CONTRACT,
    source="002",
    description="Argentine contract rummy over seven deals; lowest penalty total wins.",
    min_players=2,
    max_players=4,
    decks=(DeckSpec(2, 4, 2, 4),),
    hand_size=11,
    wild=WildKind.JOKERS,
    draw_rule=DrawRule.DRAW_THEN_DISCARD,
    draw_text="draw 1 from the stock or the discard pile, optionally meld, discard 1",
    # The meld rules of a carioca *opening* (C3); lay-offs grow trios and sequences (C5).
    meld_rules=MeldRules(
        SuitRule.SAME_SUIT,
        AceRule.LOW_OR_HIGH,
        min_sequence=4,
        max_sequence=14,
        group_min=3,
        group_max=3,
        group_suits_distinct=False,
    ),
    contract_rules=ContractRules(
        contracts=(
            Contract(1, 2, 0, 11),
            Contract(2, 1, 1, 11),
            Contract(3, 0, 2, 11),
            Contract(4, 3, 0, 11),
            Contract(5, 2, 1, 11),
            Contract(6, 1, 2, 11),
            Contract(7, 0, 3, 12),
        ),
        last_deal_hand_size=12,
    ),
    scoring=ScoringRules(
        Settlement.CARIOCA, card_points=_face(20, 10), joker_points=50, highest_wins=False
    ),
)

_FISHING_DECKS = (
    FishingDeck(56, ("JK20", "JK15", "JK11", "BROOM"), 8, 120),
    FishingDeck(55, ("JK15", "JK11", "BROOM"), 7, 90),
    FishingDeck(54, ("JK15", "JK11"), 6, 60),
)
_SPECIAL_VALUES = MappingProxyType({"JK20": 20, "JK15": 15, "JK11": 11})
_SPECIAL_POINTS = MappingProxyType({"JK20": 10, "JK15": 5, "JK11": 3})


def _fishing(id_: str, name: str, source: str, suit: str, where: str) -> Ruleset:
    """The three fishing rulesets differ only in their prize suit (SPEC §1)."""
    return Ruleset(
        id=id_,
        name=name,
        family=Family.FISHING,
        source=source,
        description=f"Fishing game ({where}): capture by value and sums, builds, broom.",
        min_players=2,
        max_players=4,
        decks=(DeckSpec(2, 4, 1, 0),),
        hand_size=4,
        wild=WildKind.NUMBERED_JOKERS,
        draw_rule=DrawRule.NONE,
        draw_text="no drawing: four cards are dealt again when the hands are empty",
        scoring=ScoringRules(
            Settlement.FISHING, card_points=(1, *range(2, 11), 0, 0, 0), game_target=120
        ),
        fishing=FishingRules(
            decks=_FISHING_DECKS,
            prize_suit=suit,
            special_values=_SPECIAL_VALUES,
            special_points=_SPECIAL_POINTS,
        ),
    )


CAROSELLO = _fishing("carosello", "Carosello", "003", "H", "Italian text, prize suit hearts")
CARRUSEL = _fishing("carrusel", "Carrusel", "004", "C", "Spanish text, prize suit clubs")
KARUSELE = _fishing("karusele", "Karuselė", "extra", "S", "Lithuanian original, spades")

RULESETS: Mapping[str, Ruleset] = MappingProxyType(
    {
        r.id: r
        for r in (
            CARROSSEL,
            MEXE_MEXE,
            VATIKAN,
            SHANGAI,
            MANIPULATION,
            RUMMIKUB,
            CARIOCA,
            CAROSELLO,
            CARRUSEL,
            KARUSELE,
        )
    }
)


def get_ruleset(ruleset_id: str) -> Ruleset | None:
    """The ruleset with that id (case-insensitive), or None."""
    return RULESETS.get(ruleset_id.strip().lower())
