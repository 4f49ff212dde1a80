"""`cadence serve`: run the reference web service (`cadence.service`) with uvicorn."""

from __future__ import annotations

import ipaddress
import os
import sys
from typing import TYPE_CHECKING

from . import _arg_types
from ._command import Command, UsageError, arg

if TYPE_CHECKING:
    import argparse

__all__ = ["COMMAND", "TOKEN_ENV", "exposure_warning", "run"]

TOKEN_ENV = "CADENCE_SERVE_TOKEN"


def exposure_warning(host: str, token: str | None) -> str | None:
    """Return a warning when `host` is reachable from other machines and no token protects the API."""
    if token is not None or host == "localhost":
        return None
    try:
        if ipaddress.ip_address(host).is_loopback:
            return None
    except ValueError:
        pass  # a host name: assume it is reachable
    return (
        f"listening on {host} without a token: anyone who can reach this port can start and cancel "
        f"runs (set --token or ${TOKEN_ENV})"
    )


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; return the exit status."""
    try:
        import uvicorn

        from cadence.service import create_app
    except ImportError as exc:
        raise UsageError(
            f"{exc} (for example: pip install 'cadence[service]')"
        ) from None
    token = args.token if args.token is not None else os.environ.get(TOKEN_ENV) or None
    warning = exposure_warning(args.host, token)
    if warning is not None:
        print(f"cadence serve: warning: {warning}", file=sys.stderr)
    app = create_app(
        args.output_dir, max_runs=args.max_runs, token=token, history=args.history
    )
    uvicorn.run(
        app, host=args.host, port=args.port, log_level=args.log_level, ws="none",
        timeout_graceful_shutdown=5,
    )  # fmt: skip
    return 0


COMMAND = Command(
    name="serve",
    help="serve the web API that starts, streams, stops and cancels training runs",
    description="Serve cadence's reference web service: POST /runs starts a training run, "
    "GET /runs/{id}/events streams its events (Server-Sent Events), POST /runs/{id}/stop stops it, "
    "DELETE /runs/{id} cancels it. See docs/embedding.md.",
    args=(
        arg(
            "--host",
            default="127.0.0.1",
            help="address to bind (default 127.0.0.1: this machine only)",
        ),
        arg(
            "--port",
            type=_arg_types.port,
            default=8000,
            help="port to bind (default 8000; 0 picks a free one)",
        ),
        arg(
            "--output-dir",
            default="cadence-runs",
            help="directory for the runs' files (default ./cadence-runs)",
        ),
        arg(
            "--max-runs",
            type=_arg_types.positive_int,
            default=2,
            help="runs training at once (default 2)",
        ),
        arg(
            "--token",
            default=None,
            help=f"require `Authorization: Bearer TOKEN` on POST and DELETE (default: ${TOKEN_ENV}, else none)",
        ),
        arg(
            "--history",
            type=_arg_types.positive_int,
            default=4096,
            help="events kept per run for streaming (default 4096)",
        ),
        arg(
            "--log-level",
            default="info",
            choices=["critical", "error", "warning", "info", "debug"],
        ),
    ),
    run=run,
)
