"""``carrossel serve [--port N] [--host H] [--http-port M] [TLS, token, metrics flags]``: serve
until SIGTERM or Ctrl-C; ``--http-port`` adds the referee's page and the Connect JSON API
(docs/referee-page.md), the other flags are docs/deploy.md's.
"""

from __future__ import annotations

import argparse

from service import serve_flags
from service.cli.commands import Subparsers


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser("serve", help="serve the gRPC API (health and reflection on)")
    parser.add_argument("--port", type=int, default=50051, help="TCP port (default 50051)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument(
        "--http-port",
        type=int,
        default=None,
        help="also serve the referee's page and the Connect JSON API on this port of the same "
        "host (off by default)",
    )
    serve_flags.add_arguments(parser)  # TLS, tokens, metrics, capacity
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from service.server import serve  # imported here so the other commands start fast

    return serve(
        args.port,
        args.host,
        http_port=args.http_port,
        options=serve_flags.options_from_args(args),
        workers=serve_flags.workers_from_args(args),
    )
