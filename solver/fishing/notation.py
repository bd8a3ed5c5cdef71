"""The fishing table and plays in text, for the CLI, the docs and test vectors.

``3C 4D [2H 3S AC =6 @1]``: single cards, and builds in brackets with their value after
``=`` (written alone or joined to the last card: ``AC=6``) and their owner after ``@``.

A play names table items by index: ``7S takes 0+1 2`` (groups apart, a group's items joined
by ``+``; ``(0 1) (2)`` as ``Play.text`` writes it reads too), ``AC builds 6 on 0 1``,
``5H trails``, ``BROOM sweeps``.
"""

from __future__ import annotations

import re

from solver.core.errors import NotationError
from solver.fishing.position import RawItem
from solver.fishing.referee import RawPlay

_TOKENS = re.compile(r"\[[^\]]*\]|[^\s\[\]]+")


def parse_table_text(text: str) -> list[RawItem]:
    """The table's items; ``NotationError`` quotes a bracket that does not close."""
    if text.count("[") != text.count("]"):
        raise NotationError(text, "a build opens with '[' and closes with ']'")
    return [_item(token) for token in _TOKENS.findall(text)]


def _item(token: str) -> RawItem:
    if not token.startswith("["):
        return RawItem([token])
    cards: list[str] = []
    value = 0
    owner = 0
    for part in token[1:-1].replace("=", " =").split():
        if part.startswith("="):
            value = _number(part[1:], token)
        elif part.startswith("@"):
            owner = _number(part[1:], token)
        else:
            cards.append(part)
    return RawItem(cards, value, owner)


def _number(text: str, whole: str) -> int:
    if not text.isdigit():
        raise NotationError(whole, f"{text!r} is not a number")
    return int(text)


_VERBS = {
    "takes": "capture",
    "take": "capture",
    "captures": "capture",
    "capture": "capture",
    "builds": "build",
    "build": "build",
    "trails": "trail",
    "trail": "trail",
    "sweeps": "broom",
    "sweep": "broom",
    "broom": "broom",
}


def parse_play_text(text: str) -> RawPlay:
    """``7S takes 0+1 2`` → the play as a client writes it; ``NotationError`` says why not."""
    words = text.replace("(", " ( ").replace(")", " ) ").split()
    if len(words) < 2 or words[1].lower() not in _VERBS:
        raise NotationError(
            text,
            "write a play as '7S takes 0+1 2', 'AC builds 6 on 0 1', '5H trails' or 'BROOM sweeps'",
        )
    card, action, rest = words[0], _VERBS[words[1].lower()], words[2:]
    if action == "capture":
        return RawPlay(card, action, groups=_groups(rest, text))
    if action == "build":
        if len(rest) < 3 or rest[1].lower() != "on":
            raise NotationError(text, "a build is written 'AC builds 6 on 0 1'")
        items = [index for group in _groups(rest[2:], text) for index in group]
        return RawPlay(card, action, items=items, value=_number(rest[0], text))
    if rest:
        raise NotationError(text, f"a play that {words[1]} names no table items")
    return RawPlay(card, action)


def _groups(words: list[str], whole: str) -> list[list[int]]:
    """``0+1 2`` or ``( 0 1 ) ( 2 )`` → ``[[0, 1], [2]]``."""
    groups: list[list[int]] = []
    open_group: list[int] | None = None
    for word in words:
        if word == "(":
            open_group = []
        elif word == ")":
            if open_group is None:
                raise NotationError(whole, "a ')' closes no group")
            groups.append(open_group)
            open_group = None
        elif open_group is not None:
            open_group.append(_number(word, whole))
        else:
            groups.append([_number(part, whole) for part in word.split("+")])
    if open_group is not None:
        raise NotationError(whole, "a '(' is not closed")
    return groups
