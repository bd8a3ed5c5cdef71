"""Rummikub's best move searched as a choice among the deck's melds (``model.deck_melds``).

The second model must answer exactly as the turn model (``turn.build_turn``) on the same
questions: the same best value for each objective, the same fewest melds changed (SPEC §4's
tie-break), proved alike, and every move legal (``validate_move`` re-checks each). The rulings
it writes down as a count of short melds are checked on their own: R2 (a run of 6 or more is
shown whole, not as the runs of 3-5 the model counts), R3 (a joker in a group stands for a
missing suit, so its value has no suit), R4 (a meld of three places may hold two jokers, one
natural card), R6 (every table card stays; a kept meld of any length stays as it was).

With jokers on the table the model is a relaxation (it asks only that a moved joker's
natural is played, not where, R5), so its answer stands only where the referee accepts it:
the same best value as the turn model's, a tie-break as good or (where the turn model did not
prove its own) better, and the turn model's answer where the referee refuses the model's.
"""

from __future__ import annotations

import random
from typing import Any

import grpc
import pytest

from bench.positions import HAND_SIZES, SIZES, bench_positions, random_position
from carrossel.v1 import rummy_pb2
from solver.core.cards import JOKER_CARD
from solver.core.errors import InvalidRequest
from solver.rearrangement import search, tries
from solver.rearrangement.budget import Budget
from solver.rearrangement.model import deck_melds
from solver.rearrangement.search import (
    Objective,
    SolveResult,
    play_allowed,
    solve_move,
    validate_move,
)
from solver.rummy.position import Position, Turn, parse_move, parse_position
from tests.ops_helpers import error_of, field_violations

OBJECTIVES = (Objective.MOST_CARDS, Objective.FEWEST_POINTS, Objective.GO_OUT)


def rummikub(table: list[str], hand: str, opened: bool = True) -> Position:
    return parse_position(
        "rummikub", 2, [m.split() for m in table], hand.split(), Turn(has_opened=opened)
    )


def _solve(position: Position, objective: Objective, melds: bool) -> SolveResult:
    saved = search.DECK_MELDS
    search.DECK_MELDS = melds
    try:
        return solve_move(position, objective)
    finally:
        search.DECK_MELDS = saved


def _answer(result: SolveResult, objective: Objective) -> tuple[object, ...]:
    """What both models must agree on: the primary value, the tie-break, the proof."""
    best = result.moves[0] if result.moves else None
    primary: object = None
    if best is not None:
        primary = {
            Objective.MOST_CARDS: best.cards_played,
            Objective.FEWEST_POINTS: best.verdict.hand_points_after,
            Objective.GO_OUT: (best.verdict.went_out, best.cards_played),
        }[objective]
    changed = best.melds_changed if best is not None else None
    stats = result.stats
    return (result.optimal, stats.status, stats.objective_value, primary, changed)


def _positions() -> list[Position]:
    return [
        spec.position()
        for size in ("small", "mid", "large")
        for seed in (23, 24)
        for spec in bench_positions("rummikub", size, 10, seed)
    ]


@pytest.mark.parametrize("objective", OBJECTIVES, ids=lambda o: o.name)
def test_the_same_answers_as_the_turn_model(objective: Objective) -> None:
    positions = _positions()
    assert all(deck_melds.applies(p) for p in positions)
    assert {p.hand.count(JOKER_CARD) for p in positions} == {0, 1, 2}
    for position in positions:
        ours = _solve(position, objective, melds=True)
        theirs = _solve(position, objective, melds=False)
        assert _answer(ours, objective) == _answer(theirs, objective), position
        assert ours.stats.tie_break_proved
        for solved in ours.moves:
            assert validate_move(position, solved.move).legal


def test_no_play_is_no_move_proved() -> None:
    result = solve_move(rummikub(["5C 6C 7C"], "KD 2S"))
    assert result.moves == () and result.optimal
    assert result.stats.status == "NO_LEGAL_PLAY"
    assert result.stats.objective_value == 0.0


def test_r4_two_jokers_and_one_natural_card_make_a_meld() -> None:
    result = solve_move(rummikub([], "5H JK JK"), Objective.GO_OUT)
    best = result.moves[0]
    assert result.optimal and best.verdict.went_out and best.cards_played == 3
    (meld,) = best.move.table
    assert sum(tc.card == JOKER_CARD for tc in meld) == 2


def test_r3_a_joker_in_a_group_stands_for_a_missing_suit() -> None:
    result = solve_move(rummikub([], "9C 9D JK KS"))
    (meld,) = result.moves[0].move.table
    assert sorted(tc.code for tc in meld) == ["9C", "9D", "JK=9"]
    assert result.moves[0].cards_played == 3


def test_r4_a_joker_in_a_run_carries_its_suit() -> None:
    result = solve_move(rummikub([], "9C JK JC KS"))
    (meld,) = result.moves[0].move.table
    assert [tc.code for tc in meld] == ["9C", "JK=10C", "JC"]


def test_r2_a_long_new_run_is_shown_whole() -> None:
    result = solve_move(rummikub([], "AH 2H 3H 4H 5H 6H 7H 8H"), Objective.GO_OUT)
    assert [[tc.code for tc in meld] for meld in result.moves[0].move.table] == [
        ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H"]
    ]


def test_r6_a_kept_run_longer_than_five_stays_as_it_was() -> None:
    table = ["AC 2C 3C 4C 5C 6C 7C 8C 9C", "JD QD KD"]
    result = solve_move(rummikub(table, "5H 6H 7H"))
    best = result.moves[0]
    assert best.cards_played == 3 and best.melds_changed == 0
    assert [tc.code for tc in best.move.table[0]] == table[0].split()


def test_r6_table_cards_all_stay_while_the_hand_extends_and_splits() -> None:
    # 10C extends the run (one meld changed); 4H 5H have no third card to go with.
    result = solve_move(rummikub(["4C 5C 6C 7C 8C 9C", "JH QH KH"], "10C 4H 5H"))
    best = result.moves[0]
    assert best.cards_played == 1 and best.melds_changed == 1
    codes = sorted(tc.code for meld in best.move.table for tc in meld)
    assert codes == sorted(["4C", "5C", "6C", "7C", "8C", "9C", "10C", "JH", "QH", "KH"])


def test_the_deck_model_is_never_written_by_a_position() -> None:
    positions = _positions()[:6]
    measure = deck_melds.Measure.CARDS
    built = deck_melds.deck_melds(positions[0], measure)
    before = str(built.model.proto)
    for position in positions:
        if position.hand.count(JOKER_CARD) == positions[0].hand.count(JOKER_CARD):
            solve_move(position, Objective.MOST_CARDS)
    assert str(built.model.proto) == before


def test_the_turn_model_answers_where_the_deck_melds_do_not_apply(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Vatikan: at most one new meld per turn (R6), which a count of the deck's melds
    # cannot say.
    position = parse_position(
        "vatikan", 2, [["7C", "8C", "9C"]], ["10C", "5H", "6H", "7H"], Turn(has_opened=True)
    )
    assert not deck_melds.applies(position)
    monkeypatch.setattr(deck_melds, "build", _never)
    result = solve_move(position)
    assert result.optimal and result.moves


def _fresh_model(position: Position) -> str:
    """The model ``position`` writes into a new copy of the deck's model, as text."""
    deck_melds._FREE.clear()
    return _written_model(position)


def _written_model(position: Position) -> str:
    choice = deck_melds.build(position, deck_melds.Measure.CARDS)
    assert choice is not None
    written = str(choice.model.proto)
    choice.release()
    return written


_BIG = ["4C 5C 6C 7C 8C 9C", "KC KD KH", "AS 2S 3S", "7H 8H 9H", "10D JD QD KD"]


def test_positions_in_turn_write_what_each_writes_alone() -> None:
    # A copy of the deck's model keeps the last position's numbers and writes only
    # what differs: a table of many melds, then one of few sharing cards, then again (R6:
    # each kept meld holds its own cards, whatever the last table's melds held).
    big = rummikub(_BIG, "10C 6H 4S JK")
    small = rummikub(["7C 8C 9C"], "10C 6C 5H 6H 7H JK")
    alone = {id(p): _fresh_model(p) for p in (big, small)}
    for position in (big, small, big, small, small):
        assert _written_model(position) == alone[id(position)]


def test_a_copy_is_one_solves_until_given_back() -> None:
    position = rummikub(["7C 8C 9C"], "10C 6C 5H 6H 7H")
    first = deck_melds.build(position, deck_melds.Measure.CARDS)
    second = deck_melds.build(position, deck_melds.Measure.CARDS)
    assert first is not None and second is not None
    assert first.model is not second.model  # both held: two copies
    second.release()
    third = deck_melds.build(position, deck_melds.Measure.CARDS)
    assert third is not None and third.model is second.model  # the one given back last
    first.release()
    third.release()


def test_solves_at_once_answer_as_one_at_a_time() -> None:
    from concurrent.futures import ThreadPoolExecutor

    positions = [p for p in _positions() + _table_joker_positions() if deck_melds.applies(p)]
    alone = [_answer(solve_move(p, Objective.MOST_CARDS), Objective.MOST_CARDS) for p in positions]
    with ThreadPoolExecutor(4) as pool:
        for _ in range(2):
            at_once = pool.map(lambda p: solve_move(p, Objective.MOST_CARDS), positions)
            assert [_answer(r, Objective.MOST_CARDS) for r in at_once] == alone


def test_a_write_stopped_part_way_is_written_again_in_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = rummikub(_BIG, "8C KS 2H")
    second = rummikub(["7C 8C 9C"], "10C 6C 5H 6H 7H")
    expected = _fresh_model(second)
    _written_model(first)
    hold = deck_melds._Scratch._hold

    def broken(self: Any, card: Any, holders: Any, was: Any) -> None:
        hold(self, card, holders, was)
        raise RuntimeError("stopped part-way")

    monkeypatch.setattr(deck_melds._Scratch, "_hold", broken)
    with pytest.raises(RuntimeError):
        deck_melds.build(second, deck_melds.Measure.CARDS)
    monkeypatch.setattr(deck_melds._Scratch, "_hold", hold)
    assert _written_model(second) == expected


def test_new_melds_are_the_objects_a_request_parse_gives() -> None:
    # The re-check and the answer's encoding find a meld they met before by its object.
    from solver.rummy.position import interned_meld

    position = rummikub(["7C 8C 9C"], "10C JC 5H 6H 7H JK")
    choice = deck_melds.build(position, deck_melds.Measure.CARDS)
    assert choice is not None
    solver = Budget(5000).solver(lean=True)
    assert solver.solve(choice.model) == 4  # OPTIMAL
    move = deck_melds.read(position, choice, list(solver.response_proto.solution))
    assert move is not None and any(tc.card == JOKER_CARD for meld in move.table for tc in meld)
    for meld in move.table:
        assert meld is interned_meld(tuple(tc.code for tc in meld))


def test_several_moves_come_from_the_turn_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deck_melds, "build", _never)
    result = solve_move(rummikub(["7C 8C 9C"], "10C 6C 5H 6H 7H"), max_moves=3)
    assert len(result.moves) == 3 and result.optimal


def test_an_unproved_choice_leaves_the_answer_to_the_turn_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[bool] = []
    build = deck_melds.build

    def counted(position: Position, measure: deck_melds.Measure) -> deck_melds.MeldChoice | None:
        built.append(True)
        return build(position, measure)

    monkeypatch.setattr(deck_melds, "build", counted)
    monkeypatch.setattr(tries, "WEIGHTED_DTIME", 1e-9)  # no solve proves anything in it
    result = solve_move(rummikub(["7C 8C 9C", "KC KD KH"], "10C JC 6C KS JK"))
    assert built == [True]
    assert result.optimal and result.moves[0].cards_played == 5
    assert result.stats.solves > 1


def _never(*args: object) -> None:
    raise AssertionError("the deck's melds were not to be used here")


def _request(
    table: list[str],
    hand: list[str],
    opened: bool = True,
    objective: rummy_pb2.Objective.ValueType = rummy_pb2.OBJECTIVE_MOST_CARDS,
) -> rummy_pb2.SolveMoveRequest:
    """A Rummikub SolveMove request of two players, each meld written as one string."""
    return rummy_pb2.SolveMoveRequest(
        position=rummy_pb2.RummyPosition(
            ruleset="rummikub",
            players=2,
            table=[rummy_pb2.Meld(cards=meld.split()) for meld in table],
            hand=hand,
            turn=rummy_pb2.Turn(has_opened=opened),
        ),
        objective=objective,
    )


def test_solve_move_through_grpc_with_two_rack_jokers(rummy_stub: Any) -> None:
    request = _request(["4S 5S 6S 7S"], ["JK", "JK", "9D", "KC"])
    answer = rummy_stub.SolveMove(request, timeout=30)
    assert answer.optimal and answer.stats.status == "OPTIMAL"
    best = answer.moves[0]
    # Both jokers and one natural card: three cards, the table's run untouched.
    assert sorted(best.played) == ["JK", "JK", "KC"] or sorted(best.played) == ["9D", "JK", "JK"]
    assert best.melds_changed == 0
    assert ["4S", "5S", "6S", "7S"] in [list(m.cards) for m in best.move.table]


def test_r1_a_third_rack_joker_is_invalid_argument_through_grpc(rummy_stub: Any) -> None:
    """R1: the Rummikub deck has two jokers, so a rack of three is a malformed request,
    refused before any model is chosen (the deck's melds hold at most two rack jokers)."""
    request = _request(
        ["4S 5S 6S"], ["JK", "JK", "JK", "9D"], objective=rummy_pb2.OBJECTIVE_UNSPECIFIED
    )
    error = error_of(rummy_stub.SolveMove, request, timeout=30)
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert any(field.startswith("position.hand") for field in field_violations(error))


def _random_rummikub(
    rng: random.Random, size: str, table_jokers: int, hand_jokers: int, **more: Any
) -> Position:
    """A random Rummikub position of the bench's table and hand sizes."""
    spec = random_position(
        rng,
        "rummikub",
        table_size=SIZES[size],
        hand_size=HAND_SIZES["rummikub"],
        table_jokers=table_jokers,
        hand_jokers=hand_jokers,
        **more,
    )
    return spec.position()


def _table_joker_positions() -> list[Position]:
    rng = random.Random("deck-melds/table-jokers")
    positions = []
    for size in ("small", "mid", "large") * 6:
        table_jokers = rng.choice((1, 2))
        hand_jokers = rng.choice((0, 1)) if table_jokers == 1 else 0
        position = _random_rummikub(rng, size, table_jokers, hand_jokers)
        if position.table_cards()[JOKER_CARD]:
            positions.append(position)
    return positions


@pytest.mark.parametrize("objective", OBJECTIVES, ids=lambda o: o.name)
def test_table_jokers_the_same_best_value_as_the_turn_model(objective: Objective) -> None:
    positions = _table_joker_positions()
    assert all(deck_melds.applies(p) for p in positions)
    assert {p.table_cards()[JOKER_CARD] for p in positions} == {1, 2}
    for position in positions:
        ours = _as_good_as_the_turn_model(position, objective)
        for solved in ours.moves:
            assert validate_move(position, solved.move).legal


def _as_good_as_the_turn_model(position: Position, objective: Objective) -> SolveResult:
    """The deck's melds' answer, checked against the turn model's: the same best value and
    proof, and as few melds changed (fewer only where the turn model did not prove its own)."""
    ours = _solve(position, objective, melds=True)
    theirs = _solve(position, objective, melds=False)
    assert _answer(ours, objective)[:4] == _answer(theirs, objective)[:4], position
    if ours.moves:
        changed, their_changed = ours.moves[0].melds_changed, theirs.moves[0].melds_changed
        assert changed <= their_changed, position
        assert changed == their_changed or not theirs.stats.tie_break_proved, position
    return ours


def test_r5_seed_a_five_alone_cannot_take_the_jokers_place() -> None:
    # SPEC R5: "with 7-8-Jk(9) on the table, a 5 alone cannot make 5-Jk(6)-7-8".
    position = rummikub(["7C 8C JK=9C"], "5C")
    assert deck_melds.applies(position)
    result = solve_move(position)
    assert result.optimal and result.moves == ()


def test_r5_seed_a_five_and_a_nine_release_the_joker() -> None:
    # SPEC R5: "a 5 and a 9 make 5-Jk(6)-7-8-9".
    position = rummikub(["7C 8C JK=9C"], "5C 9C")
    result = solve_move(position)
    best = result.moves[0]
    assert result.optimal and best.cards_played == 2
    assert [[tc.code for tc in meld] for meld in best.move.table] == [
        ["5C", "JK=6C", "7C", "8C", "9C"]
    ]


@pytest.mark.parametrize(
    ("table", "hand", "kept"),
    [
        # 7C takes the run's joker's place (R5: released), which then joins 3D 4D.
        (["5C 6C JK=7C", "10H JH QH"], "7C 3D 4D", "5C 6C 7C"),
        # 8C takes the group's joker's place; the joker, a 7 now, joins 5D 6D.
        (["8H 8S JK=8", "10H JH QH"], "8C 5D 6D", "8H 8S 8C"),
    ],
    ids=["run", "group"],
)
def test_r5_a_release_is_answered_on_the_deck_melds(
    table: list[str], hand: str, kept: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    position = rummikub(table, hand)
    monkeypatch.setattr(search, "_turn_model", _never)  # no fall-back: the deck's melds
    result = solve_move(position)
    best = result.moves[0]
    assert result.optimal and best.cards_played == 3  # none without the release
    assert validate_move(position, best.move).legal
    melds = [sorted(tc.code for tc in meld) for meld in best.move.table]
    assert sorted(kept.split()) in melds, melds
    assert any("JK=" in code and code.endswith("D") for meld in melds for code in meld), melds


def test_r5_an_unreleased_table_joker_moves_keeping_its_value() -> None:
    # 9C takes the run's end; the joker (8C) keeps its value in the group of 8s.
    position = rummikub(["5C 6C 7C JK=8C", "8D 8H 8S"], "9C")
    result = solve_move(position, Objective.MOST_CARDS)
    best = result.moves[0]
    assert result.optimal and best.cards_played == 1
    assert validate_move(position, best.move).legal


def test_r5_a_table_joker_in_a_kept_meld_stays_and_counts_no_change() -> None:
    position = rummikub(["5C 6C JK=7C", "KD KH KS JK"], "3D 4D 5D")
    result = solve_move(position)
    best = result.moves[0]
    assert result.optimal and best.cards_played == 3 and best.melds_changed == 0
    assert [tc.code for tc in best.move.table[0]] == ["5C", "6C", "JK=7C"]


def test_a_table_joker_move_the_referee_refuses_is_left_to_the_turn_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The model lets the group's joker (a 7) move once a natural 7 is played, wherever that
    # 7 goes; R5 releases it only by a 7 in its place, in a meld holding the 7C it stood
    # with. So the model's best (three cards) is refused and the turn model answers.
    position = rummikub(["7C JK=7 JK=7"], "7D 7S 6C")
    refused: list[bool] = []
    check = search.validate_move

    def spied(position: Position, move: Any, **kwargs: Any) -> Any:
        verdict = check(position, move, **kwargs)
        refused.append(not verdict.legal)
        return verdict

    monkeypatch.setattr(search, "validate_move", spied)
    result = solve_move(position)
    theirs = _solve(position, Objective.MOST_CARDS, melds=False)
    assert refused[0]
    assert result.optimal and result.moves[0].cards_played == theirs.moves[0].cards_played
    assert validate_move(position, result.moves[0].move).legal


def test_solve_move_through_grpc_with_a_table_joker(rummy_stub: Any) -> None:
    request = _request(["7C 8C JK=9C"], ["5C", "9C"])
    answer = rummy_stub.SolveMove(request, timeout=30)
    assert answer.optimal and answer.stats.status == "OPTIMAL"
    (best,) = answer.moves
    assert [list(m.cards) for m in best.move.table] == [["5C", "JK=6C", "7C", "8C", "9C"]]


def _opening_positions() -> list[Position]:
    rng = random.Random("deck-melds/opening")
    positions = []
    for size in ("small", "mid", "large") * 5:
        table_jokers = rng.choice((0, 1, 2))
        hand_jokers = rng.choice((0, 1)) if table_jokers < 2 else 0
        hand_melds = rng.choice((0, 1, 2))
        turn = Turn(has_opened=False)
        positions.append(
            _random_rummikub(rng, size, table_jokers, hand_jokers, hand_melds=hand_melds, turn=turn)
        )
    return positions


@pytest.mark.parametrize("objective", OBJECTIVES, ids=lambda o: o.name)
def test_opening_the_same_answers_as_the_turn_model(objective: Objective) -> None:
    positions = _opening_positions()
    assert all(deck_melds.applies(p) and not p.turn.has_opened for p in positions)
    answered = 0
    for position in positions:
        ours = _solve(position, objective, melds=True)
        theirs = _solve(position, objective, melds=False)
        assert _answer(ours, objective) == _answer(theirs, objective), position
        answered += bool(ours.moves)
    assert 0 < answered < len(positions)  # openings found and openings out of reach


@pytest.mark.parametrize(
    ("hand", "played"),
    [
        ("10H JH QH 10C", 3),  # 33 points from the rack; 10C may not join the table's run yet
        ("2H 3H 4H 10C", 0),  # 9 points: no opening
        ("JK QH KH", 3),  # the joker counts as the JH it stands for: 36
        ("JK 2H 3H", 0),  # the joker as 4H or AH: under 30
    ],
)
def test_r8_before_the_opening_new_melds_from_the_rack_worth_30(
    hand: str, played: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    position = rummikub(["7C 8C 9C"], hand, opened=False)
    monkeypatch.setattr(search, "_turn_model", _never)  # answered on the deck's melds
    result = solve_move(position)
    assert result.optimal
    assert (result.moves[0].cards_played if result.moves else 0) == played
    if played:
        best = result.moves[0]
        assert best.melds_changed == 0 and validate_move(position, best.move).legal
        assert [tc.code for tc in best.move.table[0]] == ["7C", "8C", "9C"]


def test_solve_move_through_grpc_before_the_opening(rummy_stub: Any) -> None:
    request = _request(["7C 8C 9C"], ["10H", "JH", "QH", "10C"], opened=False)
    answer = rummy_stub.SolveMove(request, timeout=30)
    assert answer.optimal and answer.stats.status == "OPTIMAL"
    (best,) = answer.moves
    # R8: 33 points from the rack; 10C may not join the table's run before the opening.
    assert sorted(best.played) == ["10H", "JH", "QH"] and best.melds_changed == 0
    assert ["7C", "8C", "9C"] in [list(m.cards) for m in best.move.table]


def test_r5_a_kept_meld_may_hold_another_table_joker_of_the_same_value() -> None:
    # The run's joker (8C) leaves for the group's place of its 8, keeping its value; the
    # group's own joker (an 8) goes with 6S 7S. The group shows the same cards as before, so
    # it is kept (the tie-break counts melds by their cards): the model must hold that move
    # with the group's keep flag set, whichever joker sits there.
    position = rummikub(["JK=8C 9C 10C JC", "8D 8H JK=8"], "6S 7S")
    after = [["9C", "10C", "JC"], ["8D", "8H", "JK=8"], ["6S", "7S", "JK=8S"]]
    assert validate_move(position, parse_move(position, after)).legal
    choice = deck_melds.build(position, deck_melds.Measure.CARDS)
    assert choice is not None
    model = choice.model.clone()
    choice.release()
    variables = model.proto.variables
    for index in (choice.keeps[1], *(choice.deck.hand_vars[c] for c in position.hand)):
        variables[index].domain[0] = 1
    assert Budget(5000).solver(lean=True).solve(model) == 4  # OPTIMAL: the move is held


def _joker_twins(seed: int) -> Position | None:
    """A run holding a joker at a card, a group of that card's rank holding the other joker
    (each joker fits the other's place, so a meld may be kept by its cards with either in
    it), maybe a run beside, and 1-5 rack cards around that rank; None where it is no valid
    position."""
    rng = random.Random(f"joker-twins/{seed}")
    suits = "CDHS"
    names = {1: "A", 11: "J", 12: "Q", 13: "K"}
    rank, suit = rng.randint(3, 11), rng.choice(suits)
    start = rng.randint(max(1, rank - 3), rank)
    length = rng.randint(max(3, rank - start + 1), min(5, 14 - start))
    run = [
        f"JK={names.get(k, k)}{suit}" if k == rank else f"{names.get(k, k)}{suit}"
        for k in range(start, start + length)
    ]
    others = rng.sample([s for s in suits if s != suit], 3)
    group = [f"{names.get(rank, rank)}{s}" for s in others[: rng.choice((2, 3))]]
    table = [run, [*group, f"JK={names.get(rank, rank)}"]]
    if rng.random() < 0.5:
        low = max(1, rank - 2)
        table.append([f"{names.get(k, k)}{others[0]}" for k in range(low, low + 3)])
    near = range(max(1, rank - 3), min(13, rank + 3) + 1)
    pool = [f"{names.get(k, k)}{s}" for k in near for s in suits]
    hand = rng.sample(pool, rng.randint(1, 5))
    try:
        position = parse_position("rummikub", 2, table, hand, Turn(has_opened=rng.random() < 0.9))
    except InvalidRequest:
        return None
    return position if deck_melds.applies(position) and play_allowed(position) else None


# Seeds on which the place rows' first form (a joker only in its own kept meld) answered
# "2 melds changed, proved" where 1 is legal; then 300 more.
JOKER_TWIN_SEEDS = (379, 1140, 1195, 1939, 1950, 1968, 2439, 2677, 2918, *range(5000, 5300))


def test_joker_twins_the_same_answers_as_the_turn_model() -> None:
    compared = 0
    for seed in JOKER_TWIN_SEEDS:
        position = _joker_twins(seed)
        if position is None:
            continue
        _as_good_as_the_turn_model(position, Objective.MOST_CARDS)
        compared += 1
    assert compared > 200


def test_r1_a_rack_joker_beside_two_table_jokers_is_invalid_argument_through_grpc(
    rummy_stub: Any,
) -> None:
    # R1: the deck has two jokers, wherever they lie; a third is a malformed request, refused
    # before any model is chosen (the deck's melds hold at most two, rack and table together).
    request = _request(["7C JK 9C", "8H 8S JK"], ["JK", "5D"])
    error = error_of(rummy_stub.SolveMove, request, timeout=30)
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert any(field.startswith("position.hand") for field in field_violations(error))
