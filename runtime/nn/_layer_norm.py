"""Normalization over features rather than the batch: `LayerNorm`, `GroupNorm`, `InstanceNorm2d`.

Each runs one fused kernel forward and one backward (`layer_norm_*`,
`group_norm_*` of the target's table) for statistics, normalization and the
affine transform together; `InstanceNorm2d` is group normalization with one
channel per group.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common.initializer import initializer
from ..compute._tensor import Parameter, Tensor
from ..ops import _attention as attention_ops, _functional as f
from ..validation import check_number, check_type
from ._cell import Cell
from ._checks import check_bool, check_positive_int

__all__ = ["GroupNorm", "InstanceNorm2d", "LayerNorm"]


def _positive_eps(owner: str, name: str, value: Any) -> float:
    return check_number(value, name, owner, minimum=0.0, inclusive=False)


def _affine_params(
    shape: tuple[int, ...], inits: tuple[Any, Any], dtype: Any, trained: bool
) -> tuple[Parameter, Parameter]:
    """(gamma, beta) of `shape` from their initializers."""
    from ..compute import _dtype

    dt = dtype or _dtype.float32
    gamma, beta = (
        Parameter(initializer(init, shape, dt), name=name, requires_grad=trained)
        for init, name in zip(inits, ("gamma", "beta"), strict=True)
    )
    return gamma, beta


class LayerNorm(Cell):
    """Normalize over the trailing axes from `begin_norm_axis`, then scale by gamma and shift by beta.

    Args:
        normalized_shape: Shape of gamma and beta: the input's trailing axes from `begin_params_axis`.
        begin_norm_axis: First axis of the statistics (negative counts from the end).
        begin_params_axis: First axis gamma and beta cover.
        gamma_init, beta_init: Initializers of `gamma` (ones) and `beta` (zeros).
        epsilon: Added to the variance.
        dtype: Parameter dtype.

    Example:
        >>> import numpy as np, cadence as ms
        >>> ln = ms.nn.LayerNorm((3,))
        >>> ln(ms.Tensor(np.array([[1.0, 2.0, 3.0]], np.float32))).shape
        (1, 3)
    """

    def __init__(
        self,
        normalized_shape: tuple[int, ...] | list[int],
        begin_norm_axis: int = -1,
        begin_params_axis: int = -1,
        gamma_init: Any = "ones",
        beta_init: Any = "zeros",
        epsilon: float = 1e-7,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        shape: Any = normalized_shape  # checked here: callers pass anything
        if not isinstance(shape, (tuple, list)) or not all(
            type(n) is int and n > 0 for n in shape
        ):
            raise TypeError(
                f"For 'LayerNorm', the argument 'normalized_shape' must be a tuple or list of positive ints, "
                f"but got {normalized_shape!r}."
            )
        check_type(begin_norm_axis, "begin_norm_axis", int, "LayerNorm")
        check_type(begin_params_axis, "begin_params_axis", int, "LayerNorm")
        self.normalized_shape = tuple(normalized_shape)
        self.begin_norm_axis = begin_norm_axis
        self.begin_params_axis = begin_params_axis
        self.epsilon = _positive_eps("LayerNorm", "epsilon", epsilon)
        self.gamma, self.beta = _affine_params(
            self.normalized_shape, (gamma_init, beta_init), dtype, True
        )

    def construct(self, input_x: Any) -> Tensor:
        """Normalize; the input's trailing axes must equal `normalized_shape`."""
        x = f.as_tensor(input_x)
        rank = x.ndim
        norm_axis = (
            self.begin_norm_axis % rank
            if -rank <= self.begin_norm_axis < rank
            else None
        )
        params_axis = (
            self.begin_params_axis % rank
            if -rank <= self.begin_params_axis < rank
            else None
        )
        if (
            norm_axis is None
            or params_axis is None
            or x.shape[params_axis:] != self.normalized_shape
        ):
            raise ValueError(
                f"For 'LayerNorm', the input's axes from begin_params_axis={self.begin_params_axis} must have "
                f"shape normalized_shape={self.normalized_shape} (and begin_norm_axis={self.begin_norm_axis} "
                f"must be an axis), but got input shape {x.shape}."
            )
        return attention_ops.normalize_trailing(
            x, self.gamma, self.beta, (norm_axis, params_axis), self.epsilon
        )[0]

    def extend_repr(self) -> str:
        """Show the configuration."""
        return (
            f"normalized_shape={self.normalized_shape}, begin_norm_axis={self.begin_norm_axis}, "
            f"begin_params_axis={self.begin_params_axis}, gamma={self.gamma}, beta={self.beta}"
        )


class GroupNorm(Cell):
    """Normalize (N, C, ...) input over each of `num_groups` groups of channels, then scale and shift per channel.

    Args:
        num_groups: Groups; must divide `num_channels`.
        num_channels: Channels C (axis 1).
        eps: Added to the variance.
        affine: Whether gamma and beta are trained (they exist either way, as in MindSpore).
        gamma_init, beta_init: Initializers of `gamma` (ones) and `beta` (zeros).
        dtype: Parameter dtype.
    """

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        gamma_init: Any = "ones",
        beta_init: Any = "zeros",
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.num_groups = check_positive_int("GroupNorm", "num_groups", num_groups)
        self.num_channels = check_positive_int(
            "GroupNorm", "num_channels", num_channels
        )
        if num_channels % num_groups:
            raise ValueError(
                f"For 'GroupNorm', the argument 'num_channels' must be divisible by 'num_groups' "
                f"({num_groups}), but got {num_channels}."
            )
        self.eps = _positive_eps("GroupNorm", "eps", eps)
        self.affine = check_bool("GroupNorm", "affine", affine)
        self.gamma, self.beta = _affine_params(
            (num_channels,), (gamma_init, beta_init), dtype, affine
        )

    def construct(self, x: Any) -> Tensor:
        """Normalize; the input has `num_channels` channels at axis 1."""
        t = f.as_tensor(x)
        if t.ndim < 2 or t.shape[1] != self.num_channels:
            raise ValueError(
                f"For 'GroupNorm', the input must be (N, {self.num_channels}, ...), but got shape {t.shape}."
            )
        return attention_ops.normalize_groups(
            t, self.num_groups, self.gamma, self.beta, self.eps
        )

    def extend_repr(self) -> str:
        """Show the configuration."""
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}, eps={self.eps}, affine={self.affine}"


class InstanceNorm2d(Cell):
    """Normalize each channel of each (N, C, H, W) sample over its H x W values, then scale and shift per channel.

    The statistics are always the instance's own, training or not. While training,
    `moving_mean` and `moving_variance` follow the batch's average instance mean and
    (unbiased) variance, moved by `momentum` as MindSpore's GPU kernel moves them
    (new = (1 - momentum) * old + momentum * batch); nothing reads them.

    Args:
        num_features: Channels C.
        eps: Added to the variance, a number > 0.
        momentum: In [0, 1].
        affine: Whether gamma and beta are trained.
        gamma_init, beta_init: Initializers of `gamma` (ones) and `beta` (zeros).
        dtype: Parameter dtype.
    """

    def __init__(
        self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
        gamma_init: Any = "ones", beta_init: Any = "zeros", dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__()
        owner = "InstanceNorm2d"
        self.num_features = check_positive_int(owner, "num_features", num_features)
        self.eps = _positive_eps(owner, "eps", eps)
        self.momentum = check_number(
            momentum, "momentum", owner, minimum=0.0, maximum=1.0
        )
        self.affine = check_bool(owner, "affine", affine)
        self.gamma, self.beta = _affine_params(
            (num_features,), (gamma_init, beta_init), dtype, affine
        )
        self.moving_mean, self.moving_variance = (
            Parameter(
                initializer(init, (num_features,), self.gamma.dtype),
                name=name,
                requires_grad=False,
            )
            for init, name in (("zeros", "mean"), ("ones", "variance"))
        )

    def construct(self, x: Any) -> Tensor:
        """Normalize (N, num_features, H, W) input."""
        t = f.as_tensor(x)
        if t.ndim != 4 or t.shape[1] != self.num_features:
            raise ValueError(
                f"For 'InstanceNorm2d', the input must be (N, {self.num_features}, H, W), but got "
                f"shape {t.shape}."
            )
        if self.training:
            self._follow(np.asarray(t.asnumpy(), np.float64))
        return attention_ops.normalize_groups(
            t, self.num_features, self.gamma, self.beta, self.eps
        )

    def _follow(self, x: np.ndarray[Any, Any]) -> None:
        count = x.shape[2] * x.shape[3]
        mean = x.mean(axis=(2, 3)).mean(axis=0)
        var = x.var(axis=(2, 3), ddof=1 if count > 1 else 0).mean(axis=0)
        m = self.momentum
        for param, batch in ((self.moving_mean, mean), (self.moving_variance, var)):
            param.set_data(Tensor((1 - m) * param.asnumpy() + m * batch, param.dtype))

    def extend_repr(self) -> str:
        """Show the configuration."""
        return f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}"
