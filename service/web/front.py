"""The HTTP front of ``carrossel serve --http-port N``: the referee's page and the Connect API.

``GET /`` and the page's other ``STATIC_FILES`` serve the shipped files of
``service/web/static``, read into memory at start: a request's path is only ever a key of
that table, never a file name. ``POST /carrossel.v1.<Service>/<Method>`` is a Connect unary
call (``connect.py``), forwarded to the gRPC server on the same host. The stdlib's threading
HTTP server is enough for a page a referee opens: every call's work is done, and bounded, by
the gRPC server.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources

import grpc

from service import limits
from service.web.connect import (
    JSON,
    PROTO,
    ConnectError,
    Forwarder,
    Reply,
    decode_request,
    encode_response,
    media_type,
    timeout_seconds,
)

log = logging.getLogger("carrossel.web")

MAX_CALLS_IN_FLIGHT = 32
"""Calls the front forwards at once; past that a call is RESOURCE_EXHAUSTED at once (the gRPC
server has its own, larger bounds: this only keeps the front's threads few)."""

IDLE_SECONDS = 30
"""A connection that sends nothing for this long (an idle keep-alive, a stalled body) closes."""

# Each shipped file: its URL path, its name in static/ and its content type.
STATIC_FILES = (
    ("/", "index.html", "text/html; charset=utf-8"),
    ("/referee.js", "referee.js", "text/javascript; charset=utf-8"),
    ("/referee.css", "referee.css", "text/css; charset=utf-8"),
    ("/favicon.svg", "favicon.svg", "image/svg+xml"),
)

# The page runs only its own script and style, is never framed and leaks no referrer.
SECURITY_HEADERS = (
    (
        "Content-Security-Policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-cache"),
)


@dataclass(frozen=True)
class StaticFile:
    content_type: str
    body: bytes


def load_static() -> Mapping[str, StaticFile]:
    """The shipped files by URL path, read once from the installed package."""
    folder = resources.files("service.web") / "static"
    return {
        path: StaticFile(content_type, (folder / name).read_bytes())
        for path, name, content_type in STATIC_FILES
    }


class FrontHandler(BaseHTTPRequestHandler):
    """One connection's requests; the server object carries the routes and the files."""

    server: FrontServer
    protocol_version = "HTTP/1.1"  # keep-alive, so the page's calls reuse one connection
    timeout = IDLE_SECONDS
    # Headers and body leave in one write (the buffer is flushed after each request), and
    # without Nagle's delay: else a kept-alive client waits ~40 ms for a delayed ACK per call.
    wbufsize = 1 << 16
    disable_nagle_algorithm = True

    def version_string(self) -> str:
        """The Server header names the front, not the Python version behind it."""
        return "carrossel-web"

    def do_GET(self) -> None:
        self._send_static(head=False)

    def do_HEAD(self) -> None:
        self._send_static(head=True)

    def do_POST(self) -> None:
        try:
            reply = self._answer_call()
        except ConnectError as error:
            reply = error.reply()
        except Exception:  # a bug here still answers, as the gRPC interceptor's INTERNAL does
            log.exception("unexpected error in the web front for %s", self.path[:100])
            reply = ConnectError(
                grpc.StatusCode.INTERNAL,
                "The web front failed while answering; this is a bug in carrossel.",
            ).reply()
        self._send(reply.status, reply.content_type, reply.body)

    def _send_static(self, *, head: bool) -> None:
        path = self.path.split("?", 1)[0]
        found = self.server.static.get(path)
        if found is None:
            self._send(HTTPStatus.NOT_FOUND, "text/plain; charset=utf-8", b"not found\n", head)
            return
        self._send(HTTPStatus.OK, found.content_type, found.body, head)

    def _answer_call(self) -> Reply:
        # The body is read first, whatever the answer: left unread, a kept-alive connection
        # would take it for the next request.
        body = self._read_body()
        route = self.server.forwarder.route(self.path)
        if route is None:
            raise ConnectError(
                grpc.StatusCode.UNIMPLEMENTED, f"no such method: {self.path[:100]}", http=404
            )
        content_type = media_type(self.headers.get("Content-Type"))
        if content_type not in (JSON, PROTO):
            raise ConnectError(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"send {JSON} or {PROTO}, not {content_type or 'no content type'}",
                http=HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
            )
        encoding = self.headers.get("Content-Encoding", "identity").strip().lower()
        if encoding != "identity":
            raise ConnectError(grpc.StatusCode.UNIMPLEMENTED, "send an uncompressed body")
        timeout = timeout_seconds(self.headers.get("Connect-Timeout-Ms"))
        request = decode_request(route, content_type, body)
        if not self.server.slots.acquire(blocking=False):
            raise ConnectError(grpc.StatusCode.RESOURCE_EXHAUSTED, "too many calls at once")
        try:
            headers = {name.lower(): value for name, value in self.headers.items()}
            answer = self.server.forwarder.call(route, request, timeout, headers)
        finally:
            self.server.slots.release()
        return encode_response(answer, content_type)

    def _read_body(self) -> bytes:
        """The request body, whose length must be given and within the message bound."""
        length_text = self.headers.get("Content-Length")
        if length_text is None or not length_text.strip().isdigit():
            self.close_connection = True  # a body we cannot delimit cannot be skipped either
            raise ConnectError(grpc.StatusCode.INVALID_ARGUMENT, "send a Content-Length", http=411)
        length = int(length_text)
        if length > limits.MAX_MESSAGE_BYTES:
            self.close_connection = True  # the unread body would be taken for a request
            raise ConnectError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"the body has {length} bytes; the most is {limits.MAX_MESSAGE_BYTES}",
            )
        try:
            body = self.rfile.read(length)
        except OSError:  # the idle timeout: a body that stalls
            body = b""
        if len(body) < length:  # the client stopped sending: nothing left to answer on
            self.close_connection = True
            raise ConnectError(grpc.StatusCode.CANCELLED, "the body ended before its length")
        return body

    def _send(self, status: int, content_type: str, body: bytes, head: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        for name, value in SECURITY_HEADERS:
            self.send_header(name, value)
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Access lines go to the ``carrossel.web`` logger instead of bare stderr."""
        log.info("%s %s", self.address_string(), format % args)


class FrontServer(ThreadingHTTPServer):
    """The HTTP server with what its handlers share: files, routes and the in-flight bound."""

    daemon_threads = True  # a connection left open never holds up the process's exit

    def __init__(self, address: tuple[str, int], forwarder: Forwarder):
        host = address[0]
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.static = load_static()
        self.forwarder = forwarder
        self.slots = threading.BoundedSemaphore(MAX_CALLS_IN_FLIGHT)
        super().__init__(address, FrontHandler)


class WebFront:
    """A started HTTP front: its port, and ``stop()`` for the server's shutdown."""

    def __init__(self, httpd: FrontServer, channel: grpc.Channel):
        self._httpd = httpd
        self._channel = channel
        self._thread = threading.Thread(
            target=httpd.serve_forever, name="carrossel-web", daemon=True
        )
        self._thread.start()

    @property
    def port(self) -> int:
        port: int = self._httpd.server_address[1]
        return port

    def stop(self) -> None:
        """Stop accepting, close the listening socket and the channel to the gRPC server."""
        self._httpd.shutdown()
        self._httpd.server_close()
        self._channel.close()


def grpc_target(host: str, port: int) -> str:
    """Where the front reaches the gRPC server bound to ``host``: a wildcard address is
    reached on the loopback, any other address as itself."""
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def start_front(host: str, http_port: int, grpc_port: int) -> WebFront:
    """Serve the page and the Connect API on ``host:http_port`` (0 picks a free port)."""
    channel = grpc.insecure_channel(
        grpc_target(host, grpc_port),
        options=[
            ("grpc.max_receive_message_length", limits.MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", limits.MAX_MESSAGE_BYTES),
        ],
    )
    try:
        httpd = FrontServer((host, http_port), Forwarder(channel))
    except OSError:
        channel.close()
        raise
    return WebFront(httpd, channel)
