"""The fishing table in text, for the CLI, the docs and test vectors.

``3C 4D [2H 3S AC =6 @1]``: single cards, and builds in brackets with their value after
``=`` (written alone or joined to the last card: ``AC=6``) and their owner after ``@``.
"""

from __future__ import annotations

import re

from solver.core.errors import NotationError
from solver.fishing.position import RawItem

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
