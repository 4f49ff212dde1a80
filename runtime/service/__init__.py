"""`cadence.service`: a reference web service that starts, streams, stops and cancels training runs.

Needs the `service` extra (`pip install 'cadence[service]'`: Starlette, uvicorn, Hypercorn).
`create_app(output_dir)` returns the ASGI application; `cadence serve` runs it, with
uvicorn (asyncio) or Hypercorn's trio worker, bounded by `ServerLimits`.
See docs/embedding.md.

Layer rule: an application of cadence: the public API (`cadence`,
`cadence.callbacks`, `cadence.nn`, `cadence.dataset`), `cadence._util` and the
command line's model presets; nothing in cadence imports it but `cadence serve`.
"""

from __future__ import annotations

try:
    import starlette as _starlette  # noqa: F401
except ImportError as _exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "cadence.service needs Starlette and uvicorn: install the 'service' extra "
        "(pip install 'cadence[service]')."
    ) from _exc

from cadence._util import fixup_module_metadata

from ._app import create_app
from ._http import ServiceError
from ._openapi import openapi_document
from ._presets import DATASETS, MODELS
from ._schema import CheckpointRequest, RunRequest, RunView
from ._serving import SERVERS, ServerLimits, hypercorn_config, uvicorn_config
from ._trio_serving import serve_trio

__all__ = [
    "DATASETS",
    "MODELS",
    "SERVERS",
    "CheckpointRequest",
    "RunRequest",
    "RunView",
    "ServerLimits",
    "ServiceError",
    "create_app",
    "hypercorn_config",
    "openapi_document",
    "serve_trio",
    "uvicorn_config",
]

fixup_module_metadata("cadence.service", globals())
del fixup_module_metadata
