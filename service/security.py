"""Optional TLS (mutual with a client CA) and bearer tokens for ``carrossel serve``.

Tokens come from a file, one per line (blank lines and ``#`` comments ignored), so a secret
never appears on a command line or in the process list. A call carries one in the
``authorization`` metadata as ``Bearer <token>``; it is compared with every known token in
constant time (``hmac.compare_digest``) and never logged. Health stays open: orchestrators
probe it without credentials.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import grpc

AUTHORIZATION = "authorization"
BEARER = "bearer "
MAX_TOKEN_BYTES = 4096


class ConfigError(ValueError):
    """A TLS or token file that cannot be used; the message says which and why."""


@dataclass(frozen=True)
class TlsFiles:
    """PEM files: the server's certificate chain and key, and optionally the client CA."""

    cert: Path
    key: Path
    client_ca: Path | None = None


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read the {what} {path}: {exc.strerror}") from exc


def server_credentials(files: TlsFiles) -> grpc.ServerCredentials:
    """TLS credentials; with a client CA every client must present a certificate it signed."""
    chain = _read(files.cert, "TLS certificate")
    key = _read(files.key, "TLS key")
    client_ca = _read(files.client_ca, "client CA") if files.client_ca else None
    credentials: grpc.ServerCredentials = grpc.ssl_server_credentials(
        [(key, chain)], root_certificates=client_ca, require_client_auth=client_ca is not None
    )
    return credentials


class TokenAuth:
    """The bearer tokens a call may carry."""

    def __init__(self, tokens: Iterable[str]) -> None:
        self._tokens = tuple(t.encode() for t in tokens)
        if not self._tokens:
            raise ConfigError("the token file holds no token")

    @classmethod
    def from_file(cls, path: Path) -> TokenAuth:
        text = _read(path, "token file").decode("utf-8", "replace")
        lines = (line.strip() for line in text.splitlines())
        return cls(line for line in lines if line and not line.startswith("#"))

    def allows(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> bool:
        """Does the call's metadata carry one of the tokens?"""
        offered = _bearer(metadata)
        if offered is None:
            return False
        # Compare with every token, not just until one matches: the time taken says nothing
        # about which token, or how much of one, was right.
        matched = False
        for token in self._tokens:
            matched |= hmac.compare_digest(offered, token)
        return matched


def _bearer(metadata: Iterable[tuple[str, str | bytes]] | None) -> bytes | None:
    for key, value in metadata or ():
        if key != AUTHORIZATION:
            continue
        raw = value.encode() if isinstance(value, str) else value
        if len(raw) > MAX_TOKEN_BYTES or not raw.lower().startswith(BEARER.encode()):
            return None
        return raw[len(BEARER) :].strip()
    return None
