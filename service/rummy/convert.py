"""RummyService requests and answers <-> the rummy domain (positions, moves, violations).

Parsing goes through the solver's own parse functions; their ``InvalidRequest`` field paths
(relative to a position or a move) are placed under the request field they came from
(``position.hand[3]``, ``move.table[0].cards[2]``), so a client sees the exact path.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import methodcaller
from typing import Any, Protocol, cast

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer
from google.protobuf.message import Message

from carrossel.v1 import rummy_pb2
from service import bounds, limits
from service.convert import check_code_count, codes, enum_to_proto
from solver.contract.draw import parse_discard_top
from solver.core.cards import Card, TableCard
from solver.core.errors import FieldProblem, InvalidRequest, ProblemCollector
from solver.core.rulesets import Family
from solver.core.violations import Violation
from solver.rearrangement.search import MAX_MOVES
from solver.rummy.melds import INTERNED
from solver.rummy.position import (
    MAX_CARDS_PER_MELD,
    MAX_MELDS,
    Meld,
    Move,
    Position,
    Turn,
    on_interned_melds_cleared,
    parse_move,
    parse_position,
)


def _meld_codes(melds: Iterable[rummy_pb2.Meld]) -> list[Sequence[str]]:
    """Each meld's codes, read in place (a repeated field is a sequence already)."""
    return [m.cards for m in melds]


def _code_count(melds: list[Sequence[str]], *others: Sequence[str]) -> int:
    return sum(map(len, melds)) + sum(map(len, others))


# --- rummy positions and moves -------------------------------------------------------------


def turn_from_proto(turn: rummy_pb2.Turn) -> Turn:
    return Turn(
        cards_drawn=turn.cards_drawn,
        stock_empty=turn.stock_empty,
        has_melded_sequence=turn.has_melded_sequence,
        has_opened=turn.has_opened,
        deal_number=turn.deal_number,
    )


def position_from_proto(position: rummy_pb2.RummyPosition, field: str = "position") -> Position:
    """Parse a RummyPosition, or raise InvalidRequest with paths under ``field``."""
    keys, known = _known_melds(position.table)
    if known is not None:
        table: list[Sequence[str]] = []
        check_code_count(sum(map(len, known)) + len(position.hand), field)
    else:
        table = _meld_codes(position.table)
        check_code_count(_code_count(table, position.hand), field)
    try:
        parsed = parse_position(
            position.ruleset,
            position.players,
            table,
            position.hand,
            turn_from_proto(position.turn),
            melds=known,
        )
    except InvalidRequest as error:
        raise error.prefixed(field) from error
    if known is None:
        _remember_melds(keys, parsed.table, position.table)
    return parsed


def move_from_proto(position: Position, move: rummy_pb2.RummyMove, field: str = "move") -> Move:
    """Parse a RummyMove against its position, or raise InvalidRequest under ``field``."""
    keys, known = _known_melds(move.table)
    if known is not None:
        table: list[Sequence[str]] = []
        check_code_count(sum(map(len, known)) + len(move.to_hand) + 1, field)  # + 1: discard
    else:
        table = _meld_codes(move.table)
        check_code_count(_code_count(table, move.to_hand) + 1, field)
    try:
        parsed = parse_move(position, table, move.to_hand, move.knock, move.discard, melds=known)
    except InvalidRequest as error:
        raise error.prefixed(field) from error
    if known is None:
        _remember_melds(keys, parsed.table, move.table)
    return parsed


# A request's melds by their bytes (each ``Meld`` message serialized, one C call): reading a
# meld's codes makes a Python string of each, a third of parsing a request (both tables,
# some 25 melds), where a meld seen before is found by its bytes. Only melds the parse has
# interned are remembered (the parse reads each meld of an unknown table itself, and names
# its problems), and the index is forgotten with them.
_MELDS_BY_BYTES: dict[bytes, Meld] = {}
_MOST_MELDS_BY_BYTES = 16384
on_interned_melds_cleared(_MELDS_BY_BYTES.clear)
_SERIALIZED = methodcaller("SerializeToString")


def _known_melds(
    melds: RepeatedCompositeFieldContainer[rummy_pb2.Meld],
) -> tuple[list[bytes], list[Meld] | None]:
    """The table's bytes per meld, and its melds when every one is known (else None); read
    by the request's bounds check just before (``_melds_within_bounds``), or here."""
    read = _READ.pop(id(melds), None)
    if read is not None and read[0] is melds:
        return read[1], read[2]
    if len(melds) > MAX_MELDS:
        return [], None
    keys = list(map(_SERIALIZED, melds))
    found = list(map(_MELDS_BY_BYTES.get, keys))
    if None in found:
        return keys, None
    return keys, cast(list[Meld], found)


# What the bounds check read of a request's tables, for the parse that follows on the same
# thread, by the table's id; an entry holds its table (so no other has that id meanwhile)
# and is taken by the parse. Tables of RPCs that do not parse them are dropped in bulk.
_READ: dict[int, tuple[Any, list[bytes], list[Meld] | None]] = {}
_MOST_READ = 256


def _melds_within_bounds(melds: RepeatedCompositeFieldContainer[rummy_pb2.Meld]) -> bool:
    """For ``service.bounds``: whether every meld of a table is one the parse accepted
    before (so within every bound: at most 14 codes, each a card's); the bytes read and the
    melds found are kept for the parse."""
    if len(melds) > MAX_MELDS:
        return False
    keys = list(map(_SERIALIZED, melds))
    found = list(map(_MELDS_BY_BYTES.get, keys))
    known = None not in found
    if len(_READ) >= _MOST_READ:
        _READ.clear()
    _READ[id(melds)] = (melds, keys, cast(list[Meld], found) if known else None)
    return known


bounds.register_known_items(rummy_pb2.Meld.DESCRIPTOR, _melds_within_bounds)


def _remember_melds(
    keys: list[bytes], table: Sequence[Meld], sent: Sequence[rummy_pb2.Meld]
) -> None:
    """Remember a parsed table's melds by their request bytes (the parse keeps one meld per
    request meld, in order, when it accepts the table). A meld known by its bytes skips the
    bounds check (``_melds_within_bounds``): only one whose codes are all within it is."""
    if len(keys) != len(table) or len(keys) != len(sent):
        return
    if len(_MELDS_BY_BYTES) + len(keys) > _MOST_MELDS_BY_BYTES:
        _MELDS_BY_BYTES.clear()
    for key, meld, message in zip(keys, table, sent, strict=True):
        if INTERNED.get(id(meld)) is meld and _within_code_bounds(message.cards):
            _MELDS_BY_BYTES[key] = meld


def _within_code_bounds(codes: Sequence[str]) -> bool:
    # The parse reads a code with spaces around it: bounds, not the parse, limit its length.
    return len(codes) <= MAX_CARDS_PER_MELD and all(
        len(code) <= limits.MAX_CODE_LENGTH for code in codes
    )


def meld_to_proto(meld: Sequence[TableCard]) -> rummy_pb2.Meld:
    return rummy_pb2.Meld(cards=codes(meld))


def table_to_proto(table: Iterable[Meld]) -> list[rummy_pb2.Meld]:
    return [meld_to_proto(m) for m in table]


def add_table(
    message: Message, field: str, table: Iterable[Meld], interned_only: bool = False
) -> None:
    """Append ``table`` to ``message``'s repeated ``Meld`` field ``field``, in place.

    Each meld's encoding in that field (tag, length, its codes) is kept per meld object, as
    its codes are, and the whole table is read into the message in one C call: adding a
    ``Meld`` and extending its codes per meld was half of building ValidateMove's answer (an
    answer's table is most of its size); the bytes serialized are the same. With
    ``interned_only`` only the melds the parse interned are kept (a search's answer: its
    rebuilt melds are new objects each call, which would only fill the memo)."""
    tag = _field_tag(message, field)
    known = _ENCODED.setdefault(tag, {})
    message.MergeFromString(b"".join([_encoded(tag, known, meld, interned_only) for meld in table]))


_TAGS: dict[tuple[type[Message], str], bytes] = {}
_LENGTH_DELIMITED = 2  # the wire type of a message field


def _field_tag(message: Message, field: str) -> bytes:
    tag = _TAGS.get((type(message), field))
    if tag is None:
        number = message.DESCRIPTOR.fields_by_name[field].number
        tag = _TAGS[(type(message), field)] = _varint(number << 3 | _LENGTH_DELIMITED)
    return tag


def _varint(value: int) -> bytes:
    """Protobuf's base-128 varint of a non-negative int."""
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


# A meld object's encoding by field tag and the meld's id; an entry holds its meld, so no
# other object has that id while it is there (as ``_CODES``).
_ENCODED: dict[bytes, dict[int, tuple[Meld, bytes]]] = {}


def _encoded(
    tag: bytes, known: dict[int, tuple[Meld, bytes]], meld: Meld, interned_only: bool
) -> bytes:
    entry = known.get(id(meld))
    if entry is not None and entry[0] is meld:
        return entry[1]
    remember = isinstance(meld, tuple) and (  # immutable: its encoding stays its encoding
        not interned_only or INTERNED.get(id(meld)) is meld
    )
    codes = _codes_of(meld) if remember else tuple([tc.code for tc in meld])
    body = rummy_pb2.Meld(cards=codes).SerializeToString()
    encoded = tag + _varint(len(body)) + body
    if remember:
        if len(known) >= _MOST_CODES:
            known.clear()
        known[id(meld)] = (meld, encoded)
    return encoded


# A meld object's codes by its id: an answer's melds are mostly the move's own, interned by
# the parse (``solver.rummy.position``), so each is written once, not a property per card
# per call. An entry holds its meld: no other object has that id while it is there.
_CODES: dict[int, tuple[Meld, tuple[str, ...]]] = {}
_MOST_CODES = 16384


def _codes_of(meld: Meld) -> tuple[str, ...]:
    known = _CODES.get(id(meld))
    if known is not None and known[0] is meld:
        return known[1]
    written = tuple([tc.code for tc in meld])
    if isinstance(meld, tuple):  # immutable: its codes stay its codes
        if len(_CODES) >= _MOST_CODES:
            _CODES.clear()
        _CODES[id(meld)] = (meld, written)
    return written


def move_to_proto(move: Move) -> rummy_pb2.RummyMove:
    message = rummy_pb2.RummyMove(
        to_hand=codes(move.to_hand),
        knock=move.knock,
        discard=move.discard.code if move.discard is not None else "",
    )
    add_table(message, "table", move.table, interned_only=True)
    return message


def violation_to_proto(violation: Violation) -> rummy_pb2.Violation:
    return rummy_pb2.Violation(
        code=enum_to_proto(rummy_pb2.ViolationCode, "VIOLATION_CODE", violation.code),
        message=violation.message,
        meld=violation.meld,
        cards=list(violation.cards),
        rule=violation.rule,
    )


# --- request checks done before dispatch ---------------------------------------------------


@dataclass(frozen=True)
class RummyCall:
    """A parsed RummyService request: the position, and the move when the request has one;
    for SolveMove in carioca, the top discard the player asks about (C6)."""

    position: Position
    move: Move | None
    discard_top: Card | None = None


def _discard_top(position: Position, request_position: rummy_pb2.RummyPosition) -> Card | None:
    """Carioca's optional ``position.discard_top``; the other families ignore the field."""
    if position.ruleset.family is not Family.CONTRACT or not request_position.discard_top:
        return None
    try:
        return parse_discard_top(position, request_position.discard_top)
    except InvalidRequest as error:
        raise error.prefixed("position") from error


def _require(message_has_field: bool, field: str) -> None:
    if not message_has_field:
        raise InvalidRequest([FieldProblem(field, f"{field} is required")])


def validate_move_call(request: rummy_pb2.ValidateMoveRequest) -> RummyCall:
    """Parse a ValidateMove request (position and move are both required)."""
    _require(request.HasField("position"), "position")
    # An unset move is a client's mistake; it would otherwise read as an empty table and
    # come back as "every table card removed". An empty move that is set is judged as sent.
    _require(request.HasField("move"), "move")
    position = position_from_proto(request.position)
    return RummyCall(position, move_from_proto(position, request.move))


def solve_move_call(request: rummy_pb2.SolveMoveRequest) -> RummyCall:
    """Parse a SolveMove request and check its numbers."""
    _require(request.HasField("position"), "position")
    errors = ProblemCollector()
    if not 0 <= request.max_moves <= MAX_MOVES:
        errors.add("max_moves", f"max_moves must be 0-{MAX_MOVES}, not {request.max_moves}")
    if request.time_limit_ms < 0:
        errors.add("time_limit_ms", f"time_limit_ms must be 0 or more, not {request.time_limit_ms}")
    if request.objective not in rummy_pb2.Objective.values():
        errors.add("objective", f"unknown objective {request.objective}")
    try:
        position = position_from_proto(request.position)
    except InvalidRequest as error:
        errors.extend(error)
    errors.raise_if_any()
    return RummyCall(position, None, _discard_top(position, request.position))


def check_knock_call(request: rummy_pb2.CheckKnockRequest) -> RummyCall:
    """Parse a CheckKnock request (the move is optional)."""
    _require(request.HasField("position"), "position")
    if request.time_limit_ms < 0:
        raise InvalidRequest([FieldProblem("time_limit_ms", "time_limit_ms must be 0 or more")])
    position = position_from_proto(request.position)
    move = move_from_proto(position, request.move) if request.HasField("move") else None
    return RummyCall(position, move)


class SearchStats(Protocol):
    """How a search went: the rearrangement family's ``SolveStats`` and carioca's alike."""

    @property
    def wall_time_ms(self) -> float: ...
    @property
    def status(self) -> str: ...
    @property
    def objective_value(self) -> float: ...
    @property
    def branches(self) -> int: ...
    @property
    def conflicts(self) -> int: ...
    @property
    def time_limited(self) -> bool: ...


def stats_to_proto(stats: SearchStats, found: int, tie_break_proved: bool) -> rummy_pb2.SolveStats:
    """SolveMove's statistics; ``found`` moves, the first's tie-break proved or not."""
    return rummy_pb2.SolveStats(
        wall_time_ms=stats.wall_time_ms,
        status=stats.status,
        objective_value=stats.objective_value,
        branches=stats.branches,
        conflicts=stats.conflicts,
        num_solutions=found,
        tie_break_proved=bool(found) and tie_break_proved,
        time_limited=stats.time_limited,
    )
