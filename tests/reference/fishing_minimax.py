"""Plain recursive minimax over the rest of a fishing deal: no pruning, no transposition
table, plays from the brute-force reference, scoring from F8-F9 written out again.

The value is the root side's final deal points minus the best other side's; the root's
side (partners included) maximises it, every other side minimises it (SPEC §4).
"""

from __future__ import annotations

from collections.abc import Sequence

from tests.reference.fishing_bruteforce import BItem, BPlay, legal_plays, points
from tests.reference.fishing_positions import Sample


def side_of(player: int, players: int) -> int:
    return player % (2 if players == 4 else players)


def final_points(piles: Sequence[Sequence[str]], prize_suit: str) -> list[int]:
    """F9: card points, then "most cards" and "most prize-suit cards" with their ties."""
    result = [sum(points(c, prize_suit) for c in pile) for pile in piles]
    for count in (
        [len(pile) for pile in piles],
        [sum(1 for c in pile if c[-1] == prize_suit and not c.startswith("JK")) for pile in piles],
    ):
        leaders = [s for s, n in enumerate(count) if n == max(count)]
        for s in leaders:
            result[s] += {1: 2, 2: 1}.get(len(leaders), 0)
    return result


def apply(
    table: list[BItem],
    hands: list[list[str]],
    piles: list[list[str]],
    mover: int,
    play: BPlay,
    players: int,
) -> tuple[list[BItem], list[list[str]], list[list[str]], bool]:
    hands = [list(h) for h in hands]
    hands[mover].remove(play.card)
    piles = [list(p) for p in piles]
    if play.kind in ("capture", "broom"):
        piles[side_of(mover, players)] += [
            play.card,
            *(c for i in sorted(play.taken) for c in table[i].cards),
        ]
        return [t for i, t in enumerate(table) if i not in play.taken], hands, piles, True
    if play.kind == "build":
        cards = (*(c for i in sorted(play.items) for c in table[i].cards), play.card)
        rest = [t for i, t in enumerate(table) if i not in play.items]
        return [*rest, BItem(cards, mover)], hands, piles, False
    return [*table, BItem((play.card,))], hands, piles, False


def minimax(
    table: list[BItem],
    hands: list[list[str]],
    piles: list[list[str]],
    mover: int,
    last: int,
    root_side: int,
    players: int,
    prize_suit: str,
) -> int:
    if not any(hands):
        piles = [list(p) for p in piles]
        if last >= 0:
            piles[side_of(last, players)] += [c for t in table for c in t.cards]
        result = final_points(piles, prize_suit)
        return result[root_side] - max(p for s, p in enumerate(result) if s != root_side)
    scores = [
        minimax(
            *_after(table, hands, piles, mover, last, play, players), root_side, players, prize_suit
        )
        for play in legal_plays(table, hands[mover], mover)
    ]
    return max(scores) if side_of(mover, players) == root_side else min(scores)


def _after(
    table: list[BItem],
    hands: list[list[str]],
    piles: list[list[str]],
    mover: int,
    last: int,
    play: BPlay,
    players: int,
) -> tuple[list[BItem], list[list[str]], list[list[str]], int, int]:
    table, hands, piles, captured = apply(table, hands, piles, mover, play, players)
    return table, hands, piles, (mover + 1) % players, mover if captured else last


def play_values(
    table: Sequence[BItem],
    hands: Sequence[Sequence[str]],
    piles: Sequence[Sequence[str]],
    mover: int,
    last: int,
    players: int,
    prize_suit: str,
) -> dict[BPlay, int]:
    """Every legal play of the mover with its minimax value."""
    root_side = side_of(mover, players)
    hands_ = [list(h) for h in hands]
    piles_ = [list(p) for p in piles]
    return {
        play: minimax(
            *_after(list(table), hands_, piles_, mover, last, play, players),
            root_side,
            players,
            prize_suit,
        )
        for play in legal_plays(table, hands_[mover], mover)
    }


def sample_play_values(sample: Sample) -> dict[BPlay, int]:
    """``play_values`` of a sampled last round: its mover's every legal play, minimax valued."""
    return play_values(
        sample.table,
        sample.other_hands,
        sample.piles,
        sample.player,
        sample.last_capturer,
        sample.players,
        sample.prize_suit,
    )
