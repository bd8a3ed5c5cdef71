"""``carrossel fish carosello --table "3C 4D [2H 3S AC =6 @1]" --hand "7S 6H"``: best plays.

Runs the same solver as FishingService.SolvePlay, locally. A build on the table is written
in brackets with its value after ``=`` and its owner after ``@``. With ``--deal-end`` the
other hands (``--hands``, in seat order after the player to move's own, ``|`` between them)
and the piles so far (``--piles``) are needed: plays are then ranked by the deal's end.

With ``--play "7S takes 0+1 2"`` the command judges that play instead (ValidatePlay; exit
status 0 legal, 1 illegal), and ``--suggest`` adds an illegal play's nearest legal play
(issue #53), the proposed groups it keeps marked ``*``.
"""

from __future__ import annotations

import argparse
import sys

from carrossel.v1 import fishing_pb2
from service.cli.commands import Subparsers
from service.cli.rpc import call_rpc, print_json
from service.fishing import FishingServicer
from solver.core.errors import InvalidRequest, NotationError
from solver.fishing.endgame import DealEndResult, check_complete, solve_deal_end
from solver.fishing.notation import parse_play_text, parse_table_text
from solver.fishing.plays import Action, Play
from solver.fishing.position import Position, RawPosition, parse_position
from solver.fishing.referee import RawPlay, Verdict, judge, parse_play
from solver.fishing.search import SolvedPlay, solve_plays
from solver.fishing.suggest import Suggestion, suggest_play


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "fish",
        help='best fishing plays, e.g. `carrossel fish carosello --table "3C 4D" --hand "7S"`',
        description="The best plays of a fishing position (F1-F7), ranked by deal points "
        "secured, then cards, then prize-suit cards; with --deal-end, by the deal's final "
        "points under best play. Exit status 2 when the position is malformed.",
    )
    parser.add_argument("ruleset", help="carosello, carrusel or karusele")
    parser.add_argument("--table", default="", help='table items: "3C 4D [2H 3S AC =6 @1]"')
    parser.add_argument("--hand", required=True, help='the hand to play from: "7S 6H"')
    parser.add_argument("--players", type=int, default=2, help="2-4 (default 2)")
    parser.add_argument("--player", type=int, default=0, help="the player to move (default 0)")
    parser.add_argument("--deck", type=int, default=56, help="56, 55 or 54 (default 56)")
    parser.add_argument("--omit-broom", action="store_true", help="55 cards without the broom")
    parser.add_argument("--max-plays", type=int, default=5, help="plays to list (default 5)")
    parser.add_argument("--time-limit-ms", type=int, default=10_000, help="solver time limit")
    parser.add_argument("--deal-end", action="store_true", help="rank by the deal's end")
    parser.add_argument("--hands", default="", help='other hands by seat: "1: 9D JK11 | 2: 5C"')
    parser.add_argument("--piles", default="", help='piles by side: "7H 8S | KD" (- = empty)')
    parser.add_argument("--last-capturer", type=int, default=None, help="who captured last")
    parser.add_argument(
        "--play", default=None, help='judge this play instead: "7S takes 0+1 2" (table indices)'
    )
    parser.add_argument(
        "--suggest", action="store_true", help="with --play: an illegal play's nearest legal play"
    )
    parser.add_argument("--json", action="store_true", help="print the service's answer as JSON")
    parser.set_defaults(func=run)


def _other_hands(text: str) -> list[tuple[int, list[str]]]:
    """``"1: 9D JK11 | 2: 5C"`` → ``[(1, ["9D", "JK11"]), (2, ["5C"])]``."""
    hands = []
    for part in filter(str.strip, text.split("|")):
        seat, _, codes = part.partition(":")
        if not seat.strip().isdigit():
            raise NotationError(part, "write each other hand as 'seat: cards', e.g. '1: 9D 5C'")
        hands.append((int(seat), [c for c in codes.split() if c != "-"]))
    return hands


def _piles(text: str) -> list[list[str]]:
    return [[c for c in part.split() if c != "-"] for part in text.split("|")] if text else []


def _malformed(error: InvalidRequest | NotationError) -> int:
    problems = error.problems if isinstance(error, InvalidRequest) else []
    for problem in problems:
        print(f"error: {problem.field}: {problem.description}", file=sys.stderr)
    if isinstance(error, NotationError):
        print(f"error: {error}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    if args.suggest and args.play is None:
        print("error: --suggest needs --play, the play to judge", file=sys.stderr)
        return 2
    try:
        raw = RawPosition(
            args.ruleset,
            parse_table_text(args.table),
            args.hand.split(),
            args.deck,
            args.player,
            args.players,
            _piles(args.piles),
            args.last_capturer,
            _other_hands(args.hands),
            args.omit_broom,
        )
        raw_play = parse_play_text(args.play) if args.play is not None else None
        if args.json:
            return run_json(args, raw) if raw_play is None else judge_json(args, raw, raw_play)
        position = parse_position(raw)
        if raw_play is not None:
            return judge_play(args, position, raw_play)
        if args.deal_end:
            check_complete(position)
    except (InvalidRequest, NotationError) as error:
        return _malformed(error)
    if args.deal_end:
        print(
            render_deal_end(position, solve_deal_end(position, args.max_plays, args.time_limit_ms))
        )
        return 0
    result = solve_plays(position, args.max_plays, args.time_limit_ms)
    lines = [f"{n}. {describe(position, s)}" for n, s in enumerate(result.plays, start=1)]
    lines.append("optimal" if result.optimal else "not proved optimal (time limit)")
    print("\n".join(lines))
    return 0


def judge_play(args: argparse.Namespace, position: Position, raw_play: RawPlay) -> int:
    """ValidatePlay's verdict and, with ``--suggest``, the nearest legal play."""
    try:
        play = parse_play(raw_play, len(position.table))
    except InvalidRequest as error:
        return _malformed(error.prefixed("play"))
    verdict = judge(position, play)
    print(render_verdict(position, play, verdict))
    if args.suggest and not verdict.legal:
        print(render_suggestion(position, play, suggest_play(position, play, args.time_limit_ms)))
    return 0 if verdict.legal else 1


def render_verdict(position: Position, play: Play, verdict: Verdict) -> str:
    if verdict.outcome is None:
        return "\n".join(["illegal", *(f"  - {v.message}" for v in verdict.violations)])
    table = " ".join(item.text for item in verdict.outcome.table_after) or "(empty)"
    solved = SolvedPlay(play, verdict.outcome)
    return f"legal: {describe(position, solved)}\ntable after: {table}"


def render_suggestion(position: Position, proposal: Play, suggestion: Suggestion) -> str:
    """The nearest legal play, then the proposal's groups with the kept ones marked ``*``."""
    found = suggestion.play
    if found is None:
        return f"nearest legal: none. {suggestion.note}"
    proved = "" if suggestion.optimal else " (not proved nearest in the time given)"
    lines = [f"nearest legal{proved}: {describe(position, found.solved)}"]
    if proposal.action is Action.CAPTURE and proposal.groups:
        marked = [
            ("*" if g in found.kept else "") + "(" + " ".join(map(str, group)) + ")"
            for g, group in enumerate(proposal.groups)
        ]
        lines.append(f"  proposed groups: {' '.join(marked)} (* = kept as proposed)")
    lines.append(f"  {suggestion.note}")
    return "\n".join(lines)


def _position_proto(raw: RawPosition) -> fishing_pb2.FishingPosition:
    return fishing_pb2.FishingPosition(
        ruleset=raw.ruleset,
        deck_size=raw.deck_size,
        table=[
            fishing_pb2.TableItem(cards=item.cards, value=item.value, owner=item.owner)
            for item in raw.table
        ],
        hand=raw.hand,
        player=raw.player,
        players=raw.players,
        piles=[fishing_pb2.Pile(cards=pile) for pile in raw.piles],
        last_capturer=raw.last_capturer,
        other_hands=[fishing_pb2.PlayerHand(player=p, cards=c) for p, c in raw.other_hands],
        omit_broom=raw.omit_broom,
    )


def judge_json(args: argparse.Namespace, raw: RawPosition, raw_play: RawPlay) -> int:
    """The service's ValidatePlay answer (with ``suggest``), as grpcurl prints it."""
    play = fishing_pb2.FishingPlay(card=raw_play.card)
    if raw_play.action == "capture":
        play.capture.SetInParent()
        play.capture.groups.extend(fishing_pb2.CaptureGroup(items=g) for g in raw_play.groups)
    elif raw_play.action == "build":
        play.build.items.extend(raw_play.items)
        play.build.value = raw_play.value
    elif raw_play.action == "trail":
        play.trail.SetInParent()
    else:
        play.broom.SetInParent()
    request = fishing_pb2.ValidatePlayRequest(
        position=_position_proto(raw), play=play, suggest=args.suggest
    )
    answer = call_rpc(FishingServicer().ValidatePlay, request)
    if isinstance(answer, int):
        return answer
    print_json(answer)
    return 0 if answer.legal else 1


def run_json(args: argparse.Namespace, raw: RawPosition) -> int:
    """The service's SolvePlay answer, as grpcurl prints it."""
    position = _position_proto(raw)
    horizon = fishing_pb2.HORIZON_DEAL_END if args.deal_end else fishing_pb2.HORIZON_PLAY
    request = fishing_pb2.SolvePlayRequest(
        position=position,
        max_plays=args.max_plays,
        time_limit_ms=args.time_limit_ms,
        horizon=horizon,
    )
    answer = call_rpc(FishingServicer().SolvePlay, request)
    if isinstance(answer, int):
        return answer
    print_json(answer)
    return 0


def play_text(position: Position, play: Play) -> str:
    """``7S takes 3C + 4D``, ``AC builds 6 on 2H + 3S``, ``5H is laid on the table``."""
    items = position.table
    if play.action is Action.CAPTURE:
        groups = ", ".join(" + ".join(items[i].text for i in group) for group in play.groups)
        return f"{play.card.code} takes {groups}"
    if play.action is Action.BUILD:
        parts = " + ".join(items[i].text for i in play.items)
        return f"{play.card.code} builds {play.value} on {parts}"
    return play.text


def describe(position: Position, solved: SolvedPlay) -> str:
    effect = solved.outcome
    text = play_text(position, solved.play)
    if not effect.captured:
        return text
    return (
        f"{text}: {effect.deal_points} points, {len(effect.captured)} cards, "
        f"{effect.prize_suit_cards} of the prize suit"
    )


def render_deal_end(position: Position, result: DealEndResult) -> str:
    if not result.plays:
        lines = [f"{n}. {describe(position, s)}" for n, s in enumerate(result.unsolved, 1)]
        return "\n".join([*lines, "not solved to the deal's end in time (Part 1 ranking)"])
    out = []
    for n, found in enumerate(result.plays, start=1):
        points = " / ".join(str(p) for p in found.final_points)
        out.append(f"{n}. {describe(position, found.solved)}")
        out.append(
            f"   deal end: {points} (margin {found.value:+d}); line: "
            + "; ".join(f"p{step.player} {step.play.text}" for step in found.line)
        )
    out.append(f"optimal ({result.nodes} states searched)")
    return "\n".join(out)
