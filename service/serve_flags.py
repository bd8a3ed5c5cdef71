"""``carrossel serve``'s deployment flags: TLS, tokens, metrics and capacity (issue 52).

Kept apart from the command's module so the command stays a few lines; ``add_arguments``
adds the flags and ``options_from_args`` turns them into ``service.server.ServeOptions``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when serving: the other commands start without grpc
    from service.server import ServeOptions


MAX_KEEP_WARM_S = 3600.0
"""The longest --keep-warm window taken: an hour of rehearsals is already a choice to make."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    tls = parser.add_argument_group("TLS and tokens (docs/deploy.md)")
    tls.add_argument("--tls-cert", type=Path, help="PEM certificate chain: serve TLS only")
    tls.add_argument("--tls-key", type=Path, help="PEM private key of --tls-cert")
    tls.add_argument(
        "--tls-client-ca",
        type=Path,
        help="PEM CA: every client must present a certificate it signed (mutual TLS)",
    )
    tls.add_argument(
        "--auth-token-file",
        type=Path,
        help="file of bearer tokens, one per line; calls must send 'authorization: Bearer "
        "<token>' (health stays open)",
    )
    ops = parser.add_argument_group("metrics and capacity")
    ops.add_argument(
        "--metrics-port", type=int, help="serve Prometheus metrics on this port (/metrics)"
    )
    ops.add_argument(
        "--metrics-host", default="127.0.0.1", help="address of --metrics-port (default 127.0.0.1)"
    )
    ops.add_argument(
        "--workers",
        type=int,
        default=None,
        help="server processes sharing the port (default: the cores this process may use)",
    )
    ops.add_argument("--threads", type=int, help="threads running calls, per process (default 16)")
    ops.add_argument(
        "--pin-calls",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="keep each process's call path (grpcio's threads, the cheap calls) on one core, "
        "solves on every core (default: on when the server's processes are as many as the "
        "cores it may use, as on a machine or cpuset of its own; off otherwise)",
    )
    ops.add_argument(
        "--keep-warm",
        type=float,
        metavar="SECONDS",
        help="after a SolveMove, solve it again on a spare core for this long, answer thrown "
        "away, so the next call finds the caches warm; 0 turns it off (default 1 where the "
        "process has 2 cores or more and no CPU quota, 0 otherwise)",
    )
    ops.add_argument(
        "--drain-seconds",
        type=float,
        help="on SIGTERM, answer NOT_SERVING this long before stopping (default 1)",
    )
    ops.add_argument(
        "--max-solves",
        type=int,
        help="solves at once, per process (default: one per core, the cores shared among "
        "the processes)",
    )
    ops.add_argument(
        "--solve-queue",
        type=int,
        help="solves that may wait for a slot, per process, each at most until its deadline; "
        "one more is refused at once with a retry hint (default 16)",
    )


def options_from_args(args: argparse.Namespace) -> ServeOptions:
    """The server's options; exits with a usage error for an incomplete TLS pair."""
    from service.security import TlsFiles
    from service.server import ServeOptions

    defaults = ServeOptions()
    if (
        (args.max_solves is not None and args.max_solves < 1)
        or (args.solve_queue is not None and args.solve_queue < 0)
        or (args.keep_warm is not None and not 0 <= args.keep_warm <= MAX_KEEP_WARM_S)
    ):
        raise SystemExit(
            "carrossel serve: --max-solves is 1 or more, --solve-queue 0 or more, "
            f"--keep-warm 0-{MAX_KEEP_WARM_S:g} seconds"
        )
    tls = None
    if args.tls_cert or args.tls_key or args.tls_client_ca:
        if not (args.tls_cert and args.tls_key):
            raise SystemExit("carrossel serve: --tls-cert and --tls-key go together")
        tls = TlsFiles(args.tls_cert, args.tls_key, args.tls_client_ca)
    return ServeOptions(
        tls=tls,
        token_file=args.auth_token_file,
        metrics_port=args.metrics_port,
        metrics_host=args.metrics_host,
        max_workers=args.threads or defaults.max_workers,
        max_concurrent_solves=args.max_solves or defaults.max_concurrent_solves,
        solve_queue=defaults.solve_queue if args.solve_queue is None else args.solve_queue,
        drain_seconds=(
            defaults.drain_seconds if args.drain_seconds is None else args.drain_seconds
        ),
        pin_calls=args.pin_calls,
        keep_warm_s=args.keep_warm,
    )


def workers_from_args(args: argparse.Namespace) -> int:
    """Server processes: ``--workers``, else one per core this process may use."""
    from service.workers import default_workers

    if args.workers is not None and args.workers < 1:
        raise SystemExit("carrossel serve: --workers must be 1 or more")
    return args.workers if args.workers is not None else default_workers()
