"""Basic layers: `Dense`, `Flatten`, activations, `Softmax`, `Dropout`."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .. import ops
from ..common.initializer import HeUniform, Uniform, initializer
from ..compute._tensor import Parameter, Tensor
from ..ops import _nn as nn_ops
from ._activation_cells import GELU, LeakyReLU, PReLU, SiLU
from ._cell import Cell
from ._checks import check_bool, check_positive_int

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "Dense",
    "Dropout",
    "Flatten",
    "LogSoftmax",
    "ReLU",
    "Sigmoid",
    "Softmax",
    "Tanh",
    "fusable_activation",
    "get_activation",
]


class ReLU(Cell):
    """max(x, 0), elementwise."""

    def construct(self, x: Any) -> Tensor:
        """Apply the activation."""
        return nn_ops.relu(x)


class Sigmoid(Cell):
    """1 / (1 + exp(-x)), elementwise."""

    def construct(self, x: Any) -> Tensor:
        """Apply the activation."""
        return nn_ops.sigmoid(x)


class Tanh(Cell):
    """tanh(x), elementwise."""

    def construct(self, x: Any) -> Tensor:
        """Apply the activation."""
        return nn_ops.tanh(x)


class _AlongAxis(Cell):
    """An activation normalizing along one axis: the name of its `ops` function, and the axis."""

    # Looked up by name at each call, not bound here: `export` traces by patching `ops`.
    _function: str

    def __init__(self, axis: int = -1) -> None:
        super().__init__()
        self.axis = axis

    def construct(self, x: Any) -> Tensor:
        """Apply the activation along `axis`."""
        apply: Callable[[Any, int], Tensor] = getattr(nn_ops, self._function)
        return apply(x, self.axis)


class Softmax(_AlongAxis):
    """Softmax along `axis`.

    Args:
        axis: The axis to normalize over.
    """

    _function = "softmax"


class LogSoftmax(_AlongAxis):
    """log(softmax(x)) along `axis`.

    Args:
        axis: The axis to normalize over.
    """

    _function = "log_softmax"


_ACTIVATIONS: dict[str, type[Cell]] = {
    "relu": ReLU,
    "sigmoid": Sigmoid,
    "tanh": Tanh,
    "softmax": Softmax,
    "logsoftmax": LogSoftmax,
    "gelu": GELU,
    "silu": SiLU,
    "leakyrelu": LeakyReLU,
    "prelu": PReLU,
}
_FUSABLE: dict[type[Cell], str] = {ReLU: "relu", Sigmoid: "sigmoid", Tanh: "tanh"}


def get_activation(name: str) -> Cell:
    """Return a new activation cell by name ('relu', 'sigmoid', 'tanh', 'softmax', 'logsoftmax', 'gelu', ...).

    Raises:
        KeyError: For an unknown name.
    """
    cls = _ACTIVATIONS.get(name.lower()) if isinstance(name, str) else None  # type: ignore[redundant-expr]
    if cls is None:
        raise KeyError(
            f"For 'get_activation', unknown activation {name!r}; valid names: {sorted(_ACTIVATIONS)}."
        )
    return cls()


def fusable_activation(cell: Any) -> str | None:
    """Return the fused-kernel name of an activation cell a Dense can absorb, else None."""
    return _FUSABLE.get(type(cell))


class Flatten(Cell):
    """Merge dimensions `start_dim`..`end_dim` (by default all but the batch axis).

    Args:
        start_dim: First dimension to merge.
        end_dim: Last dimension to merge.
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        for name, value in (("start_dim", start_dim), ("end_dim", end_dim)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(
                    f"For 'Flatten', the argument '{name}' must be an int, but got {value!r}."
                )
        self.start_dim = start_dim
        self.end_dim = end_dim

    def construct(self, x: Any) -> Tensor:
        """Flatten."""
        return ops.flatten(x, start_dim=self.start_dim, end_dim=self.end_dim)


class Dense(Cell):
    """Fully connected layer: activation(x @ weight.T + bias).

    Args:
        in_channels: Input features.
        out_channels: Output features.
        weight_init: Initializer of `weight` (out_channels, in_channels); default
            HeUniform(negative_slope=sqrt(5)), as MindSpore.
        bias_init: Initializer of `bias` (out_channels,); default U(-1/sqrt(in), 1/sqrt(in)).
        has_bias: Whether to add `bias`.
        activation: None, an activation name ('relu', ...) or a Cell; ReLU,
            Sigmoid and Tanh are fused into the dense kernel.
        dtype: Parameter dtype.

    Example:
        >>> import cadence.nn as nn
        >>> nn.Dense(784, 512)
        Dense<input_channels=784, output_channels=512, has_bias=True>
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        weight_init: Any = None,
        bias_init: Any = None,
        has_bias: bool = True,
        activation: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        from ..compute import _dtype

        self.in_channels = check_positive_int("Dense", "in_channels", in_channels)
        self.out_channels = check_positive_int("Dense", "out_channels", out_channels)
        self.has_bias = check_bool("Dense", "has_bias", has_bias)
        dt = dtype or _dtype.float32
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(
            initializer(weight_init, (out_channels, in_channels), dt), name="weight"
        )
        self.bias: Parameter | None = None
        if has_bias:
            if bias_init is None:
                bias_init = Uniform(1 / math.sqrt(in_channels))
            self.bias = Parameter(
                initializer(bias_init, (out_channels,), dt), name="bias"
            )
        if isinstance(activation, str):
            activation = get_activation(activation)
        if activation is not None and not isinstance(activation, Cell):
            raise TypeError(
                f"For 'Dense', the argument 'activation' must be a str, Cell or None, but got {activation!r}."
            )
        self.activation: Cell | None = activation
        self._fused = fusable_activation(activation)

    def fused(self, x: Any, activation: str | None) -> Tensor:
        """Run the layer with `activation` fused into its epilogue."""
        return nn_ops.dense(x, self.weight, self.bias, activation)

    def construct(self, x: Any) -> Tensor:
        """Apply the layer."""
        if self.activation is None or self._fused is not None:
            return nn_ops.dense(x, self.weight, self.bias, self._fused)
        return self.activation(nn_ops.dense(x, self.weight, self.bias, None))  # type: ignore[no-any-return]

    def extend_repr(self) -> str:
        """Show the layer's sizes."""
        s = f"input_channels={self.in_channels}, output_channels={self.out_channels}, has_bias={self.has_bias}"
        if self.activation is not None:
            s += f", activation={self.activation!r}"
        return s


class Dropout(Cell):
    """Randomly zero elements while training (stream `"dropout"` of `set_seed`).

    Args:
        keep_prob: Probability of keeping an element (deprecated MindSpore spelling), in (0, 1].
        p: Probability of dropping an element, in [0, 1). Default 0.5 when neither is given.
        dtype: Accepted for MindSpore compatibility.
    """

    def __init__(
        self, keep_prob: float | None = None, p: float | None = None, dtype: Any = None
    ) -> None:
        super().__init__()
        if p is not None:
            if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0 <= p < 1:  # type: ignore[redundant-expr]
                raise ValueError(
                    f"For 'Dropout', the argument 'p' must be a float in range [0, 1), but got {p!r}."
                )
            drop = float(p)
        elif keep_prob is not None:
            if (
                not isinstance(keep_prob, (int, float))  # type: ignore[redundant-expr]
                or isinstance(keep_prob, bool)
                or not 0 < keep_prob <= 1
            ):
                raise ValueError(
                    f"For 'Dropout', the argument 'keep_prob' must be a float in range (0, 1], but got {keep_prob!r}."
                )
            drop = 1.0 - float(keep_prob)
        else:
            drop = 0.5
        self.p = drop
        self.keep_prob = 1.0 - drop

    def construct(self, x: Any) -> Tensor:
        """Apply dropout when training; identity otherwise."""
        if not self.training or self.p == 0:
            return x if isinstance(x, Tensor) else Tensor(x)
        return nn_ops.dropout(x, self.p)

    def extend_repr(self) -> str:
        """Show the drop probability."""
        return f"p={self.p}"
