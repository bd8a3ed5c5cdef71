"""The fishing listings enumerate sums depth first (F3, F5, F7), not over all 2^n subsets:
the same sets, groupings and order as the former every-mask listing, kept here as the
reference; J, Q, K (value 0) are never in a sum (F2); a cancelled caller stops them."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.fishing.convert import position_from_proto
from solver.core import cancel
from solver.fishing.endgame import check_complete, solve_deal_end
from solver.fishing.plays import (
    Action,
    ListingStopped,
    build_sets,
    capture_sets,
    first_capture_group,
    first_non_trail,
    legal_plays,
    sum_masks,
    time_box,
)
from solver.fishing.position import RawPosition, parse_position
from solver.fishing.referee import judge
from tests.fishing_table import big_table_raw, deal_end_proto

# --- the former listing: every mask's sum (2^n), the reference -----------------------------


def _every_mask_sum(values: tuple[int, ...]) -> list[int]:
    sums = [0] * (1 << len(values))
    for mask in range(1, len(sums)):
        low = mask & -mask
        sums[mask] = sums[mask ^ low] + values[low.bit_length() - 1]
    return sums


def _members(mask: int) -> tuple[int, ...]:
    return tuple(index for index in range(mask.bit_length()) if mask >> index & 1)


def reference_groups(values: tuple[int, ...], target: int) -> list[int]:
    sums = _every_mask_sum(values)
    zero = sum(1 << i for i, value in enumerate(values) if value == 0)
    return [m for m in range(1, len(sums)) if sums[m] == target and not m & zero]


def reference_capture_sets(
    values: tuple[int, ...], target: int
) -> tuple[tuple[tuple[int, ...], ...], ...]:
    found: dict[int, tuple[int, ...]] = {0: ()}
    for group in reference_groups(values, target):
        for taken, parts in list(found.items()):
            if not taken & group:
                found.setdefault(taken | group, (*parts, group))
    return tuple(
        tuple(sorted((_members(g) for g in parts), key=lambda g: g[0]))
        for taken, parts in sorted(found.items())
        if taken
    )


def reference_build_sets(values: tuple[int, ...], target: int) -> tuple[tuple[int, ...], ...]:
    if target <= 0:
        return ()
    return tuple(_members(m) for m in reference_groups(values, target))


# Table values as the listings see them: 0 for a J, Q or K, 1-10 and the jokers' 11/15/20.
table_values = st.lists(
    st.sampled_from((0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 20)), max_size=11
).map(tuple)
targets = st.integers(min_value=-2, max_value=21)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(table_values, targets)
def test_f3_capture_sets_match_every_mask_listing(values: tuple[int, ...], target: int) -> None:
    assert capture_sets.__wrapped__(values, target) == reference_capture_sets(values, target)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(table_values, targets)
def test_f5_build_sets_match_every_mask_listing(values: tuple[int, ...], target: int) -> None:
    assert build_sets.__wrapped__(values, target) == reference_build_sets(values, target)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(table_values, targets)
def test_f7_first_capture_is_the_listings_first(values: tuple[int, ...], target: int) -> None:
    listed = reference_capture_sets(values, target)
    expected = listed[0] if listed else None
    group = first_capture_group(values, target)
    assert (None if group is None else (group,)) == expected


@settings(max_examples=300, deadline=None, derandomize=True)
@given(table_values, targets)
def test_f2_sum_masks_increase_and_skip_court_cards(values: tuple[int, ...], target: int) -> None:
    masks = list(sum_masks(values, target))
    assert masks == sorted(set(masks))
    for mask in masks:
        assert all(values[index] > 0 for index in _members(mask))
        assert sum(values[index] for index in _members(mask)) == target


def test_f7_first_non_trail_is_legal_plays_first_per_card() -> None:
    position = parse_position(RawPosition("carosello", [], ["5C"]))
    assert first_non_trail(position.hand, position.table, 0, position.rules) is None
    raw = big_table_raw(12, hand=("KS", "9S", "JK11"))
    position = parse_position(raw)
    play = first_non_trail(position.hand, position.table, position.player, position.rules)
    listed = legal_plays(position.hand, position.table, position.player, position.rules)
    assert play is not None and play.action is Action.CAPTURE
    assert play == next(p for p in listed if p.card == play.card)


def test_f3_forty_items_list_their_sums_without_2_to_the_n() -> None:
    # 39 numbered cards: 2^39 masks would be 4 TB; the sums to 9 are a few hundred.
    values = tuple(item.value for item in parse_position(big_table_raw(39)).table)
    sets = build_sets.__wrapped__(values, 9)
    assert sets and all(sum(values[i] for i in items) == 9 for items in sets)
    assert first_capture_group(values, 20) is not None


def test_cancelled_caller_stops_the_capture_listing() -> None:
    # 30 low cards and a 20 to take: the taken sets number far more than a call could list.
    values = tuple(item.value for item in parse_position(big_table_raw(30)).table)
    token = cancel.CancelToken()
    token.cancel()
    with cancel.scope(token), pytest.raises(cancel.Cancelled):
        capture_sets.__wrapped__(values, 20)
    with cancel.scope(token), pytest.raises(cancel.Cancelled):
        list(sum_masks(values, 20))


def test_f8_deal_end_on_a_big_table_answers_part_one_not_optimal() -> None:
    """JK20 on 39 low cards can take millions of sets: the deal-end search cannot list its
    root plays in any time limit, so it answers with SolvePlay's plays, not optimal."""
    position = position_from_proto(deal_end_proto(39))
    check_complete(position)
    result = solve_deal_end(position, 2, 300)
    assert not result.optimal and not result.plays
    assert result.unsolved and all(judge(position, s.play).legal for s in result.unsolved)


def test_f3_a_capture_listing_past_its_bound_or_time_box_stops() -> None:
    values = tuple(item.value for item in parse_position(big_table_raw(30)).table)
    with pytest.raises(ListingStopped):
        capture_sets.__wrapped__(values, 10)  # more than MAX_CAPTURE_SETS sets
    with time_box(time.monotonic() - 1.0), pytest.raises(ListingStopped):
        list(sum_masks(values, 20))
