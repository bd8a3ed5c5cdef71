"""ValidatePlay's referee (F1-F7) against the brute-force reference on random positions.

- Every play the reference lists as legal is legal for the referee (written with one
  grouping the reference finds itself).
- Random plays — any card (in hand or not), any action, random groups and items — are legal
  for the referee exactly when the reference lists them and, for a capture, the groups are a
  valid split: disjoint, non-empty, each one item of the card's value or items summing to it
  (numbered cards), or single cards of the rank (J, Q, K).
"""

from __future__ import annotations

import random

import pytest

from solver.core.cards import parse_card
from solver.fishing.plays import Action, Play
from solver.fishing.position import parse_position
from solver.fishing.referee import judge
from tests.reference.fishing_bruteforce import (
    COURTS,
    BItem,
    BPlay,
    grouping,
    is_court_item,
    item_value,
    legal_plays,
    rank,
    value,
)
from tests.reference.fishing_positions import DECK_56, play_sample

SEEDS = range(20_000, 20_400)


def as_play(play: BPlay, table: tuple[BItem, ...]) -> Play:
    card = parse_card(play.card)
    if play.kind == "broom":
        return Play(card, Action.BROOM)
    if play.kind == "trail":
        return Play(card, Action.TRAIL)
    if play.kind == "build":
        return Play(card, Action.BUILD, items=tuple(sorted(play.items)), value=play.value)
    if rank(play.card) in COURTS:
        return Play(card, Action.CAPTURE, tuple((i,) for i in sorted(play.taken)))
    groups = grouping(sorted(play.taken), table, value(play.card))
    assert groups is not None
    return Play(card, Action.CAPTURE, tuple(groups))


@pytest.mark.parametrize("chunk", range(4))
def test_f3_f7_every_reference_play_is_legal(chunk: int) -> None:
    for seed in list(SEEDS)[chunk::4]:
        sample = play_sample(seed)
        position = parse_position(sample.raw)
        for play in legal_plays(sample.table, sample.hand, sample.player):
            verdict = judge(position, as_play(play, sample.table))
            assert verdict.legal, (seed, play, verdict.violations)


def split_is_valid(card: str, groups: list[list[int]], table: tuple[BItem, ...]) -> bool:
    """F3/F4 on the groups alone (the reference's taken set says the rest)."""
    flat = [i for g in groups for i in g]
    if not groups or not all(groups) or len(flat) != len(set(flat)):
        return False
    if rank(card) in COURTS:
        return True  # the grouping of court cards is free; the taken set decides (F4)
    return all(
        not any(is_court_item(table[i]) for i in g)
        and sum(item_value(table[i]) for i in g) == value(card)
        for g in groups
    )


def reference_says_legal(
    reference: BPlay, play: Play, legal: set[BPlay], table: tuple[BItem, ...]
) -> bool:
    """The reference's verdict on a random play: one it lists, and for a capture a split of
    the taken items into groups that each sum to the card (F3)."""
    if play.action is not Action.CAPTURE:
        return reference in legal
    groups = [list(g) for g in play.groups]
    return reference in legal and split_is_valid(reference.card, groups, table)


def random_play(rng: random.Random, hand: tuple[str, ...], size: int) -> tuple[BPlay, Play]:
    """A random play and its reference spelling."""
    card = rng.choice(hand) if rng.random() < 0.85 else rng.choice(DECK_56)
    kind = rng.choice(("capture", "capture", "capture", "build", "trail", "broom"))
    parsed = parse_card(card)
    indices = list(range(size))
    if kind == "capture":
        chosen = rng.sample(indices, rng.randint(0, size)) if size else []
        groups: list[list[int]] = []
        for index in chosen:
            if groups and rng.random() < 0.5:
                groups[-1].append(index)
            else:
                groups.append([index])
        play = Play(parsed, Action.CAPTURE, tuple(tuple(g) for g in groups))
        return BPlay(card, "capture", frozenset(chosen)), play
    if kind == "build":
        items = tuple(sorted(rng.sample(indices, rng.randint(1, size)))) if size else ()
        target = rng.randint(1, 20)
        return (
            BPlay(card, "build", items=frozenset(items), value=target),
            Play(parsed, Action.BUILD, items=items, value=target),
        )
    action = Action.TRAIL if kind == "trail" else Action.BROOM
    taken = frozenset(range(size)) if kind == "broom" else frozenset()
    return BPlay(card, kind, taken), Play(parsed, action)


@pytest.mark.parametrize("chunk", range(4))
def test_f1_f7_random_plays_match_the_reference(chunk: int) -> None:
    rng = random.Random(chunk)
    legal_seen = {True: 0, False: 0}
    for seed in list(SEEDS)[chunk::4]:
        sample = play_sample(seed)
        position = parse_position(sample.raw)
        legal = set(legal_plays(sample.table, sample.hand, sample.player))
        for _ in range(25):
            reference, play = random_play(rng, sample.hand, len(sample.table))
            expected = reference_says_legal(reference, play, legal, sample.table)
            verdict = judge(position, play)
            assert verdict.legal is expected, (seed, play, verdict.violations, reference)
            legal_seen[expected] += 1
            assert all(v.rule.startswith("F") for v in verdict.violations)
    assert min(legal_seen.values()) >= 100, legal_seen  # both verdicts are well exercised
