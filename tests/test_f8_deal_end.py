"""F8 and Part 2 of issue #49: SolvePlay with HORIZON_DEAL_END, through gRPC.

The seed's advice «proteggere la fine» (make the last capture: the leftovers go to the last
capturer, F8) as a vector; the answer's values against the plain minimax reference; every
play of a principal line legal when replayed; hands that leave a card unseen rejected."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from carrossel.v1 import fishing_pb2
from solver.core.cards import parse_card
from solver.fishing.notation import parse_table_text
from solver.fishing.plays import Action, Play
from solver.fishing.position import RawItem, RawPosition, parse_position
from solver.fishing.referee import judge
from tests.fishing_vectors import Case, params
from tests.reference.fishing_bruteforce import BItem, BPlay
from tests.reference.fishing_minimax import play_values, sample_play_values
from tests.reference.fishing_positions import PRIZE_SUIT, Sample, endgame_sample

TIMEOUT = 20


def case_position(case: Case) -> fishing_pb2.FishingPosition:
    player = case["player"]
    return fishing_pb2.FishingPosition(
        ruleset=case["ruleset"],
        deck_size=56,
        players=case["players"],
        player=player,
        table=[fishing_pb2.TableItem(cards=list(i.cards)) for i in parse_table_text(case["table"])],
        hand=case["hands"][player].split(),
        piles=[fishing_pb2.Pile(cards=p.split()) for p in case["piles"]],
        last_capturer=case["last_capturer"],
        other_hands=[
            fishing_pb2.PlayerHand(player=p, cards=h.split())
            for p, h in enumerate(case["hands"])
            if p != player
        ],
    )


def sample_position(sample: Sample) -> fishing_pb2.FishingPosition:
    raw = sample.raw
    return fishing_pb2.FishingPosition(
        ruleset=raw.ruleset,
        deck_size=56,
        players=raw.players,
        player=raw.player,
        table=[fishing_pb2.TableItem(cards=list(i.cards)) for i in raw.table],
        hand=list(raw.hand),
        piles=[fishing_pb2.Pile(cards=list(p)) for p in raw.piles],
        last_capturer=sample.last_capturer,
        other_hands=[fishing_pb2.PlayerHand(player=p, cards=list(h)) for p, h in raw.other_hands],
    )


def deal_end(stub: Any, position: fishing_pb2.FishingPosition, max_plays: int = 3) -> Any:
    request = fishing_pb2.SolvePlayRequest(
        position=position, max_plays=max_plays, horizon=fishing_pb2.HORIZON_DEAL_END
    )
    return stub.SolvePlay(request, timeout=TIMEOUT)


def reference_play(play: fishing_pb2.FishingPlay, table_size: int) -> BPlay:
    kind = play.WhichOneof("action")
    if kind == "capture":
        return BPlay(
            play.card, "capture", frozenset(i for g in play.capture.groups for i in g.items)
        )
    if kind == "broom":
        return BPlay(play.card, "broom", frozenset(range(table_size)))
    if kind == "build":
        return BPlay(play.card, "build", items=frozenset(play.build.items), value=play.build.value)
    return BPlay(play.card, "trail")


@pytest.mark.parametrize("case", params("deal_end"))
def test_f8_protect_the_end(fishing_stub: Any, case: Case) -> None:
    """The deal-end best play differs from the best play now, and equals minimax's."""
    position = case_position(case)
    expect = case["expect"]
    now = fishing_stub.SolvePlay(fishing_pb2.SolvePlayRequest(position=position), timeout=TIMEOUT)
    assert now.plays[0].play.card == expect["play_now"]
    answer = deal_end(fishing_stub, position)
    assert answer.optimal and answer.deal_end
    best = answer.plays[0]
    taken = sorted(i for g in best.play.capture.groups for i in g.items)
    assert (best.play.card, taken) == (expect["card"], expect["taken"])
    assert list(best.final_points) == expect["final_points"]
    assert best.final_margin == expect["final_margin"]
    table = tuple(BItem((c,)) for c in case["table"].split())
    values = play_values(
        table,
        [h.split() for h in case["hands"]],
        [p.split() for p in case["piles"]],
        case["player"],
        case["last_capturer"],
        case["players"],
        PRIZE_SUIT[case["ruleset"]],
    )
    assert best.final_margin == max(values.values())


@pytest.mark.parametrize(
    ("players", "seed"), [(2, s) for s in range(900, 910)] + [(4, s) for s in range(900, 910)]
)
def test_deal_end_over_grpc_agrees_with_minimax(fishing_stub: Any, players: int, seed: int) -> None:
    """Each returned play's margin is its minimax value; the first is the best of all."""
    sample = endgame_sample(seed, players)
    answer = deal_end(fishing_stub, sample_position(sample))
    assert answer.optimal and answer.deal_end
    values = sample_play_values(sample)
    assert answer.plays[0].final_margin == max(values.values())
    for solved in answer.plays:
        assert values[reference_play(solved.play, len(sample.table))] == solved.final_margin
        assert len(solved.final_points) == (2 if players == 4 else players)


@pytest.mark.parametrize("seed", range(920, 930))
def test_principal_lines_replay_legally(fishing_stub: Any, seed: int) -> None:
    """Every play of a principal line is legal for the referee in the position it meets,
    and the line runs until every hand is empty."""
    sample = endgame_sample(seed, 2)
    answer = deal_end(fishing_stub, sample_position(sample), max_plays=1)
    hands = {p: list(h) for p, h in enumerate(sample.other_hands)}
    table = [RawItem(list(i.cards)) for i in sample.raw.table]
    line = answer.plays[0].line
    assert line[0].play == answer.plays[0].play
    for step in line:
        position = parse_position(
            RawPosition(
                sample.raw.ruleset, table, hands[step.player], players=2, player=step.player
            )
        )
        play = _play(step.play)
        verdict = judge(position, play)
        assert verdict.outcome is not None, (step, verdict)
        hands[step.player].remove(step.play.card)
        table = [
            RawItem([c.code for c in i.cards], i.value if i.is_build else 0, max(i.owner, 0))
            for i in verdict.outcome.table_after
        ]
    assert not any(hands.values())


def _play(message: fishing_pb2.FishingPlay) -> Play:
    card = parse_card(message.card)
    kind = message.WhichOneof("action")
    if kind == "capture":
        return Play(card, Action.CAPTURE, tuple(tuple(g.items) for g in message.capture.groups))
    if kind == "build":
        return Play(card, Action.BUILD, items=tuple(message.build.items), value=message.build.value)
    return Play(card, Action.TRAIL if kind == "trail" else Action.BROOM)


def _field_paths(error: Any) -> list[str]:
    status = rpc_status.from_call(error)
    assert status is not None
    detail = error_details_pb2.BadRequest()
    assert status.details[0].Unpack(detail)
    return [v.field for v in detail.field_violations]


def test_deal_end_needs_every_hand(fishing_stub: Any) -> None:
    """SPEC §4: the hands must account for every unseen card, else INVALID_ARGUMENT."""
    position = sample_position(endgame_sample(931, 2))
    del position.other_hands[:]
    with pytest.raises(grpc.RpcError) as caught:
        deal_end(fishing_stub, position)
    error: Any = caught.value
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert _field_paths(error) == ["position.other_hands"]


def test_deal_end_rejects_a_card_in_no_hand(fishing_stub: Any) -> None:
    position = sample_position(endgame_sample(932, 2))
    del position.piles[0].cards[0]
    with pytest.raises(grpc.RpcError) as caught:
        deal_end(fishing_stub, position)
    error: Any = caught.value
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert _field_paths(error) == ["position.other_hands"]
    assert "in no hand" in error.details()


class _FakeClock:
    """A clock that moves one second per reading: every time limit runs out at once."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 1.0
        return self.now


def test_a_search_cut_by_the_time_limit_is_not_optimal(monkeypatch: pytest.MonkeyPatch) -> None:
    """SPEC §5: out of time, the answer is the HORIZON_PLAY ranking with optimal = false
    (an unfinished search proves nothing), never a hang."""
    from solver.fishing import endgame

    monkeypatch.setattr(endgame, "time", _FakeClock())
    monkeypatch.setattr(endgame, "CHECK_EVERY_NODES", 1)
    position = parse_position(endgame_sample(940, 2).raw)
    result = endgame.solve_deal_end(position, 2, 5)
    assert not result.optimal and not result.plays
    assert result.unsolved and all(judge(position, s.play).legal for s in result.unsolved)
