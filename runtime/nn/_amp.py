"""`mindspore.amp`'s network builders: `build_train_network`, `auto_mixed_precision`, `all_finite`.

cadence computes in each network's own dtypes (float32 for the built-in cells):
there are no float16 kernels to cast to, so the `amp_level`s "O1" to "O3" and
"auto" are accepted, checked, and change no dtype. What they do besides casting
is done: `build_train_network` wraps the network with its loss and a training
step, loss-scaled when a `loss_scale_manager` asks for it. `Model` builds its
training network with the same function, so both agree.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compute import _dtype
from ..compute._tensor import Tensor
from ._cell import Cell
from ._loss_scale import TrainOneStepWithLossScaleCell
from ._wrap import TrainOneStepCell, WithLossCell

__all__ = [
    "AMP_LEVELS",
    "all_finite",
    "auto_mixed_precision",
    "build_train_network",
    "train_network",
]

AMP_LEVELS = ("O0", "O1", "O2", "O3", "auto")

# The other arguments MindSpore's `build_train_network` takes; only the manager changes anything here.
_BUILD_KWARGS = ("loss_scale_manager", "keep_batchnorm_fp32", "cast_model_type")


def check_amp_level(level: Any, name: str, owner: str) -> str:
    """Return `level` if it is one of `AMP_LEVELS`; else raise ValueError naming `name`."""
    if not isinstance(level, str) or level not in AMP_LEVELS:
        raise ValueError(
            f"For '{owner}', the argument '{name}' must be one of {AMP_LEVELS}, but got {level!r}."
        )
    return level


def _train_step(net: Any, optimizer: Any, manager: Any, owner: str) -> Any:
    """`TrainOneStepCell`, or with a `loss_scale_manager` the loss-scaled step it asks for (as MindSpore)."""
    if manager is None:
        return TrainOneStepCell(net, optimizer)
    for method in ("get_loss_scale", "get_update_cell"):
        if not callable(getattr(manager, method, None)):
            raise TypeError(
                f"For '{owner}', the argument 'loss_scale_manager' must be a LossScaleManager "
                f"(e.g. `cadence.amp.DynamicLossScaleManager()`), but got {manager!r} of type "
                f"{type(manager).__name__!r}."
            )
    update_cell = manager.get_update_cell()
    if update_cell is None:
        return TrainOneStepCell(net, optimizer, sens=manager.get_loss_scale())
    step = TrainOneStepWithLossScaleCell(net, optimizer, scale_sense=update_cell)
    if manager.get_drop_overflow_update():
        step._host_manager = manager
    return step


def train_network(
    network: Any, loss_fn: Any, optimizer: Any, manager: Any, owner: str
) -> Any:
    """`network` with its loss (`WithLossCell`) and its training step, each when given."""
    net = network
    if loss_fn is not None:
        net = WithLossCell(net, loss_fn)
    if optimizer is not None:
        net = _train_step(net, optimizer, manager, owner)
    return net


def build_train_network(
    network: Cell,
    optimizer: Any,
    loss_fn: Any = None,
    level: str = "O0",
    boost_level: str = "O0",
    **kwargs: Any,
) -> Cell:
    """Return the training network `Model` would build, as `mindspore.amp.build_train_network`.

    `network` with `loss_fn` (when given) in a `WithLossCell`, then a `TrainOneStepCell`,
    or a loss-scaled step when `loss_scale_manager` asks for one. `level` and
    `boost_level` are checked and cast nothing (cadence computes in the network's
    dtypes); `keep_batchnorm_fp32` and `cast_model_type` are accepted for the same reason.

    Raises:
        TypeError: If `network` is not a Cell, `optimizer` not an optimizer, `loss_fn` not
            callable, or `loss_scale_manager` not a LossScaleManager.
        ValueError: For a level outside `("O0", "O1", "O2", "O3", "auto")` or an unknown
            keyword argument.

    Example:
        >>> import cadence as ms
        >>> from cadence import amp, nn
        >>> net = nn.Dense(3, 1)
        >>> step = amp.build_train_network(net, nn.SGD(net.trainable_params(), 0.1), nn.MSELoss(), level="O2")
        >>> type(step).__name__
        'TrainOneStepCell'
    """
    owner = "build_train_network"
    if not isinstance(network, Cell):
        raise TypeError(
            f"For '{owner}', the argument 'network' must be a Cell, "
            f"but got {network!r} of type {type(network).__name__!r}."
        )
    if not (callable(optimizer) and hasattr(optimizer, "parameters")):
        raise TypeError(
            f"For '{owner}', the argument 'optimizer' must be an optimizer "
            f"(e.g. `nn.SGD(net.trainable_params(), 0.01)`), but got {optimizer!r} of type "
            f"{type(optimizer).__name__!r}."
        )
    if loss_fn is not None and not callable(loss_fn):
        raise TypeError(
            f"For '{owner}', the argument 'loss_fn' must be a loss Cell or callable, or None, "
            f"but got {loss_fn!r} of type {type(loss_fn).__name__!r}."
        )
    check_amp_level(level, "level", owner)
    check_amp_level(boost_level, "boost_level", owner)
    for key in kwargs:
        if key not in _BUILD_KWARGS:
            raise ValueError(
                f"For '{owner}', unexpected keyword argument {key!r}; the accepted ones are {_BUILD_KWARGS}."
            )
    built: Cell = train_network(
        network, loss_fn, optimizer, kwargs.get("loss_scale_manager"), owner
    )
    return built


def auto_mixed_precision(
    network: Cell, amp_level: str = "O0", dtype: Any = None
) -> Cell:
    """Return `network` itself, as `mindspore.amp.auto_mixed_precision` returns it cast: cadence casts nothing.

    MindSpore casts cells (or, at "O2"/"O3", the whole network) to float16 and the output
    back to float32. cadence has no float16 kernels, so the network keeps computing in
    its own dtypes and is returned unwrapped; its outputs are float32 as MindSpore's are.

    Args:
        network: The Cell to cast.
        amp_level: "O0", "O1", "O2", "O3" or "auto".
        dtype: The low-precision type, `cadence.float16` (the default, also for None).

    Raises:
        TypeError: If `network` is not a Cell.
        ValueError: For another `amp_level` or `dtype`.

    Example:
        >>> import cadence as ms
        >>> from cadence import amp, nn
        >>> net = nn.Dense(3, 1)
        >>> amp.auto_mixed_precision(net, "O2") is net
        True
    """
    owner = "auto_mixed_precision"
    if not isinstance(network, Cell):
        raise TypeError(
            f"For '{owner}', the argument 'network' must be a Cell, "
            f"but got {network!r} of type {type(network).__name__!r}."
        )
    check_amp_level(amp_level, "amp_level", owner)
    if dtype is not None and dtype != _dtype.float16:
        raise ValueError(
            f"For '{owner}', the argument 'dtype' must be cadence.float16, but got {dtype!r}."
        )
    return network


def all_finite(inputs: Any) -> Tensor:
    """Return a bool scalar Tensor: whether every element of every Tensor in `inputs` is finite.

    As `mindspore.amp.all_finite`, what a custom loss-scaled step checks its gradients with.

    Raises:
        TypeError: If `inputs` is not a tuple or list of Tensors.
        ValueError: If `inputs` is empty (MindSpore fails there too).

    Example:
        >>> import numpy as np
        >>> import cadence as ms
        >>> ms.amp.all_finite([ms.Tensor([1.0, 2.0]), ms.Tensor([np.inf])])
        Tensor(shape=[], dtype=Bool, value= False)
    """
    owner = "all_finite"
    if not isinstance(inputs, tuple | list) or not all(
        isinstance(t, Tensor) for t in inputs
    ):
        raise TypeError(
            f"For '{owner}', the argument 'inputs' must be a tuple or list of Tensors, but got {inputs!r}."
        )
    if not inputs:
        raise ValueError(
            f"For '{owner}', the argument 'inputs' must hold at least one Tensor, but got {inputs!r}."
        )
    finite = all(bool(np.isfinite(t.asnumpy()).all()) for t in inputs)
    return Tensor(np.array(finite))
