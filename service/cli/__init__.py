"""The ``carrossel`` command: one subcommand per module in ``service/cli/commands/``.

A module there defines ``register(subparsers)``, which adds its subparser and sets
``func`` (``argparse.Namespace -> int``, the exit code). Adding a command means adding a module.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys
from collections.abc import Sequence

from service.cli import commands
from service.version import package_version


def build_parser() -> argparse.ArgumentParser:
    """The parser with every subcommand module registered, in name order."""
    parser = argparse.ArgumentParser(
        prog="carrossel",
        description="Referee and solver for rummy-family card games (gRPC service and tools).",
    )
    # The same version ListRulesets reports, so a client and an operator compare one number.
    parser.add_argument("--version", action="version", version=f"carrossel {package_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(subparsers)
    return parser


# A list of numbers that starts with a minus (``--totals -25,90``): argparse takes it for an
# option unless it is joined to its option (``--totals=-25,90``), which ``main`` does.
_NEGATIVE_NUMBERS = re.compile(r"-\d[\d,-]*")


def _join_negative_values(argv: Sequence[str]) -> list[str]:
    out: list[str] = []
    for token in argv:
        after_option = bool(out) and out[-1].startswith("--") and "=" not in out[-1]
        if after_option and _NEGATIVE_NUMBERS.fullmatch(token):
            out[-1] = f"{out[-1]}={token}"
            continue
        out.append(token)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand and return its exit code."""
    args = build_parser().parse_args(_join_negative_values(sys.argv[1:] if argv is None else argv))
    code: int = args.func(args)
    return code
