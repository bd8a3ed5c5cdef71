"""What a process builds once, built before its first call rather than during it.

The searches build the deck's models lazily: Rummikub's turn model of the whole deck, one
per number of rack jokers (``model/deck.py``, 45-110 ms each), its model of the deck's melds,
one per objective and number of jokers on the rack and the table (``model/deck_melds.py``),
and mexe-mexe's pool of the whole deck for its suggestions (``model/pool_deck.py``). Without
a warm-up, the first calls of a fresh server pay for them: its first Rummikub SolveMove calls
took 56-61 ms where the same positions took 5-6 ms once built. ``carrossel serve`` calls
``warm_up`` before it listens, so no call waits for them.
"""

from __future__ import annotations

from collections.abc import Iterable

from solver.core.cards import JOKER_CARD, Card
from solver.core.rulesets import Family, Ruleset
from solver.rearrangement.model import deck_melds
from solver.rearrangement.model.data import ModelOptions, collect_data
from solver.rearrangement.model.deck import DECK_RULESETS, from_deck
from solver.rearrangement.model.pool_deck import POOL_DECK_RULESETS, pool_from_deck
from solver.rearrangement.search import solve_move
from solver.rummy.position import Position, Turn

__all__ = ["warm_up"]


def warm_up(rulesets: Iterable[Ruleset]) -> int:
    """Build every deck model the rearrangement rulesets among ``rulesets`` can use, for
    each of their decks; returns how many positions were built for (to say it happened)."""
    built = 0
    for rs in rulesets:
        if rs.family is not Family.REARRANGEMENT:
            continue
        for spec in rs.decks:
            players = spec.min_players
            cards = rs.deck(players)
            if rs.id in DECK_RULESETS:
                naturals = [c for c in sorted(cards) if c.is_ordinary and not rs.is_wild_card(c)]
                # One model per joker count on the rack: the copy's key (``deck.deck_model``).
                for jokers in range(cards[JOKER_CARD] + 1):
                    hand = (*naturals[:1], *[JOKER_CARD] * jokers)
                    built += _build(rs, players, hand, ModelOptions(max_new_melds=None), pool=False)
                built += _build_deck_melds(rs, players, tuple(naturals[:1]))
                # One solve: CP-SAT's first in the process, the referee's and the rebuild's
                # first use cost a first call 2-3 ms more.
                solve_move(Position(rs, players, (), hand, Turn(has_opened=True)))
            if rs.id in POOL_DECK_RULESETS:
                wilds = [c for c in sorted(cards.elements()) if rs.is_wild_card(c)]
                # Wilds enough for a run of their own: the position the deck's pool is for.
                hand = tuple(wilds[: rs.melds.min_sequence])
                options = ModelOptions(
                    max_new_melds=None, defer_run_naturals=True, pool_from_deck=True
                )
                built += _build(rs, players, hand, options, pool=True)
    return built


def _build_deck_melds(rs: Ruleset, players: int, hand: tuple[Card, ...]) -> int:
    """Build the single best move's models of the deck's melds, one per objective and
    count of jokers on the rack and the table (``deck_melds.build_every_model``), where they
    apply; how many were built."""
    position = Position(rs, players, (), hand, Turn(has_opened=True))
    if not deck_melds.applies(position):
        return 0
    return deck_melds.build_every_model(rs, players)


def _build(
    rs: Ruleset, players: int, hand: tuple[Card, ...], options: ModelOptions, *, pool: bool
) -> int:
    """Copy the position's model from the deck's (building that once); 1 if it applied."""
    position = Position(rs, players, (), hand, Turn(has_opened=True))
    data = collect_data(position, options)
    copied = pool_from_deck(data) if pool else from_deck(data)
    return int(copied is not None)
