"""`cadence serve`: run the reference web service (`cadence.service`) with uvicorn or Hypercorn (trio)."""

from __future__ import annotations

import ipaddress
import os
import signal
import sys
from typing import TYPE_CHECKING, Any

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
        from cadence.service import ServerLimits, create_app
        from cadence.service._serving import raise_open_files_limit

        if args.server == "uvicorn":
            import uvicorn
        else:
            import hypercorn  # noqa: F401
            import trio  # noqa: F401
    except ImportError as exc:
        raise UsageError(
            f"{exc} (for example: pip install 'cadence[service]')"
        ) from None
    token = args.token if args.token is not None else os.environ.get(TOKEN_ENV) or None
    warning = exposure_warning(args.host, token)
    if warning is not None:
        print(f"cadence serve: warning: {warning}", file=sys.stderr)
    limits = ServerLimits(
        header_timeout_s=args.header_timeout, keep_alive_s=args.keep_alive,
        max_connections=args.max_connections,
    )  # fmt: skip
    raise_open_files_limit(limits)
    app = create_app(
        args.output_dir, max_runs=args.max_runs, token=token, history=args.history,
        max_streams_per_client=args.max_streams_per_client,
    )  # fmt: skip
    if args.server == "hypercorn-trio":
        return _run_hypercorn(app, limits, args)
    from cadence.service._serving import uvicorn_config

    config = uvicorn_config(
        app, limits, host=args.host, port=args.port, log_level=args.log_level,
        timeout_graceful_shutdown=5,
    )  # fmt: skip
    # uvicorn shuts down gracefully on SIGINT and SIGTERM, then re-raises the signal for
    # the handler that was there before: Ctrl-C's KeyboardInterrupt, SIGTERM's no-op here.
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: None)
    try:
        uvicorn.Server(config).run()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0


def _run_hypercorn(app: Any, limits: Any, args: argparse.Namespace) -> int:
    import trio

    from cadence.service import hypercorn_config, serve_trio

    host = f"[{args.host}]" if ":" in args.host else args.host
    config = hypercorn_config(limits, f"{host}:{args.port}", args.log_level)

    async def until_signalled() -> None:
        # Ctrl-C and SIGTERM shut down gracefully (runs cancelled, the lifespan ended).
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                return

    trio.run(serve_trio, app, config, limits, until_signalled)
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
            "--server",
            choices=["uvicorn", "hypercorn-trio"],
            default="uvicorn",
            help="the ASGI server: uvicorn (asyncio, the default) or Hypercorn's trio worker",
        ),
        arg(
            "--header-timeout",
            type=_arg_types.positive_float,
            default=10.0,
            metavar="SECONDS",
            help="close a connection whose request line and headers take longer (default 10)",
        ),
        arg(
            "--keep-alive",
            type=_arg_types.positive_float,
            default=5.0,
            metavar="SECONDS",
            help="close an idle keep-alive connection after this long (default 5)",
        ),
        arg(
            "--max-connections",
            type=_arg_types.positive_int,
            default=2048,
            help="connections served at once; requests beyond get 503 (default 2048)",
        ),
        arg(
            "--max-streams-per-client",
            type=_arg_types.positive_int,
            default=16,
            help="event streams one client address may hold open (default 16)",
        ),
        arg(
            "--log-level",
            default="info",
            choices=["critical", "error", "warning", "info", "debug"],
        ),
    ),
    run=run,
)
