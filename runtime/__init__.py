"""cadence: a training runtime whose loop speaks only through typed events.

The table of contents of the public API. Importing `cadence` does not import
numba, CUDA support or `cadence.callbacks`; the built-in callbacks are still
reachable as `cadence.LossMonitor` and friends (loaded on first use), as in
MindSpore where they are re-exported at the top level.

Layer rule: the top of the runtime, the only module that imports every
layer (`bus`, `compute`, `checkpoint`, the training core) to re-export its
public names; nothing below imports it back at import time. See
docs/architecture.md for the layers and what each may import.
"""

from __future__ import annotations

from typing import Any

# MindSpore's subpackages are attributes of the top level as soon as it is imported,
# so `import mindspore as ms; ms.nn.Dense` ports without a separate `import ms.nn`.
from . import (
    common as common,
    communication as communication,
    context as context,
    dataset as dataset,
    dtype as dtype,
    mindrecord as mindrecord,
    nn as nn,
    numpy as numpy,
    ops as ops,
    parallel as parallel,
    train as train,
)
from ._errors import (
    CadenceError,
    CadenceInternalError,
    CadenceWarning,
    DrainTimeoutError,
    MissingKeyError,
    QueueFullError,
    SubscriberError,
)
from ._util import fixup_module_metadata

# MindSpore exports its loss-scale managers at the top level too (`ms.FixedLossScaleManager`).
from .amp import (
    DynamicLossScaleManager,
    FixedLossScaleManager,
    LossScaleManager,
    build_train_network,
)

# --- runtime core: events, bus, callbacks, model ---------------------------------
from .bus._bus import EventBus
from .bus._codec import decode_event, encode_event, event_types

# The event classes, re-exported as the bus package lists them (its `__all__` is the one list).
from .bus._events import *  # noqa: F403
from .bus._events import __all__ as _event_names
from .bus._statistics import BusStatistics, SubscriberStatistics
from .bus._subscription import Subscription
from .checkpoint._atomic import atomic_write
from .checkpoint._serialization import (
    load_checkpoint,
    load_param_into_net,
    save_checkpoint,
)
from .checkpoint._snapshot import CheckpointSnapshot
from .common._mutable import mutable
from .common._recompute import recompute
from .common._tensor_functions import from_numpy, is_tensor, tensor
from .common.api import jit, jit_class, ms_function
from .common.jit_config import JitConfig
from .communication._parallel_context import (
    ParallelMode,
    get_auto_parallel_context,
    reset_auto_parallel_context,
    set_auto_parallel_context,
)
from .communication._ps_context import (
    get_ps_context,
    reset_ps_context,
    set_ps_context,
)
from .compute._context import (
    COMPATIBLE,
    GRAPH_MODE,
    LAX,
    PYNATIVE_MODE,
    STRICT,
    get_context,
    get_seed,
    set_context,
    set_device,
    set_seed,
)
from .compute._grad import get_grad, grad, value_and_grad
from .compute._targets import (
    CPUTarget,
    CUDATarget,
    Target,
    TargetUnavailableError,
    get_target,
    register_target,
)
from .compute._tensor import Parameter, ParameterTuple, Tensor

# MindSpore's data types are top-level names too (`ms.float32`): the whole `dtype` namespace.
from .dtype import *  # noqa: F403
from .onnx._export import export
from .ops._vmap import vmap
from .training._callback import Callback
from .training._cb_params import CallbackParams
from .training._loss_value import loss_value
from .training._model import LegacyHookWarning, Model
from .training._run_context import RunContext
from .training._run_events import RunEvents
from .training._run_handle import RunHandle, start_run
from .training._run_progress import RunProgress

__all__ = [
    *_event_names,
    "COMPATIBLE",
    "GRAPH_MODE",
    "LAX",
    "PYNATIVE_MODE",
    "STRICT",
    "BusStatistics",
    "CPUTarget",
    "CUDATarget",
    "CadenceError",
    "CadenceInternalError",
    "CadenceWarning",
    "Callback",
    "CallbackParams",
    "CheckpointSnapshot",
    "DrainTimeoutError",
    "DynamicLossScaleManager",
    "EventBus",
    "FixedLossScaleManager",
    "JitConfig",
    "LegacyHookWarning",
    "LossScaleManager",
    "MissingKeyError",
    "Model",
    "ParallelMode",
    "Parameter",
    "ParameterTuple",
    "QueueFullError",
    "RunContext",
    "RunEvents",
    "RunHandle",
    "RunProgress",
    "SubscriberError",
    "SubscriberStatistics",
    "Subscription",
    "Target",
    "TargetUnavailableError",
    "Tensor",
    "Type",
    "atomic_write",
    "bool_",
    "decode_event",
    "encode_event",
    "event_types",
    "export",
    "float16",
    "float32",
    "float64",
    "get_auto_parallel_context",
    "get_context",
    "get_ps_context",
    "get_seed",
    "get_target",
    "grad",
    "int8",
    "int16",
    "int32",
    "int64",
    "jit",
    "load_checkpoint",
    "load_param_into_net",
    "loss_value",
    "ms_function",
    "register_target",
    "reset_auto_parallel_context",
    "reset_ps_context",
    "save_checkpoint",
    "set_auto_parallel_context",
    "set_context",
    "set_ps_context",
    "set_seed",
    "start_run",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "value_and_grad",
    "from_numpy",
    "is_tensor",
    "tensor",
    "jit_class",
    "mutable",
    "recompute",
    "get_grad",
    "set_device",
    "build_train_network",
    "vmap",
]

fixup_module_metadata(__name__, globals())
del fixup_module_metadata


def __getattr__(name: str) -> Any:
    if name == "__version__":  # from the installed distribution, read on first use
        from importlib.metadata import version

        return version("cadence")
    # MindSpore re-exports its callbacks at the top level; so do we, lazily, so that
    # `import cadence` stays free of the callbacks package.
    import cadence.callbacks as _callbacks

    if name in _callbacks.__all__:
        return getattr(_callbacks, name)
    raise AttributeError(f"module 'cadence' has no attribute {name!r}")
