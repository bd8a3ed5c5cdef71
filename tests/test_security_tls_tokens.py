"""Issue 52: optional TLS, mutual TLS and bearer tokens, with their failures.

A CA, a server certificate (for 127.0.0.1 and localhost) and client certificates are made
at test time with the ``cryptography`` package (a dev dependency). Clients use gRPC's own
credentials: ``ssl_channel_credentials`` and ``access_token_call_credentials``, which sends
``authorization: Bearer <token>``.
"""

from __future__ import annotations

import datetime
import ipaddress
import logging
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from carrossel.v1 import rulesets_pb2, rulesets_pb2_grpc
from service.security import TlsFiles, TokenAuth
from service.server import ServeOptions
from tests.ops_helpers import own_server

x509 = pytest.importorskip(
    "cryptography.x509", reason="cryptography (a dev dependency) makes the test certificates"
)
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID  # noqa: E402

TOKENS = ("s3cret-token-one", "s3cret-token-two")


@dataclass(frozen=True)
class Pem:
    cert: bytes
    key: bytes


def _name(common: str) -> Any:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _issue(
    common: str, issuer: tuple[Any, Any] | None, *, ca: bool = False, server: bool = False
) -> tuple[Any, Any]:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    subject = _name(common)
    signer_name, signer_key = (subject, key) if issuer is None else (issuer[0].subject, issuer[1])
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(signer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if server:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        ).add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
    elif not ca:
        builder = builder.add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False
        )
    return builder.sign(signer_key, hashes.SHA256()), key


def _pem(pair: tuple[Any, Any]) -> Pem:
    cert, key = pair
    return Pem(
        cert.public_bytes(serialization.Encoding.PEM),
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
    )


@dataclass(frozen=True)
class Pki:
    ca: Pem
    server: Pem
    client: Pem
    stranger: Pem  # a client certificate from a CA the server does not trust
    files: TlsFiles
    mutual: TlsFiles


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    ca = _issue("carrossel test CA", None, ca=True)
    other_ca = _issue("someone else's CA", None, ca=True)
    made = Pki(
        _pem(ca),
        _pem(_issue("carrossel server", ca, server=True)),
        _pem(_issue("game server", ca)),
        _pem(_issue("intruder", other_ca)),
        TlsFiles(Path(), Path()),
        TlsFiles(Path(), Path()),
    )
    folder = tmp_path_factory.mktemp("pki")
    for name, data in (
        ("ca.pem", made.ca.cert),
        ("server.pem", made.server.cert),
        ("server.key", made.server.key),
    ):
        (folder / name).write_bytes(data)
    files = TlsFiles(folder / "server.pem", folder / "server.key")
    mutual = TlsFiles(files.cert, files.key, folder / "ca.pem")
    return Pki(made.ca, made.server, made.client, made.stranger, files, mutual)


def _list(channel: grpc.Channel, **kwargs: Any) -> Any:
    stub = rulesets_pb2_grpc.RulesetServiceStub(channel)
    return stub.ListRulesets(rulesets_pb2.ListRulesetsRequest(), timeout=10, **kwargs)


def _code(channel: grpc.Channel, **kwargs: Any) -> grpc.StatusCode:
    try:
        _list(channel, **kwargs)
    except grpc.RpcError as error:
        code: grpc.StatusCode = error.code()
        return code
    return grpc.StatusCode.OK


def _secure(port: int, credentials: grpc.ChannelCredentials) -> grpc.Channel:
    return grpc.secure_channel(f"127.0.0.1:{port}", credentials)


def test_tls_serves_a_client_that_trusts_the_ca(pki: Pki) -> None:
    with own_server(ServeOptions(tls=pki.files)) as server:
        trusted = grpc.ssl_channel_credentials(root_certificates=pki.ca.cert)
        with _secure(server.port, trusted) as channel:
            assert _list(channel).rulesets
        with grpc.insecure_channel(f"127.0.0.1:{server.port}") as plain:
            assert _code(plain) is grpc.StatusCode.UNAVAILABLE
        untrusting = grpc.ssl_channel_credentials(root_certificates=pki.stranger.cert)
        with _secure(server.port, untrusting) as channel:
            assert _code(channel) is grpc.StatusCode.UNAVAILABLE


def test_mutual_tls_needs_a_client_certificate_from_the_ca(pki: Pki) -> None:
    with own_server(ServeOptions(tls=pki.mutual)) as server:
        good = grpc.ssl_channel_credentials(pki.ca.cert, pki.client.key, pki.client.cert)
        with _secure(server.port, good) as channel:
            assert _list(channel).rulesets
        anonymous = grpc.ssl_channel_credentials(root_certificates=pki.ca.cert)
        with _secure(server.port, anonymous) as channel:
            assert _code(channel) is grpc.StatusCode.UNAVAILABLE
        stranger = grpc.ssl_channel_credentials(pki.ca.cert, pki.stranger.key, pki.stranger.cert)
        with _secure(server.port, stranger) as channel:
            assert _code(channel) is grpc.StatusCode.UNAVAILABLE


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "tokens"
    path.write_text("# one token per line\n\n" + "\n".join(TOKENS) + "\n")
    return path


@pytest.fixture
def token_server(token_file: Path) -> Iterator[int]:
    with own_server(ServeOptions(token_file=token_file)) as server:
        yield server.port


def _bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def test_a_missing_or_wrong_token_is_unauthenticated(
    token_server: int, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with grpc.insecure_channel(f"127.0.0.1:{token_server}") as channel:
        assert _code(channel) is grpc.StatusCode.UNAUTHENTICATED
        wrong = "s3cret-token-onf"
        assert _code(channel, metadata=_bearer(wrong)) is grpc.StatusCode.UNAUTHENTICATED
        assert _code(channel, metadata=_bearer("")) is grpc.StatusCode.UNAUTHENTICATED
        basic = (("authorization", f"Basic {TOKENS[0]}"),)
        assert _code(channel, metadata=basic) is grpc.StatusCode.UNAUTHENTICATED
        for token in TOKENS:
            assert _list(channel, metadata=_bearer(token)).rulesets
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "s3cret" not in logged


def test_health_stays_open_and_reflection_needs_the_token(token_server: int) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{token_server}") as channel:
        health = health_pb2_grpc.HealthStub(channel)
        assert health.Check(health_pb2.HealthCheckRequest(), timeout=10).status == (
            health_pb2.HealthCheckResponse.SERVING
        )
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        with pytest.raises(grpc.RpcError) as refused:
            list(reflection.ServerReflectionInfo(iter([request]), timeout=10))
        assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED
        replies = reflection.ServerReflectionInfo(
            iter([request]), timeout=10, metadata=_bearer(TOKENS[1])
        )
        assert list(replies)


def test_tls_and_a_token_together_through_grpcs_own_credentials(pki: Pki, token_file: Path) -> None:
    with own_server(ServeOptions(tls=pki.files, token_file=token_file)) as server:
        tls = grpc.ssl_channel_credentials(root_certificates=pki.ca.cert)
        with_token = grpc.composite_channel_credentials(
            tls, grpc.access_token_call_credentials(TOKENS[0])
        )
        with _secure(server.port, with_token) as channel:
            assert _list(channel).rulesets
        with _secure(server.port, tls) as channel:
            assert _code(channel) is grpc.StatusCode.UNAUTHENTICATED


def test_tokens_compare_whole_tokens_only() -> None:
    auth = TokenAuth(TOKENS)
    assert auth.allows(_bearer(TOKENS[0]))
    assert auth.allows((("authorization", f"bearer {TOKENS[1]}".encode()),))
    for offered in (TOKENS[0][:-1], TOKENS[0] + "x", "", TOKENS[0].upper()):
        assert not auth.allows(_bearer(offered))
    assert not auth.allows(None)
    assert not auth.allows((("authorization", "Bearer " + "x" * 100_000),))


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--tls-cert", "server.pem"], "--tls-cert and --tls-key go together"),
        (["--auth-token-file", "/nonexistent/tokens"], "cannot read the token file"),
    ],
)
def test_serve_refuses_an_incomplete_setup(flags: list[str], message: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "serve", "--port", "0", *flags],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert message in done.stderr
