"""The version of the installed carrossel, as ``carrossel --version`` and ListRulesets say it."""

from __future__ import annotations

from importlib import metadata


def package_version() -> str:
    """The installed carrossel's version (pyproject.toml's, as pip recorded it).

    A source tree run without ``pip install`` has no metadata: it says so instead of a number.
    """
    try:
        return metadata.version("carrossel")
    except metadata.PackageNotFoundError:
        return "unknown (carrossel is not installed)"
