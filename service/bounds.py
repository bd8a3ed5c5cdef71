"""Bounds on a request's shape, checked before any of its elements is processed (SPEC §5).

A repeated field's length is read first (an O(1) ``len``) and an overlong one is refused
without looking at its elements, so a refused request costs about what its bytes cost:
500,000 ``totals_before`` used to cost 2.5 s of CPU and 910 MB before being refused
(issue 52). Strings are bounded too, and no refusal quotes the offending text.

The bounds are by field name and hold for every service, so a new RPC is covered as soon as
it exists; a field with no bound of its own gets ``MAX_REPEATED``. A request within them
goes on to the RPC's own checks, which are unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from service import limits
from solver.core.errors import FieldProblem, InvalidRequest

MAX_MELDS = 120
"""Melds (or fishing table items) in one table: the biggest deck has 108 cards."""

MAX_SEATS = 16
"""Entries of a per-player or per-side list (hands, totals, piles); no ruleset seats more
than 8."""

MAX_REPEATED = limits.MAX_CODES_PER_REQUEST
"""Entries of any other repeated field (a list of card codes, of indices)."""

MAX_STRING_CHARS = 64
"""Characters of any string field (a ruleset id, a round end name, ...)."""

MAX_PROBLEMS = 20
"""Problems reported per request: one per field, never one per element."""

_REPEATED_LIMITS = {
    "table": MAX_MELDS,
    "table_after": MAX_MELDS,
    "hands": MAX_SEATS,
    "piles": MAX_SEATS,
    "totals_before": MAX_SEATS,
    "rounds_won_before": MAX_SEATS,
}
# Repeated strings under these names are card codes, bounded like one.
_CODE_FIELDS = frozenset({"cards", "hand", "to_hand", "captured", "specials"})
_CODE_STRINGS = frozenset({"discard", "discard_top", "card", "hand_card"})
_STRING = FieldDescriptor.TYPE_STRING
_MESSAGE = FieldDescriptor.TYPE_MESSAGE


def check(request: Message) -> None:
    """Raise ``InvalidRequest`` naming every field beyond its bound (at most MAX_PROBLEMS)."""
    if _within(request):
        return
    walker = _Walker()
    walker.walk(request, "")
    if walker.problems:
        raise InvalidRequest(walker.problems[:MAX_PROBLEMS])


# What each field asks of the fast walk, by descriptor: (kind, bound). Kinds: a message, a
# repeated message, repeated strings (bound: entries, then characters), a string, anything
# else repeated (bound: entries), or a single number, enum or bool (no bound).
_MESSAGE_FIELD, _MESSAGES, _STRINGS, _ONE_STRING, _OTHER, _SCALAR = range(6)
_PLANS: dict[FieldDescriptor, tuple[int, int, int]] = {}


def _plan(field: FieldDescriptor) -> tuple[int, int, int]:
    """The field's kind, entry bound and character bound (read once per field)."""
    plan = _PLANS.get(field)
    if plan is None:
        entries = _REPEATED_LIMITS.get(field.name, MAX_REPEATED)
        is_code = field.name in _CODE_FIELDS or field.name in _CODE_STRINGS
        chars = limits.MAX_CODE_LENGTH if is_code else MAX_STRING_CHARS
        if _is_repeated(field):
            kind = {_MESSAGE: _MESSAGES, _STRING: _STRINGS}.get(field.type, _OTHER)
        else:
            kind = {_MESSAGE: _MESSAGE_FIELD, _STRING: _ONE_STRING}.get(field.type, _SCALAR)
        if field.name == "ruleset":
            kind = _OTHER if _is_repeated(field) else _ONE_STRING
        plan = _PLANS[field] = (kind, entries, chars)
    return plan


def _within(message: Message) -> bool:
    """True when nothing in ``message`` is beyond its bound: the common case, told without
    building a field path (``_Walker`` then says what is beyond, for a request that is not).
    A repeated field's length is still read before its elements."""
    fields = message.ListFields()
    for field, value in fields:
        kind, entries, chars = _plan(field)
        if kind == _MESSAGE_FIELD:
            if not _within(value):
                return False
        elif kind == _ONE_STRING:
            if len(value) > chars or (field.name == "ruleset" and not value.isascii()):
                return False
        elif kind == _SCALAR:
            continue
        elif len(value) > entries:
            return False
        elif kind == _MESSAGES:
            lone = _lone_strings(field.message_type)
            if lone is None:
                if not all(map(_within, value)):
                    return False
                continue
            known = _KNOWN_ITEMS.get(field.message_type)
            if known is not None and known(value):
                continue  # every item one its service has accepted before
            name, entries_in, chars_in = lone
            for item in value:
                count = len(getattr(item, name))
                if count > entries_in:
                    return False
                # As below, told from the size: only a meld of long codes is walked.
                if item.ByteSize() - 2 * count > chars_in and not _within(item):
                    return False
        elif kind == _STRINGS and value:
            if len(fields) == 1 and message.ByteSize() - 2 * len(value) <= chars:
                continue  # a meld's few codes: told from its size, no code read (see below)
            if max(map(len, value)) > chars:
                return False
    return True


_KNOWN_ITEMS: dict[Descriptor, Callable[[Any], bool]] = {}


def register_known_items(message_type: Descriptor, known: Callable[[Any], bool]) -> None:
    """``known(items)``, given a repeated field of ``message_type`` (a message whose one field
    is a repeated string, as a ``Meld``), says whether every item is one its service has
    accepted before, within every bound: the walk of their strings is then skipped. The
    rummy service knows a meld by its bytes (``service.rummy.convert``), and keeps the bytes
    it reads here for the parse that follows."""
    _KNOWN_ITEMS[message_type] = known


_LONE: dict[Descriptor, tuple[str, int, int] | None] = {}


def _lone_strings(message_type: Descriptor) -> tuple[str, int, int] | None:
    """For a message whose one field is a repeated string (a ``Meld``: its codes), that
    field's name and bounds: its items are checked without ``ListFields`` and a call per
    item (a mid table is some twenty melds, twice per ValidateMove); else None."""
    if message_type not in _LONE:
        fields = message_type.fields
        lone = None
        if len(fields) == 1 and _plan(fields[0])[0] == _STRINGS:
            _, entries, chars = _plan(fields[0])
            lone = (fields[0].name, entries, chars)
        _LONE[message_type] = lone
    return _LONE[message_type]


# Reading a repeated string field's entries makes a Python string of each (upb), a third of
# this walk for a mid table. A message holding only that field is ``n`` entries of a tag
# (1+ bytes), a length (1+) and the text: its size less ``2 n`` bounds every entry's bytes,
# and a text has no more characters than bytes.


class _Walker:
    """One request's walk. Strings are looked at up to MAX_REPEATED of them in all: a request
    with more card codes is refused by its RPC's count check before any code is parsed."""

    def __init__(self) -> None:
        self.problems: list[FieldProblem] = []
        self.strings_left = MAX_REPEATED + 1

    def walk(self, message: Message, path: str) -> None:
        for field, value in message.ListFields():
            if len(self.problems) >= MAX_PROBLEMS:
                return
            where = f"{path}.{field.name}" if path else field.name
            if _is_repeated(field):
                self.walk_repeated(field, value, where)
            elif field.type == _MESSAGE:
                self.walk(value, where)
            elif field.type == _STRING:
                self.string(field.name, value, where)

    def walk_repeated(self, field: FieldDescriptor, values: list[object], where: str) -> None:
        limit = _REPEATED_LIMITS.get(field.name, MAX_REPEATED)
        if len(values) > limit:
            text = f"{len(values)} entries in {where}; at most {limit} are accepted"
            if field.name in _CODE_FIELDS:
                # Named like the RPCs' own count of card codes: by the request's field.
                text = f"{len(values)} card codes in {where}; at most {limit} are accepted"
                where = where.split(".")[0]
            self.problems.append(FieldProblem(where, text))
            return
        for index, item in enumerate(values):
            if len(self.problems) >= MAX_PROBLEMS:
                return
            if isinstance(item, Message):
                self.walk(item, f"{where}[{index}]")
            elif isinstance(item, str):
                self.string(field.name, item, f"{where}[{index}]")

    def string(self, name: str, text: str, where: str) -> None:
        if self.strings_left <= 0:
            return
        self.strings_left -= 1
        _check_string(name, text, where, self.problems)


def _check_string(name: str, text: str, where: str, problems: list[FieldProblem]) -> None:
    is_code = name in _CODE_FIELDS or name in _CODE_STRINGS
    limit = limits.MAX_CODE_LENGTH if is_code else MAX_STRING_CHARS
    if len(text) > limit:
        what = "a card code" if is_code else where
        problems.append(FieldProblem(where, f"{len(text)} characters; {what} has at most {limit}"))
    elif name == "ruleset" and not text.isascii():
        # Ruleset ids are ASCII: no lookalike may reach an id through Unicode case mapping
        # (the Kelvin sign K lowercases to k).
        problems.append(FieldProblem(where, "a ruleset id is written in ASCII letters"))


def _is_repeated(field: FieldDescriptor) -> bool:
    repeated: bool = field.is_repeated
    return repeated
