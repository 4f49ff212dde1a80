"""The reference web service: an ASGI app (Starlette) that starts, lists, streams, stops and cancels runs."""

from __future__ import annotations

import contextlib
import dataclasses
import hmac
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.routing import Route

from cadence import start_run
from cadence.callbacks import missing_credentials
from cadence.validation import check_positive_number

from ._http import (
    ServiceError,
    decode_body,
    handle_http_error,
    handle_internal_error,
    handle_service_error,
    last_event_id,
    output_path,
    read_body,
    reply,
)
from ._openapi import openapi_document
from ._presets import DATASETS, MODELS, Job, build_job
from ._records import RunRecord, RunTable
from ._schema import HealthView, RunListView
from ._sse import EventStreamResponse, frames

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from anyio.abc import TaskGroup
    from starlette.requests import Request

    from ._schema import RunRequest

__all__ = ["create_app"]

_SHUTDOWN_S = 30.0
UPLOAD_SCHEMES = ("s3", "gs", "az")
"""Upload destinations clients may ask for; credentials come from the server's environment."""


def create_app(
    output_dir: str | Path,
    *,
    max_runs: int = 2,
    token: str | None = None,
    history: int = 4096,
    keep_finished: int = 100,
    heartbeat_s: float = 15.0,
    max_streams_per_client: int = 16,
) -> Starlette:
    """Return the service as an ASGI application (serve it with uvicorn, or `cadence serve`).

    Args:
        output_dir: Where runs write their files, each in its own subdirectory; created if missing.
        max_runs: How many runs may train at once; `POST /runs` answers 429 beyond.
        token: If set, `POST` and `DELETE` requests need `Authorization: Bearer <token>`.
        history: How many events the server keeps per run for streaming and resuming.
        keep_finished: How many ended runs `GET /runs` keeps listing.
        heartbeat_s: Seconds between keep-alive comments on an idle event stream.
        max_streams_per_client: Event streams one client address may hold open at once;
            `GET /runs/{id}/events` answers 429 beyond.

    Raises:
        ValueError: An argument is out of range.
        TypeError: An argument has the wrong type.
    """
    service = _Service(
        _checked_dir(output_dir), max_runs=_positive("max_runs", max_runs),
        token=_checked_token(token), history=_positive("history", history),
        keep_finished=_positive("keep_finished", keep_finished, zero=True),
        heartbeat_s=check_positive_number(heartbeat_s, "heartbeat_s", "create_app"),
        max_streams_per_client=_positive("max_streams_per_client", max_streams_per_client),
    )  # fmt: skip
    routes = [
        Route("/health", service.health, methods=["GET"]),
        Route("/runs", service.list_runs, methods=["GET"]),
        Route("/runs", service.create_run, methods=["POST"]),
        Route("/runs/{run_id}", service.get_run, methods=["GET"]),
        Route("/runs/{run_id}", service.cancel_run, methods=["DELETE"]),
        Route("/runs/{run_id}/stop", service.stop_run, methods=["POST"]),
        Route("/runs/{run_id}/events", service.stream_events, methods=["GET"]),
        Route("/openapi.json", service.openapi, methods=["GET"]),
    ]
    return Starlette(
        routes=routes,
        lifespan=service.lifespan,
        exception_handlers={
            ServiceError: handle_service_error,
            HTTPException: handle_http_error,
            Exception: handle_internal_error,
        },
    )


@dataclasses.dataclass(eq=False)
class _Service:
    root: Path
    _: dataclasses.KW_ONLY
    max_runs: int
    token: str | None
    history: int
    keep_finished: dataclasses.InitVar[int]
    heartbeat_s: float
    max_streams_per_client: int
    streams: dict[str, int] = dataclasses.field(default_factory=dict)
    """Open event streams per client address."""
    reserved: int = 0
    """Runs being built, counted against `max_runs`."""
    claimed: set[Path] = dataclasses.field(default_factory=set)
    """Output directories of runs being built."""
    _tg: TaskGroup | None = dataclasses.field(default=None, init=False)

    def __post_init__(self, keep_finished: int) -> None:
        self.runs = RunTable(keep_finished)
        self.document = openapi_document(token=self.token is not None)

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tg:
            self._tg = tg
            try:
                yield
            finally:
                self._tg = None
                with anyio.CancelScope(shield=True), anyio.move_on_after(_SHUTDOWN_S):
                    for record in self.runs.active():
                        record.handle.cancel()
                    for record in self.runs.active():
                        with contextlib.suppress(Exception):
                            await record.handle.wait()
                tg.cancel_scope.cancel()

    # --- endpoints -------------------------------------------------------------------

    async def health(self, request: Request) -> Response:
        return reply(
            HealthView(
                status="ok", active_runs=len(self.runs.active()), max_runs=self.max_runs
            )
        )

    async def list_runs(self, request: Request) -> Response:
        return reply(RunListView(runs=[r.view() for r in self.runs.all()]))

    async def openapi(self, request: Request) -> Response:
        return reply(self.document)

    async def get_run(self, request: Request) -> Response:
        return reply(self._record(request).view())

    async def create_run(self, request: Request) -> Response:
        self._authorize(request)
        run_request = decode_body(await read_body(request))
        self._check_presets(run_request)
        output = self._output_dir(run_request)
        self._reserve(output)
        try:
            job = await self._build(run_request, output)
            record = self._start(job, run_request, output)
        finally:
            self.reserved -= 1
            self.claimed.discard(output)
        return reply(
            record.view(), status=201, headers={"Location": f"/runs/{record.id}"}
        )

    async def stop_run(self, request: Request) -> Response:
        self._authorize(request)
        record = self._running(request, "stop")
        record.handle.request_stop()
        return reply(record.view(), status=202)

    async def cancel_run(self, request: Request) -> Response:
        self._authorize(request)
        record = self._running(request, "cancel")
        record.handle.cancel()
        return reply(record.view(), status=202)

    async def stream_events(self, request: Request) -> Response:
        record = self._record(request)
        last_seen = last_event_id(request)
        if last_seen > record.last_id and not record.finished:
            raise ServiceError(
                400,
                f"Last-Event-ID {last_seen} is beyond run {record.id!r}'s latest event id {record.last_id}.",
            )
        if record.finished and last_seen >= record.last_id:
            return Response(
                status_code=204
            )  # the run ended and the client has everything
        client = request.client.host if request.client is not None else ""
        open_now = self.streams.get(client, 0)
        if open_now >= self.max_streams_per_client:
            raise ServiceError(
                429, f"This client already has {open_now} event streams open, the most this server allows "
                "per client; close one first.", {"Retry-After": "5"},
            )  # fmt: skip
        self.streams[client] = open_now + 1
        return EventStreamResponse(
            frames(record, last_seen, self.heartbeat_s),
            on_close=lambda: self._closed_stream(client),
        )

    def _closed_stream(self, client: str) -> None:
        left = self.streams.pop(client, 1) - 1
        if left > 0:
            self.streams[client] = left

    # --- helpers -----------------------------------------------------------------------

    async def _build(self, run_request: RunRequest, output: Path) -> Job:
        directory = output if run_request.checkpoint else None
        try:
            return await anyio.to_thread.run_sync(build_job, run_request, directory)
        except (TypeError, ValueError) as exc:  # a combination the presets cannot build
            raise ServiceError(422, f"Cannot build this run: {exc}") from None
        except (
            OSError
        ) as exc:  # its directory cannot be made (a file raced in, a full disk, ...)
            conflict = isinstance(exc, FileExistsError | NotADirectoryError)
            raise ServiceError(
                409 if conflict else 500,
                f"Cannot create the run's output directory: {exc.strerror or type(exc).__name__}.",
            ) from None  # the OS's text names the server's path: only its reason is shown

    def _start(self, job: Job, run_request: RunRequest, output: Path) -> RunRecord:
        tg = self._tg
        if tg is None:
            raise ServiceError(
                503, "The server is shutting down; no new runs are accepted."
            )
        handle = start_run(
            tg, job.model.fit_async, run_request.epochs, job.train, job.valid,
            job.eval_every or 1, job.callbacks,
        )  # fmt: skip
        record = RunRecord(
            handle,
            run_request,
            output if run_request.checkpoint else None,
            self.root,
            self.history,
        )
        record.uploader = job.uploader
        record.open_stream(queue_size=1024)
        self.runs.add(record)
        tg.start_soon(record.pump, name=f"cadence service events {record.id}")
        return record

    def _authorize(self, request: Request) -> None:
        if self.token is None:
            return
        given = request.headers.get("authorization", "")
        scheme, _, credentials = given.partition(" ")
        challenge = {"WWW-Authenticate": 'Bearer realm="cadence"'}
        if scheme.lower() != "bearer" or not credentials:
            raise ServiceError(
                401,
                "This server needs a bearer token: send `Authorization: Bearer <token>`.",
                challenge,
            )
        if not hmac.compare_digest(credentials.strip().encode(), self.token.encode()):
            raise ServiceError(
                401, "The bearer token is not valid for this server.", challenge
            )

    def _record(self, request: Request) -> RunRecord:
        run_id = request.path_params["run_id"]
        record = self.runs.get(run_id)
        if record is None:
            raise ServiceError(
                404, f"No run with id {run_id!r}; `GET /runs` lists the runs."
            )
        return record

    def _running(self, request: Request, action: str) -> RunRecord:
        record = self._record(request)
        if record.handle.done:
            raise ServiceError(
                409,
                f"Run {record.id!r} already ended ({record.handle.status}); there is nothing to {action}.",
            )
        return record

    def _check_presets(self, run_request: RunRequest) -> None:
        if run_request.model not in MODELS:
            raise ServiceError(
                422,
                f"Unknown model preset {run_request.model!r} at `$.model`; known presets: {_names(MODELS)}.",
            )
        if run_request.dataset not in DATASETS:
            raise ServiceError(
                422,
                f"Unknown data set preset {run_request.dataset!r} at `$.dataset`; known presets: {_names(DATASETS)}.",
            )
        if run_request.upload is not None:
            self._check_upload(run_request)

    def _check_upload(self, run_request: RunRequest) -> None:
        upload = run_request.upload or ""
        scheme = upload.partition("://")[0] if "://" in upload else ""
        if scheme == "file":
            raise ServiceError(
                422, f"`$.upload` may not be a file:// URL, got {upload!r}: clients may not choose where this "
                "server writes files. Checkpoints are kept in the run's `output` directory anyway.",
            )  # fmt: skip
        if scheme == "memory":
            raise ServiceError(
                422, f"`$.upload` may not be a memory:// URL, got {upload!r}: its objects would stay in this "
                "server's memory for as long as it runs. Checkpoints are kept in the run's `output` directory anyway.",
            )  # fmt: skip
        if scheme not in UPLOAD_SCHEMES:
            raise ServiceError(
                422, f"`$.upload` must be an object-store URL ({', '.join(s + '://' for s in UPLOAD_SCHEMES)}), "
                f"got {upload!r}.",
            )  # fmt: skip
        if run_request.checkpoint is None:
            raise ServiceError(
                422,
                "`$.upload` needs `$.checkpoint`: only saved checkpoints are uploaded.",
            )
        missing = missing_credentials(upload)
        if (
            missing is not None
        ):  # found now, not after training, when the first upload fails
            raise ServiceError(
                422, f"`$.upload` cannot be used on this server: {missing}"
            )

    def _output_dir(self, run_request: RunRequest) -> Path:
        name = (
            run_request.output
            if run_request.output is not None
            else uuid.uuid4().hex[:12]
        )
        path = output_path(self.root, name)
        busy = {r.output for r in self.runs.active()} | self.claimed
        if path in busy:
            raise ServiceError(
                409,
                f"Output directory {name!r} is in use by a running run; choose another `output`.",
            )
        return path

    def _reserve(self, output: Path) -> None:
        active = len(self.runs.active()) + self.reserved
        if active >= self.max_runs:
            raise ServiceError(
                429, f"{active} runs are already running and this server runs at most {self.max_runs} at once; "
                "try again when one has ended (or stop one).", {"Retry-After": "5"},
            )  # fmt: skip
        self.reserved += 1
        self.claimed.add(output)


def _names(table: dict[str, Any]) -> str:
    return ", ".join(repr(n) for n in sorted(table))


# --- argument checks ------------------------------------------------------------------------


def _checked_dir(output_dir: Any) -> Path:
    if not isinstance(output_dir, str | Path):
        raise TypeError(
            f"For 'create_app', the argument 'output_dir' must be a str or Path, but got {output_dir!r}."
        )
    path = Path(output_dir).resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


def _positive(name: str, value: Any, *, zero: bool = False) -> int:
    if (
        not isinstance(value, int)
        or isinstance(value, bool)
        or value < (0 if zero else 1)
    ):
        bound = ">= 0" if zero else "> 0"
        raise ValueError(
            f"For 'create_app', the argument {name!r} must be an int {bound}, but got {value!r}."
        )
    return value


def _checked_token(token: Any) -> str | None:
    if token is not None and (not isinstance(token, str) or not token.strip()):
        raise ValueError(
            "For 'create_app', the argument 'token' must be a non-blank str or None."
        )
    return token
