"""The service's API as an OpenAPI 3.1 document, its schemas generated from the msgspec types it uses.

The request and reply types in `_schema` are the ones the endpoints decode and
encode, so the document cannot drift from what the server does; only the paths,
status codes and prose are written here.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

import msgspec

from ._presets import DATASETS, MODELS
from ._schema import ErrorView, HealthView, RunListView, RunRequest, RunView

__all__ = ["openapi_document"]

_REF = "#/components/schemas/{name}"


def _version() -> str:
    try:
        return version("cadence")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0"


def _json(name: str, description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": _REF.format(name=name)}}},
    }


def _errors(*codes: int) -> dict[str, Any]:
    meaning = {
        400: "The body is not UTF-8 JSON, or a header is malformed.",
        401: "A bearer token is needed, or the one sent is not valid.",
        404: "No run with this id.",
        408: "The request body did not arrive in time.",
        409: "The run already ended, or the output directory is in use or is a file.",
        413: "The request body is too large.",
        422: "The request is well-formed but asks for something this server cannot do.",
        429: "Too many runs or event streams at once; see `Retry-After`.",
        503: "The server is shutting down.",
    }
    return {str(code): _json("ErrorView", meaning[code]) for code in codes}


def openapi_document(*, token: bool) -> dict[str, Any]:
    """Return the API description; `token`: whether mutating endpoints need a bearer token."""
    _, schemas = msgspec.json.schema_components(
        (RunRequest, RunView, RunListView, HealthView, ErrorView), ref_template=_REF
    )
    # Only the presets are accepted: say so (the decoder's own check names them in its 422).
    request = schemas["RunRequest"]["properties"]
    request["model"] = {**request["model"], "enum": sorted(MODELS)}
    request["dataset"] = {**request["dataset"], "enum": sorted(DATASETS)}
    run_id = {
        "name": "run_id", "in": "path", "required": True,
        "schema": {"type": "string"}, "description": "The run's id, as `POST /runs` returned it.",
    }  # fmt: skip
    secured: dict[str, Any] = {"security": [{"bearer": []}]} if token else {}
    run_reply = _json("RunView", "The run.")
    paths: dict[str, Any] = {
        "/health": {
            "get": {
                "summary": "Whether the server is up, and how busy it is.",
                "operationId": "health",
                "responses": {"200": _json("HealthView", "The server is up.")},
            }
        },
        "/runs": {
            "get": {
                "summary": "The runs the server remembers, oldest first.",
                "operationId": "listRuns",
                "responses": {"200": _json("RunListView", "The runs.")},
            },
            "post": {
                "summary": "Start a training run.",
                "operationId": "createRun",
                "requestBody": {
                    "required": False,
                    "description": "What to train; an empty body means every default.",
                    "content": {
                        "application/json": {
                            "schema": {"$ref": _REF.format(name="RunRequest")}
                        }
                    },
                },
                "responses": {
                    "201": {**run_reply, "description": "The run started."},
                    **_errors(400, 401, 408, 409, 413, 422, 429, 503),
                },
                **secured,
            },
        },
        "/runs/{run_id}": {
            "parameters": [run_id],
            "get": {
                "summary": "One run: its request, progress, checkpoints, outcome.",
                "operationId": "getRun",
                "responses": {"200": run_reply, **_errors(404)},
            },
            "delete": {
                "summary": "Cancel a run (no final checkpoint).",
                "operationId": "cancelRun",
                "responses": {
                    "202": {**run_reply, "description": "Cancelling."},
                    **_errors(401, 404, 409),
                },
                **secured,
            },
        },
        "/runs/{run_id}/stop": {
            "parameters": [run_id],
            "post": {
                "summary": "Stop a run after its current step, as `OnRequestExit` does.",
                "operationId": "stopRun",
                "responses": {
                    "202": {**run_reply, "description": "Stopping."},
                    **_errors(401, 404, 409),
                },
                **secured,
            },
        },
        "/runs/{run_id}/events": {
            "parameters": [run_id],
            "get": {
                "summary": "The run's events as Server-Sent Events, live, resumable by event id.",
                "operationId": "streamEvents",
                "parameters": [
                    {
                        "name": "Last-Event-ID",
                        "in": "header",
                        "required": False,
                        "schema": {"type": "string"},
                        "description": "Resume after this event id (a whole number this server sent).",
                    },
                    {
                        "name": "last_event_id",
                        "in": "query",
                        "required": False,
                        "schema": {"type": "string"},
                        "description": "The same, for clients that cannot set headers.",
                    },
                ],
                "responses": {
                    "200": {
                        "description": "`id:` and `data:` (the event as JSON) per event; `event: gap` "
                        "when events were lost to the kept history.",
                        "content": {
                            "text/event-stream": {"schema": {"type": "string"}}
                        },
                    },
                    "204": {
                        "description": "The run ended and the client has every event."
                    },
                    **_errors(400, 404, 429),
                },
            },
        },
        "/openapi.json": {
            "get": {
                "summary": "This document.",
                "operationId": "openapi",
                "responses": {
                    "200": {
                        "description": "OpenAPI 3.1.",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
            }
        },
    }
    components: dict[str, Any] = {"schemas": schemas}
    if token:
        components["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "cadence service",
            "version": _version(),
            "description": "Starts, lists, streams, stops and cancels training runs (docs/embedding.md).",
        },
        "paths": paths,
        "components": components,
    }
