"""HTTP plumbing of the service: errors as JSON, JSON replies, and reading what clients send."""

from __future__ import annotations

import logging
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import anyio
import msgspec
from starlette.exceptions import HTTPException
from starlette.responses import Response

from ._schema import ErrorView, decode_run_request

if TYPE_CHECKING:
    from starlette.requests import Request

    from ._schema import RunRequest

__all__ = [
    "MAX_BODY_BYTES",
    "ServiceError",
    "decode_body",
    "handle_http_error",
    "handle_internal_error",
    "handle_service_error",
    "last_event_id",
    "output_path",
    "read_body",
    "reply",
]

MAX_BODY_BYTES = 64 * 1024
BODY_TIMEOUT_S = 30.0
_log = logging.getLogger("cadence.service")


class ServiceError(Exception):
    """An error answered to the client as `{"error": message}` with an HTTP status."""

    def __init__(
        self, status: int, message: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers


# --- request parsing ------------------------------------------------------------------


async def read_body(request: Request) -> bytes:
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > MAX_BODY_BYTES:
        raise ServiceError(
            413, f"The request body is {length} bytes; the limit is {MAX_BODY_BYTES}."
        )
    body = bytearray()
    with anyio.move_on_after(
        BODY_TIMEOUT_S
    ) as late:  # a client trickling its body holds no task forever
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY_BYTES:
                raise ServiceError(
                    413,
                    f"The request body is over the limit of {MAX_BODY_BYTES} bytes.",
                )
    if late.cancelled_caught:
        raise ServiceError(
            408,
            f"The request body did not arrive within {BODY_TIMEOUT_S:g} s.",
            {"Connection": "close"},
        )
    return bytes(body)


def decode_body(body: bytes) -> RunRequest:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        # JSON is UTF-8 (RFC 8259); say where the bad byte is rather than fail later on it.
        raise ServiceError(
            400, f"The request body is not valid UTF-8: byte {exc.start} (0x{body[exc.start]:02x}) "
            "cannot start or continue a character.",
        ) from None  # fmt: skip
    try:
        return decode_run_request(body)
    except msgspec.ValidationError as exc:
        raise ServiceError(422, f"Invalid run request: {exc}.") from None
    except msgspec.DecodeError as exc:
        raise ServiceError(400, f"The request body is not valid JSON: {exc}.") from None


def last_event_id(request: Request) -> int:
    text = request.headers.get(
        "last-event-id", request.query_params.get("last_event_id", "0")
    ).strip()
    if not text.isdigit() or len(text) > 18:
        raise ServiceError(
            400,
            f"Last-Event-ID must be a whole number >= 0 (an event id this server sent), got {text!r}.",
        )
    return int(text)


def output_path(root: Path, name: str) -> Path:
    pure = PurePosixPath(name)
    bad = "\x00" in name or "\\" in name or pure.is_absolute() or ".." in pure.parts
    path = root if bad else (root / pure).resolve()
    if path == root or not path.is_relative_to(root):
        raise ServiceError(
            422, f"`$.output` must be a relative path that stays inside the server's output directory "
            f"(no '..', no leading '/'), got {name!r}.",
        )  # fmt: skip
    for part in (path, *path.parents):
        if part == root:
            break
        if part.exists() and not part.is_dir():
            # Named relative to the output directory: clients never see the server's layout.
            raise ServiceError(
                409, f"`$.output` {name!r} cannot be a directory: "
                f"{str(part.relative_to(root))!r} is an existing file.",
            )  # fmt: skip
    return path


# --- responses ----------------------------------------------------------------------------


def _enc_hook(obj: Any) -> Any:
    item = getattr(obj, "item", None)  # numpy scalars in metrics
    if callable(item):
        return item()
    raise NotImplementedError(f"cannot encode objects of type {type(obj).__name__!r}")


_encoder = msgspec.json.Encoder(enc_hook=_enc_hook)


def reply(
    body: Any, status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    return Response(
        _encoder.encode(body),
        status_code=status,
        headers=headers,
        media_type="application/json",
    )


async def handle_service_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ServiceError)
    return reply(ErrorView(error=exc.message), exc.status, exc.headers)


async def handle_http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    message = exc.detail
    if exc.status_code == 404:
        message = f"No such endpoint: {request.method} {request.url.path}."
    elif exc.status_code == 405:
        message = f"{request.method} is not allowed on {request.url.path}."
    return reply(
        ErrorView(error=str(message)), exc.status_code, dict(exc.headers or {})
    )


async def handle_internal_error(request: Request, exc: Exception) -> Response:
    # The exception's text may hold the server's paths or settings: it goes to the log only.
    _log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
    return reply(
        ErrorView(
            error=f"Internal error ({type(exc).__name__}); the server's log has the details."
        ),
        500,
    )
