"""Illegal fishing plays made as players make them (issue #53's differential), from a legal
play of the reference (``fishing_bruteforce``) with one mistake:

- ``left_out``: a card left out of a sum;        - ``wrong_sum``: a group that sums wrong;
- ``court_by_sum``: a J, Q or K taking a sum;    - ``build_value``: a build's value misdeclared;
- ``extra_item``: an extra table item taken or built on;
- ``merged`` / ``split``: two groups written as one, or one group as two;
- ``wrong_card``: a card of the same value that is not in the hand;
- ``trail``: a card laid on the table when it may not be.

A mistake may happen to give a legal play; the caller keeps only the illegal ones.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from tests.reference.fishing_bruteforce import COURTS, BPlay, grouping, legal_plays, rank, value
from tests.reference.fishing_positions import DECK_56, Sample
from tests.reference.fishing_suggest_bruteforce import BProposal

Groups = tuple[tuple[int, ...], ...]


def _captures(sample: Sample) -> list[tuple[BPlay, Groups]]:
    """The legal captures by a numbered card, each with one grouping."""
    found = []
    for play in legal_plays(sample.table, sample.hand, sample.player):
        if play.kind == "capture" and rank(play.card) not in COURTS:
            groups = grouping(sorted(play.taken), sample.table, value(play.card))
            assert groups is not None
            found.append((play, tuple(groups)))
    return found


def _builds(sample: Sample) -> list[BPlay]:
    return [p for p in legal_plays(sample.table, sample.hand, sample.player) if p.kind == "build"]


def _capture(card: str, groups: Groups) -> BProposal:
    return BProposal(card, "capture", tuple(tuple(g) for g in groups))


def left_out(sample: Sample, rng: random.Random) -> BProposal | None:
    options = [(p, gs, k) for p, gs in _captures(sample) for k, g in enumerate(gs) if len(g) > 1]
    if not options:
        return None
    play, groups, k = rng.choice(options)
    group = list(groups[k])
    group.remove(rng.choice(group))
    return _capture(play.card, (*groups[:k], tuple(group), *groups[k + 1 :]))


def wrong_sum(sample: Sample, rng: random.Random) -> BProposal | None:
    options = [(p, gs) for p, gs in _captures(sample) if len(p.taken) < len(sample.table)]
    if not options:
        return None
    play, groups = rng.choice(options)
    k = rng.randrange(len(groups))
    group = list(groups[k])
    outside = [i for i in range(len(sample.table)) if i not in play.taken]
    group[rng.randrange(len(group))] = rng.choice(outside)
    return _capture(play.card, (*groups[:k], tuple(sorted(group)), *groups[k + 1 :]))


def court_by_sum(sample: Sample, rng: random.Random) -> BProposal | None:
    courts = [c for c in sample.hand if rank(c) in COURTS]
    numbered = [i for i, item in enumerate(sample.table) if value(item.cards[0]) > 0]
    if not courts or not numbered:
        return None
    group = sorted(rng.sample(numbered, rng.randint(1, min(3, len(numbered)))))
    return _capture(rng.choice(courts), (tuple(group),))


def build_value(sample: Sample, rng: random.Random) -> BProposal | None:
    builds = _builds(sample)
    if not builds:
        return None
    play = rng.choice(builds)
    wrong = max(1, play.value + rng.choice((-3, -2, -1, 1, 2, 3)))
    return BProposal(play.card, "build", items=tuple(sorted(play.items)), value=wrong)


def extra_item(sample: Sample, rng: random.Random) -> BProposal | None:
    captures = [(p, gs) for p, gs in _captures(sample) if len(p.taken) < len(sample.table)]
    builds = [p for p in _builds(sample) if len(p.items) < len(sample.table)]
    if not captures and not builds:
        return None
    if captures and (not builds or rng.random() < 0.6):
        play, groups = rng.choice(captures)
        extra = rng.choice([i for i in range(len(sample.table)) if i not in play.taken])
        k = rng.randrange(len(groups))
        grown = tuple(sorted((*groups[k], extra)))
        return _capture(play.card, (*groups[:k], grown, *groups[k + 1 :]))
    build = rng.choice(builds)
    extra = rng.choice([i for i in range(len(sample.table)) if i not in build.items])
    return BProposal(
        build.card, "build", items=tuple(sorted({*build.items, extra})), value=build.value
    )


def merged(sample: Sample, rng: random.Random) -> BProposal | None:
    options = [(p, gs) for p, gs in _captures(sample) if len(gs) > 1]
    if not options:
        return None
    play, groups = rng.choice(options)
    a, b = sorted(rng.sample(range(len(groups)), 2))
    joined = tuple(sorted((*groups[a], *groups[b])))
    rest = tuple(g for k, g in enumerate(groups) if k not in (a, b))
    return _capture(play.card, (joined, *rest))


def split(sample: Sample, rng: random.Random) -> BProposal | None:
    options = [(p, gs, k) for p, gs in _captures(sample) for k, g in enumerate(gs) if len(g) > 1]
    if not options:
        return None
    play, groups, k = rng.choice(options)
    group = list(groups[k])
    rng.shuffle(group)
    cut = rng.randint(1, len(group) - 1)
    parts = (tuple(sorted(group[:cut])), tuple(sorted(group[cut:])))
    return _capture(play.card, (*groups[:k], *parts, *groups[k + 1 :]))


def wrong_card(sample: Sample, rng: random.Random) -> BProposal | None:
    captures = _captures(sample)
    if not captures:
        return None
    play, groups = rng.choice(captures)
    others = [
        c
        for c in DECK_56
        if value(c) == value(play.card) and c not in sample.hand and rank(c) not in COURTS
    ]
    if not others:
        return None
    return _capture(rng.choice(others), groups)


def trail(sample: Sample, rng: random.Random) -> BProposal | None:
    cards = [c for c in sample.hand if c != "BROOM"]
    return BProposal(rng.choice(cards), "trail") if cards else None


MISTAKES: dict[str, Callable[[Sample, random.Random], BProposal | None]] = {
    "left_out": left_out,
    "wrong_sum": wrong_sum,
    "court_by_sum": court_by_sum,
    "build_value": build_value,
    "extra_item": extra_item,
    "merged": merged,
    "split": split,
    "wrong_card": wrong_card,
    "trail": trail,
}


def mistakes(sample: Sample, rng: random.Random) -> list[tuple[str, BProposal]]:
    """One proposal per mistake that applies to the sample, in a random order."""
    names = list(MISTAKES)
    rng.shuffle(names)
    made = [(name, MISTAKES[name](sample, rng)) for name in names]
    return [(name, proposal) for name, proposal in made if proposal is not None]
