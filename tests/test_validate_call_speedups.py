"""The cheap paths of a ValidateMove call (issue #51) decide as the plain ones did.

SPEC §5 bounds every card code's length before the request is parsed: the size shortcut of
``service.bounds`` (a meld's codes told from the meld's size) must refuse exactly the melds
the per-code check refuses, whatever the codes' lengths and characters. The parse reads a
request's codes in one go and falls back to naming each bad one; the meld caches key on the
ruleset object, so a variant sharing an id keeps its own rules. The answer's table is
written from each meld's kept encoding: the bytes of a meld added at a time.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter
from typing import Any

import pytest

from carrossel.v1 import rummy_pb2
from service import bounds, limits
from service.rummy import convert
from solver.core.cards import TableCard, parse_table_card
from solver.core.errors import InvalidRequest
from solver.core.rulesets import get_ruleset
from solver.rummy.melds import classify
from solver.rummy.position import Turn, parse_move, parse_position
from solver.rummy.table_change import meld_key

LONGEST = limits.MAX_CODE_LENGTH
ALPHABET = "AKQJT0123456789HSDC=♠♥♦♣ſ"  # multi-byte characters too: bytes ≠ characters


def _request(melds: list[list[str]]) -> rummy_pb2.ValidateMoveRequest:
    return rummy_pb2.ValidateMoveRequest(
        position=rummy_pb2.RummyPosition(ruleset="carrossel", players=3),
        move=rummy_pb2.RummyMove(table=[rummy_pb2.Meld(cards=meld) for meld in melds]),
    )


def _refused_paths(request: rummy_pb2.ValidateMoveRequest) -> list[str]:
    try:
        bounds.check(request)
    except InvalidRequest as error:
        return [problem.field for problem in error.problems]
    return []


@pytest.mark.parametrize("seed", range(5))
def test_code_lengths_are_refused_exactly_where_a_code_is_too_long(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(300):
        melds = [
            [
                "".join(rng.choices(ALPHABET, k=rng.choice((1, 2, 3, 5, 8, LONGEST, LONGEST + 1))))
                for _ in range(rng.randint(0, 6))
            ]
            for _ in range(rng.randint(1, 4))
        ]
        too_long = [
            f"move.table[{m}].cards[{c}]"
            for m, meld in enumerate(melds)
            for c, code in enumerate(meld)
            if len(code) > LONGEST
        ]
        assert _refused_paths(_request(melds)) == too_long[: bounds.MAX_PROBLEMS]


def test_a_meld_of_short_codes_whose_sum_is_long_is_within_bounds() -> None:
    meld = ["10H", "JK=10S", "10D", "10C", "JK=10"]  # 21 characters, none beyond the bound
    assert _refused_paths(_request([meld])) == []


def test_one_code_past_the_bound_in_a_short_meld_is_refused() -> None:
    assert _refused_paths(_request([["7H", "7" * (LONGEST + 1)]])) == ["move.table[0].cards[1]"]


def test_a_meld_of_too_many_codes_is_refused_by_its_count() -> None:
    # The melds' fast path (bounds._lone_strings) counts a meld's codes before its size.
    meld = ["7H"] * (bounds.MAX_REPEATED + 1)
    assert _refused_paths(_request([["8H", "9H", "10H"], meld])) == ["move"]
    assert _refused_paths(_request([["8H"], ["7H"] * bounds.MAX_REPEATED])) == []


# --- parse and meld caches (solver.rummy.position, melds, table_change) -------------------


def _carrossel_with(**meld_rules: Any) -> object:
    carrossel = get_ruleset("carrossel")
    assert carrossel is not None and carrossel.meld_rules is not None
    return dataclasses.replace(
        carrossel, meld_rules=dataclasses.replace(carrossel.meld_rules, **meld_rules)
    )


def test_a_ruleset_of_the_same_id_with_other_rules_is_classified_by_its_own_rules() -> None:
    """R3: the caches key on the ruleset itself, not on its id (a variant shares the id)."""
    carrossel = get_ruleset("carrossel")
    assert carrossel is not None
    smaller = _carrossel_with(group_max=3)
    four = tuple(parse_table_card(code) for code in ("7H", "7S", "7D", "7C"))
    for first, second in ((carrossel, smaller), (smaller, carrossel)):
        verdicts = [classify(first, four).ok, classify(second, four).ok]  # type: ignore[arg-type]
        assert verdicts == [first is carrossel, second is carrossel]


def test_meld_keys_depend_on_which_cards_are_wild() -> None:
    """R3/R6: in mexe-mexe a 2 may be wild, so 2H 7H 7S reads as a group of 7s (sorted key)."""
    carrossel, mexe = get_ruleset("carrossel"), get_ruleset("mexe-mexe")
    assert carrossel is not None and mexe is not None
    meld = tuple(parse_table_card(code) for code in ("7S", "2H", "7H"))
    assert meld_key(mexe, meld) == ("2H", "7H", "7S")
    assert meld_key(carrossel, meld) == ("7S", "2H", "7H")


def test_every_unreadable_code_is_named_at_its_own_path() -> None:
    """R1: the fast reading of a position's and a move's codes falls back to naming each."""
    with pytest.raises(InvalidRequest) as caught:
        parse_position("carrossel", 3, [["7H", "8H", "9X"], ["ZZ", "5C", "5D"]], ["AS", "1Q"])
    fields = [problem.field for problem in caught.value.problems]
    assert fields == ["table[0].cards[2]", "table[1].cards[0]", "hand[1]"]
    position = parse_position("carrossel", 3, [["7H", "8H", "9H"]], ["AS"], Turn(cards_drawn=1))
    with pytest.raises(InvalidRequest) as caught:
        parse_move(position, [["7H", "8H", "9H", "?"]], ["8Q"])
    assert [p.field for p in caught.value.problems] == ["table[0].cards[3]", "to_hand[0]"]


def test_a_move_repeating_its_positions_melds_shares_their_objects_and_verdicts() -> None:
    """R2/R6: parsed melds are interned by text; the memo by identity answers as by value."""
    position = parse_position(
        "carrossel", 3, [["7H", "8H", "9H"], ["5C", "5D", "5S"]], ["10H"], Turn(cards_drawn=1)
    )
    move = parse_move(position, [["7H", "8H", "9H", "10H"], ["5C", "5D", "5S"]])
    assert move.table[1] is position.table[1]
    for meld in (*position.table, *move.table):
        copy = tuple(parse_table_card(tc.code) for tc in meld)
        assert copy is not meld
        for ruleset in (position.ruleset, _carrossel_with(group_max=3)):
            assert classify(ruleset, meld) == classify(ruleset, list(copy))  # type: ignore[arg-type]
            assert meld_key(ruleset, meld) == meld_key(ruleset, list(copy))  # type: ignore[arg-type]


# --- the answer's table from each meld's kept encoding (service.rummy.convert.add_table) ---


def _table_added_meld_by_meld(table: list[tuple[TableCard, ...]]) -> bytes:
    response = rummy_pb2.ValidateMoveResponse(legal=True, hand_points_after=7)
    for meld in table:
        response.table.add().cards.extend(tc.code for tc in meld)
    return response.SerializeToString()


def _table_added(table: list[tuple[TableCard, ...]]) -> bytes:
    response = rummy_pb2.ValidateMoveResponse(legal=True, hand_points_after=7)
    convert.add_table(response, "table", table)
    return response.SerializeToString()


def test_the_tables_kept_encodings_give_the_bytes_of_a_meld_added_at_a_time() -> None:
    melds = [tuple(map(parse_table_card, codes)) for codes in (["7H", "8H", "9H"], ["JK=5S"])]
    # An empty meld, the same meld object twice (its kept encoding read back), and one
    # longer than 127 bytes (a length of two varint bytes; no real meld is that long).
    long_meld = tuple(parse_table_card(code) for code in ["10D"] * 40)
    table = [melds[0], (), melds[1], melds[0], long_meld]
    for _ in range(2):  # the second pass finds every encoding kept
        assert _table_added(table) == _table_added_meld_by_meld(table)
    assert _table_added([]) == _table_added_meld_by_meld([])


def test_a_search_answers_rebuilt_melds_are_encoded_but_not_kept() -> None:
    # A search's answer (SolveMove) keeps the encoding of interned melds only: the melds it
    # rebuilt are new objects each call, and keeping them would grow the server's memory
    # call after call until the memo's bound (#51: flat memory under load).
    from solver.rummy.melds import INTERNED
    from solver.rummy.position import Move, interned_meld
    from solver.rummy.table_change import _AFTER_KEYS, changed_indices

    kept = interned_meld(("4C", "5C", "6C"))
    rebuilt = tuple(map(parse_table_card, ["4C", "5C", "6C"]))
    assert INTERNED.get(id(kept)) is kept and INTERNED.get(id(rebuilt)) is not rebuilt
    message = convert.move_to_proto(Move((kept, rebuilt)))
    assert [list(m.cards) for m in message.table] == [["4C", "5C", "6C"]] * 2
    encoded = convert._ENCODED[convert._field_tag(message, "table")]
    assert encoded[id(kept)][0] is kept and id(rebuilt) not in encoded
    assert id(rebuilt) not in convert._CODES
    position = parse_position("carrossel", 3, [["4C", "5C", "6C"]], ["7C"])
    assert changed_indices(position, (kept, rebuilt)) == ((), (1,))
    assert _AFTER_KEYS[id(kept)][0] is kept and id(rebuilt) not in _AFTER_KEYS


@pytest.mark.parametrize("value", [0, 1, 127, 128, 300, 16_383, 16_384, 2**31])
def test_a_varint_is_protobufs_own(value: int) -> None:
    from google.protobuf.internal.encoder import _VarintBytes  # type: ignore[attr-defined]

    assert convert._varint(value) == _VarintBytes(value)


# --- a request's melds found by their bytes (service.rummy.convert._known_melds) -----------


def _validate_request(
    table: list[list[str]],
    hand: list[str],
    after: list[list[str]],
    to_hand: list[str] | None = None,
) -> rummy_pb2.ValidateMoveRequest:
    return rummy_pb2.ValidateMoveRequest(
        position=rummy_pb2.RummyPosition(
            ruleset="mexe-mexe",
            players=3,
            table=[rummy_pb2.Meld(cards=meld) for meld in table],
            hand=hand,
            turn=rummy_pb2.Turn(cards_drawn=1),
        ),
        move=rummy_pb2.RummyMove(
            table=[rummy_pb2.Meld(cards=meld) for meld in after], to_hand=to_hand or []
        ),
    )


def _parsed(request: rummy_pb2.ValidateMoveRequest) -> convert.RummyCall | list[str]:
    try:
        return convert.validate_move_call(request)
    except InvalidRequest as error:
        return [f"{problem.field}: {problem.description}" for problem in error.problems]


def test_a_request_read_again_by_its_melds_bytes_is_the_same_position_and_move() -> None:
    """R1: the second read of a request finds its melds by their bytes; the position, the
    move and their meld objects are the first read's."""
    request = _validate_request(
        [["7H", "8H", "9H"], ["5C", "5D", "5S"]], ["10H", "2C"], [["7H", "8H", "9H", "10H"]]
    )
    first = _parsed(request)
    assert isinstance(first, convert.RummyCall)
    assert convert._known_melds(request.position.table)[1] is not None  # now found by bytes
    second = _parsed(rummy_pb2.ValidateMoveRequest.FromString(request.SerializeToString()))
    assert second == first
    assert isinstance(second, convert.RummyCall) and second.move and first.move
    for before, again in zip(
        (*first.position.table, *first.move.table),
        (*second.position.table, *second.move.table),
        strict=True,
    ):
        assert before is again


@pytest.mark.parametrize(
    ("table", "hand", "after", "to_hand"),
    [
        ([["7H", "8H", "9H"]], ["10H", "XX"], [["7H", "8H", "9H", "10H"]], []),  # a bad hand
        ([["7H", "8H", "9H"]], ["10H"], [["7H", "8H", "9H", "10H"]], ["QQ"]),  # bad to_hand
        ([["7H", "8H", "9H"]] * 3, ["7H"], [["7H", "8H", "9H"]], []),  # R1: too many copies
        ([["7H", "8H", "9H"]], ["10H"], [["7H", "8H", "9H"]] * 3, []),  # R1, in the move
        ([["7H", "8H", "9H"]] * 61, ["10H"], [["7H", "8H", "9H"]], []),  # too many melds
        ([["7H", "8H", "9H"]], ["10H"] * 1000, [["7H", "8H", "9H"]], []),  # too many codes
    ],
)
def test_a_request_of_known_melds_is_refused_as_on_its_first_read(
    table: list[list[str]], hand: list[str], after: list[list[str]], to_hand: list[str]
) -> None:
    """R1: the melds known by their bytes change nothing a refusal says."""
    known = _validate_request([["7H", "8H", "9H"]], ["10H"], [["7H", "8H", "9H", "10H"]])
    assert isinstance(_parsed(known), convert.RummyCall)  # its melds are known now
    request = _validate_request(table, hand, after, to_hand)
    first, second = _parsed(request), _parsed(request)
    assert isinstance(first, list) and first
    assert second == first


def test_the_melds_by_bytes_are_forgotten_with_the_interned_melds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from solver.rummy import melds, position

    request = _validate_request([["4D", "5D", "6D"]], ["7D"], [["4D", "5D", "6D", "7D"]])
    assert isinstance(_parsed(request), convert.RummyCall)
    assert convert._known_melds(request.position.table)[1] is not None
    monkeypatch.setattr(position, "_MOST_MELDS", 0)  # the next new meld clears them all
    # Codes not read before: spaces around a code are read too, and make a new text.
    padded = (["JC", "QC", "KC".rjust(2 + spaces)] for spaces in itertools.count())
    new_run = next(run for run in padded if tuple(run) not in position._MELDS)
    parse_position("carrossel", 3, [new_run], [])
    monkeypatch.undo()
    assert convert._known_melds(request.position.table)[1] is None
    again = _parsed(request)
    assert isinstance(again, convert.RummyCall)
    assert all(melds.INTERNED.get(id(meld)) is meld for meld in again.position.table)


def test_a_foreign_card_among_the_decks_jokers_is_named_at_its_own_path() -> None:
    """R1: the table's special cards are walked for paths only when one is foreign to the
    deck; a joker (carrossel's) beside it is not named."""
    table = [["JK", "7H", "8H"], ["9S", "BROOM", "9C"]]
    with pytest.raises(InvalidRequest) as caught:
        parse_position("carrossel", 3, table, ["JK", "5C"])
    assert [p.field for p in caught.value.problems] == ["table[1].cards[1]"]
    position = parse_position("carrossel", 3, table[:1], ["5C"])
    with pytest.raises(InvalidRequest) as caught:
        parse_move(position, table, ["BROOM"])
    assert [p.field for p in caught.value.problems] == ["table[1].cards[1]", "to_hand[0]"]


def test_a_known_meld_skips_the_bounds_walk_and_a_long_code_never_does() -> None:
    """SPEC §5: a meld the parse accepted before is within bounds by its bytes; a code the
    parse reads (spaces around it) but longer than a code may be is never remembered, so
    the bounds check refuses it however often it is sent."""
    padded = "7H".rjust(LONGEST + 4)
    request = _validate_request([["7S", "8S", "9S"], [padded, "8H", "9H"]], ["10S"], [])
    convert.validate_move_call(request)  # parsed without the bounds check (in process)
    assert convert._known_melds(request.position.table)[1] is None  # the padded one unknown
    for _ in range(2):
        assert _refused_paths(request) == ["position.table[1].cards[0]"]
    fine = _validate_request([["7S", "8S", "9S"]], ["10S"], [["7S", "8S", "9S", "10S"]])
    bounds.check(fine)
    convert.validate_move_call(fine)
    assert convert._melds_within_bounds(fine.position.table)  # known by its bytes now
    bounds.check(fine)
    convert._READ.clear()


def test_the_parses_table_count_is_a_fresh_copy_and_never_another_tables() -> None:
    """R6 counts the table's cards before and after: the parse's own count is handed out as
    a copy, and a position or move rebuilt with another table counts that table."""
    position = parse_position("carrossel", 3, [["7H", "8H", "9H"], ["5C", "5D", "5S"]], ["10H"])
    move = parse_move(position, [["7H", "8H", "9H", "10H"], ["5C", "5D", "5S"]])
    for parsed in (position, move):
        counted = parsed.table_cards()
        assert counted == Counter(tc.card for meld in parsed.table for tc in meld)
        counted.clear()  # a caller's copy: the next count is whole again
        assert sum(parsed.table_cards().values()) == sum(map(len, parsed.table))
    other = dataclasses.replace(move, table=position.table)
    assert other.table_cards() == position.table_cards()
    assert dataclasses.replace(position, hand=()).table_cards() == position.table_cards()
