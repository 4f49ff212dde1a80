"""`cadence serve`: run the reference web service (`cadence.service`) with uvicorn or Hypercorn (trio)."""

from __future__ import annotations

import argparse
import ipaddress
import os
import signal
import sys
from typing import TYPE_CHECKING, Any

from ._cli import UsageError

if TYPE_CHECKING:
    from argparse import _SubParsersAction

__all__ = ["TOKEN_ENV", "exposure_warning", "register", "run"]

TOKEN_ENV = "CADENCE_SERVE_TOKEN"


def register(subparsers: _SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `serve` subcommand."""
    parser = subparsers.add_parser(
        "serve",
        help="serve the web API that starts, streams, stops and cancels training runs",
        description="Serve cadence's reference web service: POST /runs starts a training run, "
        "GET /runs/{id}/events streams its events (Server-Sent Events), POST /runs/{id}/stop stops it, "
        "DELETE /runs/{id} cancels it. See docs/embedding.md.",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1: this machine only)",
    )
    parser.add_argument(
        "--port",
        type=_port,
        default=8000,
        help="port to bind (default 8000; 0 picks a free one)",
    )
    parser.add_argument(
        "--output-dir",
        default="cadence-runs",
        help="directory for the runs' files (default ./cadence-runs)",
    )
    parser.add_argument(
        "--max-runs",
        type=_positive_int,
        default=2,
        help="runs training at once (default 2)",
    )
    parser.add_argument(
        "--token",
        default=None,
        help=f"require `Authorization: Bearer TOKEN` on POST and DELETE (default: ${TOKEN_ENV}, else none)",
    )
    parser.add_argument(
        "--history",
        type=_positive_int,
        default=4096,
        help="events kept per run for streaming (default 4096)",
    )
    parser.add_argument(
        "--server",
        choices=["uvicorn", "hypercorn-trio"],
        default="uvicorn",
        help="the ASGI server: uvicorn (asyncio, the default) or Hypercorn's trio worker",
    )
    parser.add_argument(
        "--header-timeout",
        type=_positive_float,
        default=10.0,
        metavar="SECONDS",
        help="close a connection whose request line and headers take longer (default 10)",
    )
    parser.add_argument(
        "--keep-alive",
        type=_positive_float,
        default=5.0,
        metavar="SECONDS",
        help="close an idle keep-alive connection after this long (default 5)",
    )
    parser.add_argument(
        "--max-connections",
        type=_positive_int,
        default=2048,
        help="connections served at once; requests beyond get 503 (default 2048)",
    )
    parser.add_argument(
        "--max-streams-per-client",
        type=_positive_int,
        default=16,
        help="event streams one client address may hold open (default 16)",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
    )
    parser.set_defaults(func=run)


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


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(
            f"expected a port number from 0 to 65535, got {text!r}"
        )
    return int(text)


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) == 0:
        raise argparse.ArgumentTypeError(
            f"expected a positive whole number, got {text!r}"
        )
    return int(text)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(
            f"expected a number of seconds > 0, got {text!r}"
        )
    return value


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

    from cadence.service._serving import hypercorn_config, serve_trio

    host = f"[{args.host}]" if ":" in args.host else args.host
    config = hypercorn_config(limits, f"{host}:{args.port}", args.log_level)

    async def until_signalled() -> None:
        # Ctrl-C and SIGTERM shut down gracefully (runs cancelled, the lifespan ended).
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                return

    trio.run(serve_trio, app, config, limits, until_signalled)
    return 0
