"""ValidatePlay's suggestion through gRPC (issue #53, F1-F7): the vectors quoting seeds 003
and 004 answered over the wire, every nearest play legal when validated again, a legal play
and ``suggest = false`` answered as before, and malformed requests still INVALID_ARGUMENT
with a BadRequest naming each field path."""

from __future__ import annotations

import random
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from carrossel.v1 import fishing_pb2
from service.fishing.convert import play_from_proto
from tests.fishing_suggest_differential import as_raw
from tests.fishing_vectors import Case, params, play_proto, position_proto
from tests.reference.fishing_positions import play_sample
from tests.reference.fishing_proposals import mistakes

TIMEOUT = 10


def code_name(code: fishing_pb2.FishingViolationCode.ValueType) -> str:
    return fishing_pb2.FishingViolationCode.Name(code).removeprefix("FISHING_VIOLATION_CODE_")


def ask(
    stub: Any,
    position: fishing_pb2.FishingPosition,
    play: fishing_pb2.FishingPlay,
    suggest: bool = True,
) -> Any:
    request = fishing_pb2.ValidatePlayRequest(position=position, play=play, suggest=suggest)
    return stub.ValidatePlay(request, timeout=TIMEOUT)


def revalidated(stub: Any, position: fishing_pb2.FishingPosition, answer: Any) -> None:
    """The nearest play is legal for the referee, with the effects the answer gave."""
    again = ask(stub, position, answer.nearest_legal.play, suggest=False)
    assert again.legal, again
    assert list(again.captured) == list(answer.nearest_legal.captured)
    assert list(again.table_after) == list(answer.nearest_legal.table_after)
    assert again.deal_points == answer.nearest_legal.deal_points


@pytest.mark.parametrize("case", params("suggest"))
def test_suggestion_vectors_over_grpc(fishing_stub: Any, case: Case) -> None:
    """Each seed sentence's position: the verdict, then the nearest legal play and its keys."""
    position = position_proto(case)
    answer = ask(fishing_stub, position, play_proto(case))
    expect = case["expect"]
    assert not answer.legal
    assert [code_name(v.code) for v in answer.violations] == expect["violations"]
    assert expect["note"] in answer.suggestion_note
    assert answer.suggestion_optimal
    if not expect["play"]:
        assert not answer.HasField("nearest_legal")
        return
    nearest = play_from_proto(answer.nearest_legal.play, len(position.table))
    assert nearest.text == expect["play"]
    assert list(answer.nearest_kept_groups) == expect["kept"]
    assert answer.nearest_same_card is expect["same_card"]
    assert list(answer.nearest_proposed_items) == expect["proposed"]
    assert list(answer.nearest_extra_items) == expect["extra"]
    revalidated(fishing_stub, position, answer)


@pytest.mark.parametrize("case", params("plays"))
def test_legal_plays_and_suggest_false_answer_as_before(fishing_stub: Any, case: Case) -> None:
    """F1-F7's vectors: ``suggest = false`` is the answer without the field; a legal play's
    answer never carries a suggestion, and an illegal one's always says something."""
    position, play = position_proto(case), play_proto(case)
    plain = fishing_stub.ValidatePlay(
        fishing_pb2.ValidatePlayRequest(position=position, play=play), timeout=TIMEOUT
    )
    assert ask(fishing_stub, position, play, suggest=False) == plain
    suggested = ask(fishing_stub, position, play)
    if plain.legal:
        assert suggested == plain
        return
    assert suggested.suggestion_note
    assert list(suggested.violations) == list(plain.violations)
    if suggested.HasField("nearest_legal"):
        revalidated(fishing_stub, position, suggested)


def sample_position(seed: int) -> fishing_pb2.FishingPosition:
    raw = play_sample(seed).raw
    return fishing_pb2.FishingPosition(
        ruleset=raw.ruleset,
        deck_size=raw.deck_size,
        player=raw.player,
        players=raw.players,
        table=[
            fishing_pb2.TableItem(cards=list(i.cards), value=i.value, owner=i.owner)
            for i in raw.table
        ],
        hand=list(raw.hand),
    )


def play_message(
    card: str, kind: str, groups: Any, items: Any, value: int
) -> fishing_pb2.FishingPlay:
    message = fishing_pb2.FishingPlay(card=card)
    if kind == "capture":
        message.capture.groups.extend(fishing_pb2.CaptureGroup(items=list(g)) for g in groups)
    elif kind == "build":
        message.build.items.extend(items)
        message.build.value = value
    elif kind == "trail":
        message.trail.SetInParent()
    else:
        message.broom.SetInParent()
    return message


@pytest.mark.parametrize("seed", range(7000, 7040))
def test_random_mistakes_get_a_legal_repeatable_suggestion(fishing_stub: Any, seed: int) -> None:
    """Players' mistakes over the wire: every nearest play validates, answers repeat."""
    sample = play_sample(seed)
    position = sample_position(seed)
    for _, proposal in mistakes(sample, random.Random(seed))[:3]:
        raw = as_raw(proposal)
        play = play_message(raw.card, raw.action, raw.groups, raw.items, raw.value)
        answer = ask(fishing_stub, position, play)
        if answer.legal:
            assert not answer.HasField("nearest_legal") and not answer.suggestion_note
            continue
        assert answer.suggestion_note
        assert ask(fishing_stub, position, play) == answer
        if answer.HasField("nearest_legal"):
            revalidated(fishing_stub, position, answer)


def _position(**fields: Any) -> fishing_pb2.FishingPosition:
    base: dict[str, Any] = {
        "ruleset": "carosello",
        "deck_size": 56,
        "table": [fishing_pb2.TableItem(cards=["3C"]), fishing_pb2.TableItem(cards=["4D"])],
        "hand": ["7S", "6H"],
    }
    base.update(fields)
    return fishing_pb2.FishingPosition(**base)


def _capture(card: str, *groups: list[int]) -> fishing_pb2.FishingPlay:
    return play_message(card, "capture", groups, (), 0)


MALFORMED: list[tuple[str, fishing_pb2.FishingPosition, fishing_pb2.FishingPlay, list[str]]] = [
    (
        "group-item-off-the-table",
        _position(),
        _capture("7S", [0, 2]),
        ["play.capture.groups[0].items[1]"],
    ),
    ("bad-card-code-played", _position(), _capture("7Z", [0, 1]), ["play.card"]),
    ("no-action", _position(), fishing_pb2.FishingPlay(card="7S"), ["play.action"]),
    (
        "build-item-off-the-table",
        _position(),
        play_message("6H", "build", (), [-1], 7),
        ["play.build.items[0]"],
    ),
    (
        "bad-position-and-bad-play",
        _position(hand=["7S", "7X"]),
        _capture("7S", [9]),
        ["position.hand[1]", "play.capture.groups[0].items[0]"],
    ),
    ("unknown-ruleset", _position(ruleset="scopa"), _capture("7S", [0, 1]), ["position.ruleset"]),
]


@pytest.mark.parametrize(
    ("name", "position", "play", "fields"), [pytest.param(*m, id=m[0]) for m in MALFORMED]
)
def test_malformed_requests_with_suggest_are_invalid_argument(
    fishing_stub: Any, name: str, position: Any, play: Any, fields: list[str]
) -> None:
    """SPEC §5: asking for a suggestion changes nothing for a malformed request."""
    with pytest.raises(grpc.RpcError) as caught:
        ask(fishing_stub, position, play)
    error: Any = caught.value
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT, name
    status = rpc_status.from_call(error)
    assert status is not None
    detail = error_details_pb2.BadRequest()
    assert status.details[0].Unpack(detail)
    assert [v.field for v in detail.field_violations] == fields
    assert all(v.description for v in detail.field_violations)
