"""The held-out differential campaign: the suite's solver-versus-reference comparisons rerun
on seeds the suite never uses, so that "never wrong about the rules" is checked on positions
nobody has seen.

    taskset -c 1 .venv/bin/python -m bench.heldout [--base 7000000] [--n 20] \\
        [--n rearrangement=2000 --n carioca=300 ...] [--families rearrangement,carioca,...]

Every family draws its positions with the suite's own generators and compares with the
suite's own references (``tests/reference``), its seeds offset by ``--base``:

- ``rearrangement``: per ruleset, ``--n`` seeded small positions against the brute force
  (``tests.reference.differential.compare``: the three objectives, the largest add, CheckKnock,
  the tie-break, every move legal), plus ``--n``/4 mexe-mexe deals with up to four 2s and
  ``--n``/4 seeds per ruleset holding a meld a release can leave;
- ``carioca``: per deal 1-7, ``--n`` positions (60% before opening) against
  ``carioca_bruteforce``: the fewest points left (C7), every tenth also the draw baseline
  and five moves best first and distinct;
- ``fishing-solve``: SolvePlay's top three keys and their legality against
  ``fishing_bruteforce`` (F3-F7);
- ``fishing-referee``: ValidatePlay's verdict on every legal play and on 25 random plays per
  position against ``fishing_bruteforce`` (F1-F7);
- ``fishing-endgame``: the deal-end search against plain minimax (F8, F9): 2, 3 and 4
  players, a build on the table, full 4 + 4 last rounds, in turn;
- ``suggest``, ``carioca-suggest``, ``fishing-suggest``: ``--n`` illegal proposals per
  ruleset (per game) against the suggestion oracles, key by key;
- ``mip``: per ruleset, ``--n`` mid/large wild-free positions against the integer program,
  and ``--n``/2 with table jokers within its bounds (carrossel, rummikub, vatikan);
- ``rummikub``: ``--n`` positions with rack jokers, ``--n`` openings and ``--n``/5 with table
  jokers against rummikub-solver;
- ``mexe-twos``: ``--n`` mexe-mexe positions made for one rule the random deals seldom reach
  (``twos_spec``: a wild 2 standing for a 2, which R4 lets play natural in its own place).

Documented differences are counted apart, not as disagreements: an unproved tie-break that
changes more melds (``tie_break_short``, within the suite's MAX_TIE_BREAK_SHORT), suggestions
not proved nearest that still agree, and rummikub-solver's joker restriction
(DISAGREEMENTS.md). Each disagreement is printed on one line with what reproduces it; the
exit status is 1 on any disagreement.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from solver.rummy.position import Turn
from tests.carioca_positions import SUITS, RandomPosition, layoff_position, opening_position
from tests.carioca_positions import code as card_code
from tests.reference.differential import (
    MOVES_EVERY,
    SEVERAL_MOVES,
    Outcome,
    compare,
    compare_position,
    compare_release_twin,
)
from tests.reference.positions import MANY_WILDS, REARRANGEMENT, PositionSpec

DEFAULT_BASE = 7_000_000
DEFAULT_N = 20
FISHING_GAMES = ("carosello", "carrusel", "karusele")
# Offsets inside one family's seed range, so that its parts draw different positions.
PART = 1_000_000


@dataclass
class Tally:
    """One part of a family (a ruleset, a deal, a game): what was compared and found."""

    name: str
    compared: int = 0
    agreed: int = 0
    known: Counter[str] = field(default_factory=Counter)  # documented differences, by kind
    notes: Counter[str] = field(default_factory=Counter)  # coverage, not judged
    disagreements: list[str] = field(default_factory=list)
    cpu_seconds: float = 0.0
    started: float = field(default_factory=time.process_time)  # CPU time when made

    def record(self, problems: Iterable[str], where: str) -> None:
        """One comparison: agreeing when ``problems`` is empty, else one line per problem."""
        listed = list(problems)
        self.compared += 1
        if not listed:
            self.agreed += 1
            return
        self.disagreements.append(f"DISAGREE {self.name}: {where} :: " + " | ".join(listed))

    def guarded(self, check: Callable[..., list[str]], *args: Any) -> list[str]:
        """``check(*args)``'s problems; an exception is one (named), never the end of the run."""
        try:
            return check(*args)
        except Exception as exc:  # any crash on a position is a finding
            return [_raised(exc)]

    def summary(self) -> str:
        known = ", ".join(f"{k}={v}" for k, v in sorted(self.known.items())) or "none"
        notes = ", ".join(f"{k}={v}" for k, v in sorted(self.notes.items()))
        return (
            f"{self.name}: {self.compared} compared, {self.agreed} agree, "
            f"{len(self.disagreements)} disagree; known differences: {known}"
            + (f"; covered: {notes}" if notes else "")
            + f"; {self.cpu_seconds:.1f} s CPU"
        )


def _raised(exc: Exception) -> str:
    """A crash as one problem line: its exception's last line."""
    return "raised " + traceback.format_exception_only(type(exc), exc)[-1].strip()


Family = Callable[[int, int], Iterator[Tally]]


# ------------------------------------------------------------------------------------------
# Rearrangement rulesets against the brute force


def _outcome_into(tally: Tally, outcome: Outcome | None, repro: str) -> None:
    if outcome is None:
        return
    if "tie_break_short" in outcome.flags:
        tally.known["tie_break_short"] += 1
    for flag in ("release_needed", "go_out", "no_play", "knock"):
        tally.notes[flag] += flag in outcome.flags
    tally.record(outcome.problems, f"{outcome.spec} [{repro}]")


def _safe_outcome(
    tally: Tally, job: Any, run: Callable[[Any], Outcome | None], repro: str
) -> Outcome | None:
    try:
        return run(job)
    except Exception as exc:  # any crash on a position is a finding
        tally.record([_raised(exc)], repro)
        return None


def rearrangement(n: int, base: int) -> Iterator[Tally]:
    """The brute-force comparison of test_solver_vs_bruteforce.py, on held-out seeds."""
    for ruleset_id in REARRANGEMENT:
        tally = Tally(f"rearrangement {ruleset_id}")
        for seed in range(base, base + n):
            repro = f"python -m tests.reference.differential {ruleset_id}:{seed}"
            _outcome_into(tally, _safe_outcome(tally, (ruleset_id, seed), compare, repro), repro)
        yield _done(tally)
    tally = Tally(f"rearrangement mexe-mexe up to {MANY_WILDS} 2s")
    for seed in range(base + PART, base + PART + n // 4):
        many = ("mexe-mexe", seed, MANY_WILDS)
        repro = f"compare({many!r})"
        _outcome_into(tally, _safe_outcome(tally, many, compare, repro), repro)
    yield _done(tally)
    for ruleset_id in ("carrossel", "mexe-mexe", "vatikan", "rummikub"):
        tally = Tally(f"rearrangement {ruleset_id} meld a release can leave")
        for seed in range(base + 2 * PART, base + 2 * PART + n // 4):
            job = (ruleset_id, seed)
            repro = f"compare_release_twin({job!r})"
            outcome = _safe_outcome(tally, job, compare_release_twin, repro)
            _outcome_into(tally, outcome, repro)
        yield _done(tally)


def twos_spec(seed: int) -> PositionSpec:
    """A mexe-mexe position of five players (two decks) whose table holds a group of 2s with a
    wild 2 standing for a 2 (``2D=2``), maybe a run beside it, and 1-3 hand cards, mostly 2s
    and low cards: where R4 lets a 2 in its own place be natural, so a run of 2s alone may
    be a meld. The random deals above seldom hold one."""
    rng = random.Random(seed)
    naturals = rng.sample(SUITS, rng.choice((2, 3)))
    group = [f"2{s}" for s in naturals] + [f"2{rng.choice(SUITS)}=2"]
    rng.shuffle(group)
    used = Counter(c.split("=")[0] for c in group)
    table = [tuple(group)]
    if rng.random() < 0.5:
        suit, low = rng.choice(SUITS), rng.randint(3, 10)
        run = tuple(card_code(rank, suit) for rank in range(low, low + 3))
        table.append(run)
        used.update(run)
    hand: list[str] = []
    wanted = rng.randint(1, 3)
    while len(hand) < wanted:
        card = card_code(rng.choice((2, 2, 1, 3, 4, 5, rng.randint(1, 13))), rng.choice(SUITS))
        if used[card] < 2:  # two decks
            used[card] += 1
            hand.append(card)
    return PositionSpec("mexe-mexe", 5, tuple(table), tuple(hand), Turn(cards_drawn=1))


def compare_twos(seed: int) -> Outcome:
    """``compare_position`` on ``twos_spec(seed)``, three moves asked on odd seeds."""
    return compare_position(twos_spec(seed), seed, SEVERAL_MOVES if seed % 2 else 1)


def mexe_twos(n: int, base: int) -> Iterator[Tally]:
    """The brute-force comparison on ``twos_spec`` positions (three moves asked on odd seeds)."""
    tally = Tally("mexe-twos (a wild 2 standing for a 2)")
    for seed in range(base + 10 * PART, base + 10 * PART + n):
        repro = f"bench.heldout.compare_twos({seed})"
        _outcome_into(tally, _safe_outcome(tally, seed, compare_twos, repro), repro)
    yield _done(tally)


# ------------------------------------------------------------------------------------------
# Carioca against its brute force


def _carioca_position(seed: int, deal: int, opening: bool) -> RandomPosition:
    rng = random.Random(seed)
    return opening_position(rng, deal) if opening else layoff_position(rng, deal)


def _carioca_checks(rp: RandomPosition, several: bool, baseline: bool, tally: Tally) -> list[str]:
    from solver.contract.search import fewest_points_left, solve_contract_move
    from tests.test_c2_c5_carioca_solver_vs_bruteforce import _brute, _parsed

    position = _parsed(rp)
    expected = _brute(rp)
    result = solve_contract_move(position, 5 if several else 1, 10_000)
    problems = []
    if not result.optimal:
        problems.append("not proved optimal")
    points = [m.verdict.hand_points_after for m in result.moves]
    if result.moves and result.moves[0].verdict.played:
        tally.notes["lay-offs played" if rp.opened else "openings played"] += 1
    if not points or points[0] != expected:
        problems.append(f"points left: ours {points[:1]} reference {expected} (C7)")
    if points != sorted(points):
        problems.append(f"moves not best first: {points}")
    keys = {(m.move.table, m.move.discard) for m in result.moves}
    if len(keys) != len(result.moves):
        problems.append("two moves alike")
    if baseline:
        got, proved = fewest_points_left(position, 10_000)
        wanted = _brute(rp, discard_required=False)
        if not proved or got != wanted:
            problems.append(f"draw baseline: ours {got} (proved={proved}) reference {wanted}")
    return problems


def carioca(n: int, base: int) -> Iterator[Tally]:
    """test_c2_c5_carioca_solver_vs_bruteforce.py's comparison; one seed per position."""
    for deal in range(1, 8):
        tally = Tally(f"carioca deal {deal}")
        for i in range(n):
            seed = base + deal * PART + i
            opening = i % 5 < 3  # the suite's 60% before opening
            rp = _carioca_position(seed, deal, opening)
            tally.notes["before opening" if opening else "after opening"] += 1
            problems = tally.guarded(
                _carioca_checks, rp, i % MOVES_EVERY == 5, i % MOVES_EVERY == 0, tally
            )
            where = (
                f"seed {seed} deal {deal} opened={rp.opened} table {rp.table} hand {rp.hand} "
                f"[bench.heldout._carioca_position({seed}, {deal}, {opening})]"
            )
            tally.record(problems, where)
        yield _done(tally)


# ------------------------------------------------------------------------------------------
# Fishing games


def _fishing_where(seed: int, sample: Any, maker: str) -> str:
    table = [list(item.cards) for item in sample.table]
    return (
        f"seed {seed} {sample.raw.ruleset} table {table} hand {list(sample.hand)} "
        f"player {sample.player}/{sample.players} [{maker}({seed})]"
    )


def _fishing_solve_checks(sample: Any) -> list[str]:
    from solver.fishing.plays import Action
    from solver.fishing.position import parse_position
    from solver.fishing.search import solve_plays
    from tests.reference.fishing_bruteforce import best_keys, legal_plays
    from tests.test_fishing_differential import TOP, as_reference

    result = solve_plays(parse_position(sample.raw), TOP, 10_000)
    expected = best_keys(sample.table, sample.hand, sample.player, sample.prize_suit)[:TOP]
    captures = (Action.CAPTURE, Action.BROOM)
    got = [s.outcome.key if s.play.action in captures else (0, 0, 0) for s in result.plays]
    problems = []
    if got != expected:
        shown = [s.play.text for s in result.plays]
        problems.append(f"top keys ours {got} {shown} reference {expected}")
    if not result.optimal:
        problems.append("not proved optimal")
    legal = set(legal_plays(sample.table, sample.hand, sample.player))
    for solved in result.plays:
        if as_reference(solved.play, len(sample.table)) not in legal:
            problems.append(f"{solved.play.text} is not legal for the reference")
    return problems


def fishing_solve(n: int, base: int) -> Iterator[Tally]:
    """test_fishing_differential.py's SolvePlay ranking (F3-F7)."""
    from tests.reference.fishing_positions import play_sample

    tally = Tally("fishing-solve")
    for seed in range(base, base + n):
        sample = play_sample(seed)
        tally.notes[sample.raw.ruleset] += 1
        problems = tally.guarded(_fishing_solve_checks, sample)
        tally.record(problems, _fishing_where(seed, sample, "play_sample"))
    yield _done(tally)


RANDOM_PLAYS = 25  # per position, as the suite


def _fishing_referee_checks(seed: int, sample: Any, tally: Tally) -> list[str]:
    from solver.fishing.position import parse_position
    from solver.fishing.referee import judge
    from tests.reference.fishing_bruteforce import legal_plays
    from tests.test_fishing_referee_differential import as_play, random_play, reference_says_legal

    position = parse_position(sample.raw)
    legal = set(legal_plays(sample.table, sample.hand, sample.player))
    problems = []
    for listed in legal:
        verdict = judge(position, as_play(listed, sample.table))
        if not verdict.legal:
            problems.append(f"reference-legal {listed} refused: {verdict.violations}")
    rng = random.Random(seed)
    for _ in range(RANDOM_PLAYS):
        reference, play = random_play(rng, sample.hand, len(sample.table))
        expected = reference_says_legal(reference, play, legal, sample.table)
        verdict = judge(position, play)
        tally.notes["random legal" if expected else "random illegal"] += 1
        if verdict.legal is not expected:
            problems.append(
                f"{play.text}: referee legal={verdict.legal} {verdict.violations}, "
                f"reference legal={expected}"
            )
        if not all(v.rule.startswith("F") for v in verdict.violations):
            problems.append(f"{play.text}: a violation outside F1-F10 {verdict.violations}")
    return problems


def fishing_referee(n: int, base: int) -> Iterator[Tally]:
    """test_fishing_referee_differential.py's verdicts (F1-F7), random plays seeded per position."""
    from tests.reference.fishing_positions import play_sample

    tally = Tally("fishing-referee")
    for seed in range(base + PART, base + PART + n):
        sample = play_sample(seed)
        problems = tally.guarded(_fishing_referee_checks, seed, sample, tally)
        tally.record(problems, _fishing_where(seed, sample, "play_sample"))
    yield _done(tally)


ENDGAME_KINDS = ("2 players", "3 players", "4 players", "build", "full last round")


def _endgame_sample(kind: str, seed: int) -> tuple[Any, str]:
    from tests.reference.fishing_positions import (
        endgame_sample,
        endgame_with_build,
        full_last_round,
    )

    if kind == "build":
        return endgame_with_build(seed), "endgame_with_build"
    if kind == "full last round":
        return full_last_round(seed), "full_last_round"
    players = int(kind[0])
    return endgame_sample(seed, players), f"endgame_sample({players}) seed"


def _endgame_checks(sample: Any) -> list[str]:
    from solver.fishing.endgame import check_complete, solve_deal_end
    from solver.fishing.position import parse_position
    from tests.reference.fishing_minimax import sample_play_values
    from tests.test_fishing_differential import TOP, as_reference

    position = parse_position(sample.raw)
    check_complete(position)
    result = solve_deal_end(position, TOP, 60_000)
    values = sample_play_values(sample)
    problems = []
    if not result.optimal:
        problems.append("not proved optimal")
    if result.plays[0].value != max(values.values()):
        problems.append(f"best value ours {result.plays[0].value} minimax {max(values.values())}")
    for found in result.plays:
        reference = as_reference(found.solved.play, len(sample.table))
        if values.get(reference) != found.value:
            problems.append(
                f"{found.solved.play.text}: ours {found.value} minimax {values.get(reference)}"
            )
    return problems


def fishing_endgame(n: int, base: int) -> Iterator[Tally]:
    """test_fishing_differential.py's deal-end search against minimax (F8, F9)."""
    tally = Tally("fishing-endgame")
    for i in range(n):
        seed = base + 2 * PART + i
        kind = ENDGAME_KINDS[i % len(ENDGAME_KINDS)]
        sample, maker = _endgame_sample(kind, seed)
        tally.notes[kind] += 1
        problems = tally.guarded(_endgame_checks, sample)
        tally.record(problems, f"{kind}: " + _fishing_where(seed, sample, maker))
    yield _done(tally)


# ------------------------------------------------------------------------------------------
# Suggestions (issue #53) against their oracles


def suggest(n: int, base: int) -> Iterator[Tally]:
    """tests/suggest_differential.py per rearrangement ruleset."""
    from tests.suggest_differential import compare as compare_suggestion

    for ruleset_id in REARRANGEMENT:
        tally = Tally(f"suggest {ruleset_id}")
        seed = base + 3 * PART
        for compared in _guarded_stream(tally, compare_suggestion(ruleset_id, n, seed)):
            if not compared.optimal and compared.agrees:
                tally.known["agrees, not proved nearest"] += 1
            tally.notes["no suggestion" if compared.got is None else "suggested"] += 1
            tally.record(_suggest_problems(compared), _one_line(compared.where))
        yield _done(tally)


def _suggest_problems(compared: Any) -> list[str]:
    if compared.agrees:
        return []
    problems = []
    if compared.expected != compared.got:
        problems.append(f"keys ours {compared.got} reference {compared.expected}")
    if not compared.legal:
        problems.append("the suggestion is illegal")
    if not compared.same_wanted:
        problems.append("the proposal's hand cards are read differently")
    if not compared.optimal:
        problems.append("(the suggestion says: not proved nearest)")
    return problems


def carioca_suggest(n: int, base: int) -> Iterator[Tally]:
    """tests/carioca_suggest_differential.py (all seven contracts)."""
    from tests.carioca_suggest_differential import compare as compare_suggestion

    tally = Tally("carioca-suggest")
    for compared in _guarded_stream(tally, compare_suggestion(n, base + 4 * PART)):
        tally.notes[f"deal {compared.deal}"] += 1
        tally.record(_suggest_problems(compared), _one_line(compared.where))
    yield _done(tally)


def fishing_suggest(n: int, base: int) -> Iterator[Tally]:
    """tests/fishing_suggest_differential.py per game."""
    from tests.fishing_suggest_differential import compare as compare_suggestion

    for offset, game in enumerate(FISHING_GAMES):
        tally = Tally(f"fishing-suggest {game}")
        seed = base + (5 + offset) * PART
        for result in _guarded_stream(tally, compare_suggestion(game, n, seed)):
            tally.notes[result.mistake] += 1
            problems = [] if result.agrees else [f"ours {result.got} reference {result.expected}"]
            tally.record(problems + list(result.problems), result.where)
        yield _done(tally)


def _guarded_stream(tally: Tally, stream: Iterator[Any]) -> Iterator[Any]:
    """The comparisons of a generator; a crash ends it, recorded as a disagreement."""
    try:
        yield from stream
    except Exception as exc:  # a crash is a finding
        tally.record([_raised(exc)], "the stream after the last one compared")


def _one_line(text: str) -> str:
    return " / ".join(line.strip() for line in text.splitlines())


# ------------------------------------------------------------------------------------------
# Larger positions: the integer program and rummikub-solver


def mip(n: int, base: int) -> Iterator[Tally]:
    """test_solver_vs_mip.py: optima equal on wild-free mid/large positions; with table jokers
    the program's bounds hold."""
    from solver.rearrangement.search import Objective, solve_move
    from tests.reference.mip import TableJokers, mip_optima
    from tests.test_solver_vs_mip import TABLE_JOKER_RULESETS, _ours, mip_specs, table_joker_specs

    seed = base + 8 * PART
    for ruleset_id in REARRANGEMENT:
        tally = Tally(f"mip {ruleset_id}")
        for spec in mip_specs(ruleset_id, seed, n):

            def equal(spec: Any = spec) -> list[str]:
                ours, theirs = _ours(spec), mip_optima(spec.position())
                return [] if ours == theirs else [f"ours {ours} program {theirs}"]

            tally.record(tally.guarded(equal), f"{_one_line(spec.describe())} [mip_specs]")
        yield _done(tally)
    for ruleset_id in TABLE_JOKER_RULESETS:
        tally = Tally(f"mip {ruleset_id} table jokers")
        for spec in table_joker_specs(ruleset_id, seed, max(1, n // 2)):

            def bounded(spec: Any = spec) -> list[str]:
                position = spec.position()
                result = solve_move(position, Objective.MOST_CARDS, 1, 60_000)
                ours = result.moves[0].cards_played if result.moves else 0
                high = mip_optima(position, TableJokers.FREE).most_cards or 0
                low = 0
                if not position.ruleset.rearrangement.wild_lineage:
                    low = mip_optima(position, TableJokers.FIXED_IN_RUNS).most_cards or 0
                problems = [] if result.optimal else ["not proved optimal"]
                if not low <= ours <= high:
                    problems.append(f"not {low} <= ours {ours} <= {high}")
                return problems

            where = f"{_one_line(spec.describe())} [table_joker_specs]"
            tally.record(tally.guarded(bounded), where)
        yield _done(tally)


def rummikub(n: int, base: int) -> Iterator[Tally]:
    """test_rummikub_solver_agreement.py: rack jokers, openings and table jokers."""
    from tests.reference.rummikub_adapter import JokerModel, opening_answer, their_answer
    from tests.test_rummikub_solver_agreement import (
        NOT_OPENED,
        OPENED,
        _compare,
        _ours,
        rack_specs,
        table_joker_specs,
    )

    seed = base + 9 * PART
    tally = Tally("rummikub rack jokers")
    for spec in rack_specs(seed, n, OPENED, "rack-jokers", 1, (0, 0, 1, 2)):

        def rack(spec: Any = spec) -> list[str]:
            c = _compare(spec)
            if c.bites:
                tally.known["rummikub-solver's joker restriction"] += 1
            wrong = (not c.bites and c.ours != c.published.count) or c.ours != c.widened.count
            return [_one_line(c.report())] if wrong or c.ours < c.published.count else []

        tally.record(tally.guarded(rack), f"{spec.name} [rack_specs({seed})]")
    yield _done(tally)
    tally = Tally("rummikub opening")
    for spec in rack_specs(seed + 2, n, NOT_OPENED, "opening", 3, (0, 1, 2)):

        def opening(spec: Any = spec) -> list[str]:
            position = spec.position()
            ours, _ = _ours(position)
            theirs = opening_answer(position)
            return [] if ours == theirs.count else [f"ours {ours}; {theirs.describe()}"]

        tally.record(tally.guarded(opening), f"{_one_line(spec.describe())}")
    yield _done(tally)
    tally = Tally("rummikub table jokers")
    for spec in table_joker_specs(seed + 4, max(1, n // 5)):

        def bounds(spec: Any = spec) -> list[str]:
            position = spec.position()
            ours, _ = _ours(position)
            low = their_answer(position, JokerModel.TABLE_JOKERS_FIXED).count
            high = their_answer(position, JokerModel.ANYWHERE).count
            return [] if low <= ours <= high else [f"not {low} <= ours {ours} <= {high}"]

        tally.record(tally.guarded(bounds), f"{_one_line(spec.describe())}")
    yield _done(tally)


# ------------------------------------------------------------------------------------------
# The run


FAMILIES: dict[str, Family] = {
    "rearrangement": rearrangement,
    "mexe-twos": mexe_twos,
    "carioca": carioca,
    "fishing-solve": fishing_solve,
    "fishing-referee": fishing_referee,
    "fishing-endgame": fishing_endgame,
    "suggest": suggest,
    "carioca-suggest": carioca_suggest,
    "fishing-suggest": fishing_suggest,
    "mip": mip,
    "rummikub": rummikub,
}


def _done(tally: Tally) -> Tally:
    tally.cpu_seconds = time.process_time() - tally.started
    return tally


def _counts(values: list[str]) -> tuple[int, dict[str, int]]:
    """``--n``: a plain count for every family, ``family=count`` for one."""
    default = DEFAULT_N
    per_family: dict[str, int] = {}
    for value in values:
        if "=" in value:
            name, count = value.split("=", 1)
            if name not in FAMILIES:
                raise ValueError(f"unknown family {name!r}")
            per_family[name] = int(count)
        else:
            default = int(value)
    return default, per_family


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--base", type=int, default=DEFAULT_BASE, help="seed offset")
    parser.add_argument(
        "--n", action="append", default=[], help="count per family part; or FAMILY=COUNT"
    )
    parser.add_argument("--families", default=",".join(FAMILIES), help="comma-separated")
    args = parser.parse_args(argv)
    try:
        default, per_family = _counts(args.n)
    except ValueError as exc:
        parser.error(str(exc))
    chosen = [f for f in args.families.split(",") if f]
    unknown = [f for f in chosen if f not in FAMILIES]
    if unknown:
        parser.error(f"unknown families {unknown}; choose from {', '.join(FAMILIES)}")
    tallies: list[Tally] = []
    for name in chosen:
        for tally in FAMILIES[name](per_family.get(name, default), args.base):
            print(tally.summary(), flush=True)
            for line in tally.disagreements:
                print("  " + line, flush=True)
            tallies.append(tally)
    compared = sum(t.compared for t in tallies)
    agreed = sum(t.agreed for t in tallies)
    known = sum(t.known.total() for t in tallies)
    print(
        f"TOTAL (base {args.base}): {compared} compared, {agreed} agree, "
        f"{compared - agreed} disagree; {known} known differences counted apart",
        flush=True,
    )
    return 1 if compared != agreed else 0


if __name__ == "__main__":
    sys.exit(main())
