"""Big legal fishing tables for the enumeration and service tests: the lowest cards of the
56-card deck, one item each (aces first, then twos, ...), so every sum has many ways."""

from __future__ import annotations

from collections.abc import Sequence

from carrossel.v1 import fishing_pb2
from solver.fishing.position import RawItem, RawPosition

HAND = ("JK20", "JK15", "JK11", "9S")
SUITS = "CDHS"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")


def big_table(size: int, hand: Sequence[str] = HAND) -> list[str]:
    """The ``size`` lowest numbered cards not in ``hand``."""
    cards = [rank + suit for rank in RANKS for suit in SUITS if rank + suit not in hand]
    if size > len(cards):
        raise ValueError(f"at most {len(cards)} numbered cards are left for the table")
    return cards[:size]


def big_table_raw(size: int, hand: Sequence[str] = HAND) -> RawPosition:
    return RawPosition("carosello", [RawItem([code]) for code in big_table(size, hand)], list(hand))


def big_table_proto(size: int, hand: Sequence[str] = HAND) -> fishing_pb2.FishingPosition:
    return fishing_pb2.FishingPosition(
        ruleset="carosello",
        hand=list(hand),
        table=[fishing_pb2.TableItem(cards=[code]) for code in big_table(size, hand)],
    )


DEAL_END_HANDS = (("JK20",), ("JK15",))
"""A deal's last round: each player holds one joker; every other card lies on the table
(39 numbered cards) or in player 0's pile (10S, J/Q/K, JK11, the broom)."""


def deal_end_proto(size: int = 39) -> fishing_pb2.FishingPosition:
    """A complete position (F8's search needs every card placed) with a big table."""
    hand, other = DEAL_END_HANDS
    table = big_table(size, hand + other)
    placed = set(table) | set(hand) | set(other)
    court = [rank + suit for rank in ("J", "Q", "K") for suit in SUITS]
    numbered = [rank + suit for rank in RANKS for suit in SUITS]
    pile = [code for code in (*numbered, *court, "JK11", "BROOM") if code not in placed]
    return fishing_pb2.FishingPosition(
        ruleset="carosello",
        hand=list(hand),
        table=[fishing_pb2.TableItem(cards=[code]) for code in table],
        piles=[fishing_pb2.Pile(cards=pile), fishing_pb2.Pile()],
        last_capturer=0,
        other_hands=[fishing_pb2.PlayerHand(player=1, cards=list(other))],
    )
