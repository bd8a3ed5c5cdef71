"""The meld memos keep what recurs across calls and no more: the parse's interned melds for
long, the tuples a call makes (a solve's rebuilt table) only for a while (SPEC §5: a
server's memory stays flat under load)."""

from __future__ import annotations

from solver.core.cards import parse_table_card
from solver.core.rulesets import RULESETS
from solver.rummy import melds
from solver.rummy.melds import classify, memo_by_meld_object, ruleset_key
from solver.rummy.position import parse_position


def _counting_memo() -> tuple[list[int], object]:
    computed: list[int] = []

    def compute(key: object, meld: tuple[object, ...]) -> int:
        del key
        computed.append(1)
        return len(meld)

    return computed, memo_by_meld_object(compute)


def test_a_parsed_meld_is_remembered_across_calls() -> None:
    position = parse_position("carrossel", 3, [["4D", "5C", "6H"]], ["7C"])
    meld = position.table[0]
    assert id(meld) in melds.INTERNED
    computed, lookup = _counting_memo()
    key = ruleset_key(RULESETS["carrossel"])
    for _ in range(3):
        assert lookup(key, meld) == 3  # type: ignore[operator]
    assert len(computed) == 1


def test_tuples_made_by_calls_do_not_pile_up() -> None:
    """Fresh tuples (as a solve's rebuild makes) are remembered while they recur, in a memo
    of at most ``PASSING_CACHE_SIZE``: they do not fill the long one."""
    computed, lookup = _counting_memo()
    key = ruleset_key(RULESETS["carrossel"])
    cards = [parse_table_card(code) for code in ("4D", "5C", "6H")]
    held = []
    for _ in range(melds.PASSING_CACHE_SIZE * 3):
        fresh = tuple(cards)  # a new object each time, as a rebuilt meld
        held.append(fresh)
        assert lookup(key, fresh) == 3  # type: ignore[operator]
        assert lookup(key, fresh) == 3  # type: ignore[operator]  # again within its call
    assert len(computed) == melds.PASSING_CACHE_SIZE * 3
    closure = [cell.cell_contents for cell in lookup.__closure__ or ()]  # type: ignore[attr-defined]
    memos = [value for value in closure if isinstance(value, dict)]
    assert memos and all(len(memo) <= melds.PASSING_CACHE_SIZE for memo in memos)


def test_classify_answers_the_same_for_an_interned_and_a_fresh_meld() -> None:
    position = parse_position("carrossel", 3, [["4D", "5C", "6H"]], ["7C"])
    interned = position.table[0]
    fresh = tuple(parse_table_card(code) for code in ("4D", "5C", "6H"))
    ruleset = RULESETS["carrossel"]
    assert classify(ruleset, interned) == classify(ruleset, fresh)
