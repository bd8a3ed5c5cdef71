"""The fishing suggestion against its brute-force reference, one illegal proposal at a time:
shared by tests/test_fishing_suggest_vs_bruteforce.py (about 100 per game) and
bench/fishing_suggest_differential.py (1,000 per game).

For each random position (``play_sample``) the proposals are players' mistakes
(``fishing_proposals``) that the referee finds illegal. The suggestion must carry the
reference's nearest keys, key by key (``fishing_suggest_bruteforce``); be legal for the
reference too, its groups each worth the card's value; keep exactly the groups it says it
keeps; and be proved nearest.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from solver.fishing.plays import Action, Play
from solver.fishing.position import Position, parse_position
from solver.fishing.referee import RawPlay, judge, parse_play
from solver.fishing.suggest import SuggestedPlay, suggest_play
from tests.reference.fishing_bruteforce import BPlay, item_value, legal_plays, value
from tests.reference.fishing_positions import Sample, play_sample
from tests.reference.fishing_proposals import mistakes
from tests.reference.fishing_suggest_bruteforce import BProposal, nearest_key, play_key

TIME_LIMIT_MS = 10_000
PER_POSITION = 2
SEED_BASE = {"carosello": 0, "carrusel": 1_000_000, "karusele": 2_000_000}


@dataclass(frozen=True)
class Result:
    mistake: str
    where: str
    expected: tuple[int, ...] | None
    got: tuple[int, ...] | None
    problems: tuple[str, ...]

    @property
    def agrees(self) -> bool:
        return self.expected == self.got and not self.problems


def as_raw(proposal: BProposal) -> RawPlay:
    return RawPlay(
        proposal.card,
        proposal.kind,
        [list(g) for g in proposal.groups],
        list(proposal.items),
        proposal.value,
    )


def as_reference(play: Play, table_size: int) -> BPlay:
    """The solver's play in the reference's terms."""
    if play.action is Action.CAPTURE:
        return BPlay(play.card.code, "capture", play.taken)
    if play.action is Action.BROOM:
        return BPlay(play.card.code, "broom", frozenset(range(table_size)))
    if play.action is Action.BUILD:
        return BPlay(play.card.code, "build", items=frozenset(play.items), value=play.value)
    return BPlay(play.card.code, "trail")


def solver_key(found: SuggestedPlay) -> tuple[int, ...]:
    """The suggestion's keys as the reference writes them."""
    keys = found.closeness
    captures = found.solved.play.action in (Action.CAPTURE, Action.BROOM)
    return (
        int(keys.same_card),
        keys.kept_groups,
        keys.proposed_items,
        -keys.extra_items,
        int(keys.same_action),
        int(keys.same_value),
        *(found.solved.outcome.key if captures else (0, 0, 0)),
    )


def check_found(sample: Sample, proposal: BProposal, found: SuggestedPlay) -> list[str]:
    """What the reference says of the suggested play itself, grouping included."""
    play = found.solved.play
    reference = as_reference(play, len(sample.table))
    problems = []
    if reference not in set(legal_plays(sample.table, sample.hand, sample.player)):
        problems.append(f"{play.text} is not legal for the reference")
    worth = value(play.card.code)  # 0 for J, Q, K: they take single cards, never sums
    if (
        play.action is Action.CAPTURE
        and worth
        and any(sum(item_value(sample.table[i]) for i in g) != worth for g in play.groups)
    ):
        problems.append(f"{play.text}: a group is not worth {play.card.code}")
    groups = play.groups if play.action is Action.CAPTURE else ()
    if play_key(proposal, reference, groups, sample.table, sample.prize_suit) != solver_key(found):
        problems.append(f"{play.text} as grouped does not have the keys it claims")
    return problems


def compare(ruleset: str, count: int, seed_base: int | None = None) -> Iterator[Result]:
    """``count`` illegal proposals of ``ruleset``, each compared with the reference, from
    positions ``seed_base``, ``seed_base + 1``, ... (by default the game's ``SEED_BASE``)."""
    made: Counter[str] = Counter()
    seed = SEED_BASE[ruleset] if seed_base is None else seed_base
    while made.total() < count:
        sample = play_sample(seed, ruleset)
        rng = random.Random(seed)
        seed += 1
        position = parse_position(sample.raw)
        # The mistakes made least so far first: the rare ones (groups merged or split need a
        # capture of two groups) are not drowned by those every position allows.
        options = sorted(mistakes(sample, rng), key=lambda option: made[option[0]])
        compared = 0
        for mistake, proposal in options:
            play = parse_play(as_raw(proposal), len(position.table))
            if judge(position, play).legal:
                continue
            yield _compare_one(sample, position, play, mistake, proposal, seed - 1)
            made[mistake] += 1
            compared += 1
            if made.total() == count or compared == PER_POSITION:
                break


def _compare_one(
    sample: Sample, position: Position, play: Play, mistake: str, proposal: BProposal, seed: int
) -> Result:
    suggestion = suggest_play(position, play, TIME_LIMIT_MS)
    expected = nearest_key(sample.table, sample.hand, sample.player, sample.prize_suit, proposal)
    found = suggestion.play
    got = solver_key(found) if found is not None else None
    problems = check_found(sample, proposal, found) if found is not None else []
    if not suggestion.optimal:
        problems.append("not proved nearest")
    where = (
        f"seed {seed} {ruleset_of(sample)} {mistake}: table "
        f"{[i.cards for i in sample.table]} hand {sample.hand} player {sample.player} "
        f"proposal {proposal} -> {found.solved.play.text if found else None} "
        f"got {got} expected {expected} {problems}"
    )
    return Result(mistake, where, expected, got, tuple(problems))


def ruleset_of(sample: Sample) -> str:
    return sample.raw.ruleset
