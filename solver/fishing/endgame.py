"""SolvePlay with ``HORIZON_DEAL_END`` (Part 2): the rest of a deal, solved exactly.

With the stock empty every unseen card is in a known hand, so the rest of the deal is a game
of perfect information. Plays are ranked by the deal's final points under best play by
everyone: the player's side maximises its points minus the other side's (two sides) or minus
the best other side's (three sides), and every other side minimises that. The search is
alpha-beta over canonical states (table and hands sorted) with a transposition table; each
node's plays are ``plays.legal_plays``, the same per-card choices the referee accepts.
The table's leftovers go to the last capturer's side at the end (F8).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from solver.core import cancel
from solver.core.cards import Card, format_cards, sort_key
from solver.core.errors import ProblemCollector
from solver.core.rulesets import FishingRules
from solver.fishing.items import NO_OWNER, Item, card_points, deck_cards, is_prize_suit
from solver.fishing.plays import (
    ListingStopped,
    Outcome,
    Play,
    legal_plays,
    outcome,
    time_box,
)
from solver.fishing.position import Position
from solver.fishing.scoring import deal_points
from solver.fishing.search import SolvedPlay, rank_key, solve_plays

CHECK_EVERY_NODES = 512

# What one side has gathered so far: card points, cards, prize-suit cards (F9's inputs).
Gathered = tuple[tuple[int, int, int], ...]


@dataclass(frozen=True, slots=True)
class State:
    """A canonical state: the same cards in any order are one state."""

    table: tuple[Item, ...]
    hands: tuple[tuple[Card, ...], ...]
    mover: int
    last_side: int
    gathered: Gathered


@dataclass(frozen=True, slots=True)
class LineStep:
    """One play of a principal line; its indices refer to the table just before it."""

    player: int
    play: Play


@dataclass(frozen=True)
class DealEndPlay:
    solved: SolvedPlay
    value: int  # the root side's points minus the (best) other side's, at the deal's end
    final_points: tuple[int, ...]  # every side's deal points at the end of the line
    line: tuple[LineStep, ...]  # this play and the best replies to the deal's end


@dataclass(frozen=True)
class DealEndResult:
    plays: tuple[DealEndPlay, ...]
    unsolved: tuple[SolvedPlay, ...]  # root plays the time limit left unvalued
    optimal: bool
    nodes: int


class _OutOfTime(Exception):
    pass


def check_complete(position: Position) -> None:
    """F8's exact endgame needs every card placed: piles, table and all hands make the deck,
    and the hands' sizes fit one round of play from the player to move."""
    problems = ProblemCollector()
    missing_hands = [
        p for p in range(position.players) if p != position.player and p not in position.other_hands
    ]
    if missing_hands:
        problems.add(
            "other_hands",
            "the deal's end needs every other player's hand; missing "
            f"player(s) {', '.join(map(str, missing_hands))}",
        )
        problems.raise_if_any()
    seen: set[Card] = set(position.hand)
    seen.update(c for item in position.table for c in item.cards)
    seen.update(c for pile in position.piles for c in pile)
    seen.update(c for hand in position.other_hands.values() for c in hand)
    unseen = sorted(deck_cards(position.deck) - seen, key=sort_key)
    if unseen:
        problems.add(
            "other_hands",
            f"{len(unseen)} cards are in no hand, pile or table item "
            f"({format_cards(unseen[:8])}{' …' if len(unseen) > 8 else ''}): with the "
            "stock empty the hands must hold every unseen card",
        )
    sizes = [
        len(_hand(position, (position.player + k) % position.players))
        for k in range(position.players)
    ]
    if not all(a >= b for a, b in pairwise(sizes)) or sizes[0] - sizes[-1] > 1:
        problems.add(
            "other_hands",
            f"hand sizes {sizes} from the player to move on cannot "
            "arise in turn order (each later hand holds as many cards or one fewer)",
        )
    problems.raise_if_any()


def _hand(position: Position, player: int) -> tuple[Card, ...]:
    return position.hand if player == position.player else position.other_hands[player]


def _canonical_table(table: Sequence[Item]) -> tuple[Item, ...]:
    return tuple(sorted(table))


class _Search:
    """Alpha-beta with a transposition table, valued from ``root_side``'s point of view."""

    def __init__(self, rules: FishingRules, players: int, root_side: int, deadline: float):
        self.rules = rules
        self.players = players
        self.sides = 2 if players == 4 else players
        self.root_side = root_side
        self.deadline = deadline
        self.nodes = 0
        # state -> (value, bound kind: 0 exact, 1 lower, -1 upper)
        self.table: dict[State, tuple[int, int]] = {}

    def side(self, player: int) -> int:
        return player % self.sides

    def final_points(self, state: State) -> tuple[int, ...]:
        gathered = list(state.gathered)
        if state.last_side != NO_OWNER and state.table:
            leftovers = [c for item in state.table for c in item.cards]
            gathered[state.last_side] = _add(gathered[state.last_side], leftovers, self.rules)
        return deal_points(
            [g[0] for g in gathered], [g[1] for g in gathered], [g[2] for g in gathered], self.rules
        )

    def value_of(self, points: Sequence[int]) -> int:
        own = points[self.root_side]
        return own - max(p for side, p in enumerate(points) if side != self.root_side)

    def children(self, state: State) -> list[tuple[Play, State, Outcome]]:
        hand = state.hands[state.mover]
        plays = legal_plays(hand, state.table, state.mover, self.rules)
        found = [(play, *self.child(state, play)) for play in plays]
        # Captures worth most first: alpha-beta cuts sooner.
        found.sort(key=lambda entry: tuple(-k for k in entry[2].key))
        return found

    def child(self, state: State, play: Play) -> tuple[State, Outcome]:
        effect = outcome(play, state.table, state.mover, self.rules)
        hands = list(state.hands)
        rest = list(hands[state.mover])
        rest.remove(play.card)
        hands[state.mover] = tuple(rest)
        gathered, last = state.gathered, state.last_side
        if effect.captured:
            side = self.side(state.mover)
            gathered = (*gathered[:side], _gain(gathered[side], effect), *gathered[side + 1 :])
            last = side
        mover = (state.mover + 1) % self.players
        return State(
            _canonical_table(effect.table_after), tuple(hands), mover, last, gathered
        ), effect

    def value(self, state: State, alpha: int, beta: int) -> int:
        self.nodes += 1
        if self.nodes % CHECK_EVERY_NODES == 0:
            cancel.check()  # the caller gave up: no answer is wanted
            if time.monotonic() > self.deadline:
                raise _OutOfTime
        if not any(state.hands):
            return self.value_of(self.final_points(state))
        stored = self.table.get(state)
        if stored is not None:
            value, bound = stored
            if bound == 0 or (bound > 0 and value >= beta) or (bound < 0 and value <= alpha):
                return value
        maximising = self.side(state.mover) == self.root_side
        low, high = alpha, beta
        best = -10_000 if maximising else 10_000
        for _, nxt, _ in self.children(state):
            score = self.value(nxt, low, high)
            if maximising:
                best = max(best, score)
                low = max(low, best)
            else:
                best = min(best, score)
                high = min(high, best)
            if low >= high:
                break
        bound = 1 if best >= beta else (-1 if best <= alpha else 0)
        self.table[state] = (best, bound)
        return best

    def exact(self, state: State) -> int:
        return self.value(state, -10_000, 10_000)

    def line(self, state: State) -> list[tuple[int, Play, State]]:
        """The principal line from ``state``: each mover's best play, first best on ties."""
        steps = []
        while any(state.hands):
            maximising = self.side(state.mover) == self.root_side
            options = [(self.exact(nxt), play, nxt) for play, nxt, _ in self.children(state)]
            target = (max if maximising else min)(score for score, _, _ in options)
            _, play, nxt = next(option for option in options if option[0] == target)
            steps.append((state.mover, play, nxt))
            state = nxt
        return steps


def _gain(before: tuple[int, int, int], effect: Outcome) -> tuple[int, int, int]:
    points, cards, prize = effect.key
    return before[0] + points, before[1] + cards, before[2] + prize


def _add(
    before: tuple[int, int, int], cards: Sequence[Card], rules: FishingRules
) -> tuple[int, int, int]:
    points = sum(card_points(card, rules) for card in cards)
    prize = sum(1 for card in cards if is_prize_suit(card, rules))
    return before[0] + points, before[1] + len(cards), before[2] + prize


def _root_state(position: Position) -> State:
    rules = position.rules
    sides = position.sides
    gathered = tuple(
        _add((0, 0, 0), position.piles[side] if position.piles else (), rules)
        for side in range(sides)
    )
    hands = tuple(tuple(sorted(_hand(position, p))) for p in range(position.players))
    last = (
        NO_OWNER if position.last_capturer == NO_OWNER else position.side_of(position.last_capturer)
    )
    return State(position.table, hands, position.player, last, gathered)


def _reindex(play: Play, source: Sequence[Item], target: Sequence[Item]) -> Play:
    """The same play written against another order of the same table."""
    where = {item: index for index, item in enumerate(target)}
    groups = tuple(sorted(tuple(sorted(where[source[i]] for i in g)) for g in play.groups))
    items = tuple(sorted(where[source[i]] for i in play.items))
    return Play(play.card, play.action, groups, items, play.value)


def solve_deal_end(position: Position, max_plays: int, time_limit_ms: int) -> DealEndResult:
    """Every legal play valued by the deal's final result; the best ``max_plays`` with their
    final points and principal lines.

    The time limit also bounds each listing of plays (``plays.time_box``): on a big table one
    card's captures alone can outlast it. When even the first plays cannot be listed, the
    answer is Part 1's (SolvePlay now), marked not optimal."""
    deadline = time.monotonic() + max(time_limit_ms, 1) / 1000.0
    root = _root_state(position)
    search = _Search(position.rules, position.players, position.side_of(position.player), deadline)
    try:
        with time_box(deadline):
            listed = legal_plays(position.hand, position.table, position.player, position.rules)
    except ListingStopped:
        part_one = solve_plays(position, max_plays, 1)  # outside the box: its time is gone
        return DealEndResult((), part_one.plays, False, 0)
    with time_box(deadline):
        roots = [
            SolvedPlay(play, outcome(play, position.table, position.player, position.rules))
            for play in listed
        ]
        roots.sort(key=rank_key)
        try:
            valued = [(search.exact(search.child(root, s.play)[0]), s) for s in roots]
            valued.sort(key=lambda entry: -entry[0])  # stable: equal values keep Part 1's order
            plays = tuple(
                _explain(search, value, solved, root, position)
                for value, solved in valued[: max(1, max_plays)]
            )
        except (_OutOfTime, ListingStopped):
            # An unfinished search proves nothing: give Part 1's ranking, marked not optimal.
            return DealEndResult((), tuple(roots[: max(1, max_plays)]), False, search.nodes)
    return DealEndResult(plays, (), True, search.nodes)


def _explain(
    search: _Search, value: int, solved: SolvedPlay, root: State, position: Position
) -> DealEndPlay:
    """The play's principal line, its indices rewritten against the tables a client sees."""
    start = search.child(root, solved.play)[0]
    steps = search.line(start)
    line = [LineStep(position.player, solved.play)]
    display = solved.outcome.table_after
    for player, play, _ in steps:
        shown = _reindex(play, _canonical_table(display), display)
        line.append(LineStep(player, shown))
        display = outcome(shown, display, player, search.rules).table_after
    end = steps[-1][2] if steps else start
    return DealEndPlay(solved, value, search.final_points(end), tuple(line))
