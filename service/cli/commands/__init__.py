"""Subcommands of ``carrossel``: each module here defines ``register(subparsers)``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    # The type of ``ArgumentParser.add_subparsers()``'s result, for ``register`` signatures.
    Subparsers: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]
else:
    Subparsers = Any
