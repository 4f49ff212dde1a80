"""Batch normalization: `BatchNorm1d`, `BatchNorm2d`."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from ..common.initializer import initializer
from ..compute._context import current_target
from ..compute._tensor import Parameter, Tensor
from ..ops import _nn as nn_ops
from ..ops._activations import relu6
from ..ops._placement import on_target
from ._cell import Cell
from ._checks import check_bool, check_positive_int
from ._layers import ReLU
from ._mobile_activations import ReLU6

__all__ = ["BatchNorm1d", "BatchNorm2d", "fusable_norm_activation"]


def _activate(name: str, x: Tensor) -> Tensor:
    """The activation `_BatchNorm.fused` applies after the moving statistics (not fused).

    Looked up when called, not kept in a table: ONNX export traces the operator
    functions it finds in cadence's modules, and a stored reference would bypass it.
    """
    return nn_ops.relu(x) if name == "relu" else relu6(x)


class _BatchNorm(Cell):
    _ndims: tuple[int, ...] = ()

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float = 0.9,
        affine: bool = True,
        gamma_init: Any = "ones",
        beta_init: Any = "zeros",
        moving_mean_init: Any = "zeros",
        moving_var_init: Any = "ones",
        use_batch_statistics: bool | None = None,
        data_format: str = "NCHW",
        dtype: Any = None,
    ) -> None:
        super().__init__()
        from ..compute import _dtype

        owner = type(self).__name__
        self.num_features = check_positive_int(owner, "num_features", num_features)
        if not isinstance(eps, (int, float)) or eps <= 0:  # type: ignore[redundant-expr]
            raise ValueError(
                f"For '{owner}', the argument 'eps' must be a float > 0, but got {eps!r}."
            )
        if not isinstance(momentum, (int, float)) or not 0 <= momentum <= 1:  # type: ignore[redundant-expr]
            raise ValueError(
                f"For '{owner}', the argument 'momentum' must be in range [0, 1], but got {momentum!r}."
            )
        check_bool(owner, "affine", affine)
        if use_batch_statistics is not None:
            check_bool(owner, "use_batch_statistics", use_batch_statistics)
        self.eps = float(eps)
        self.momentum = float(momentum)
        self.use_batch_statistics = use_batch_statistics
        dt = dtype or _dtype.float32
        shape = (num_features,)
        self.moving_mean = Parameter(
            initializer(moving_mean_init, shape, dt), name="mean", requires_grad=False
        )
        self.moving_variance = Parameter(
            initializer(moving_var_init, shape, dt),
            name="variance",
            requires_grad=False,
        )
        self.gamma = Parameter(
            initializer(gamma_init, shape, dt), name="gamma", requires_grad=affine
        )
        self.beta = Parameter(
            initializer(beta_init, shape, dt), name="beta", requires_grad=affine
        )

    def construct(self, x: Any) -> Tensor:
        """Normalize with batch statistics (training) or the moving statistics."""
        return self.fused(x, None)

    def uses_batch_statistics(self) -> bool:
        """Whether `construct` normalizes with the batch's statistics (else the moving ones)."""
        if self.use_batch_statistics is None:
            return bool(self.training)
        return bool(self.use_batch_statistics)

    def fused(self, x: Any, activation: str | None, residual: Any = None) -> Tensor:
        """`construct`, plus `residual`, then `activation` ("relu", "relu6" or None), in one kernel while training.

        `SequentialCell` calls it for a batch norm directly followed by a `ReLU`
        or `ReLU6` cell, a residual block for `relu(bn(x) + identity)`; the result
        is the cells'. `residual` must have x's shape.
        """
        t = x if isinstance(x, Tensor) else Tensor(x)
        if t.ndim not in self._ndims or t.shape[1] != self.num_features:
            raise ValueError(
                f"For '{type(self).__name__}', the input must have {' or '.join(map(str, self._ndims))} dimensions "
                f"with {self.num_features} channels at axis 1, but got shape {t.shape}."
            )
        if self.uses_batch_statistics():
            y, mean, var = nn_ops.batch_norm(
                t, self.gamma, self.beta, self.eps, activation, residual
            )
            count = t.size // self.num_features
            unbiased = var * (count / max(count - 1, 1))
            m = self.momentum
            target = current_target()
            mm = on_target(self.moving_mean, target)
            mv = on_target(self.moving_variance, target)
            np.copyto(mm, m * mm + (1 - m) * mean, casting="unsafe")
            np.copyto(mv, m * mv + (1 - m) * unbiased, casting="unsafe")
            return y
        shape = (1, -1) + (1,) * (t.ndim - 2)
        inv = ops.reshape(self.gamma / ops.sqrt(self.moving_variance + self.eps), shape)
        out = (t - ops.reshape(self.moving_mean, shape)) * inv + ops.reshape(
            self.beta, shape
        )
        if residual is not None:
            out = out + residual
        return out if activation is None else _activate(activation, out)

    def extend_repr(self) -> str:
        """Show the configuration."""
        return f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, gamma={self.gamma}, beta={self.beta}, moving_mean={self.moving_mean}, moving_variance={self.moving_variance}"


class BatchNorm1d(_BatchNorm):
    """Batch normalization over (N, C) or (N, C, L) input.

    Args:
        num_features: Channels C.
        eps: Added to the variance.
        momentum: Weight of the old moving statistics (moving = momentum * moving + (1 - momentum) * batch).
        affine: Whether gamma and beta are trained.
        gamma_init, beta_init, moving_mean_init, moving_var_init: Initializers.
        use_batch_statistics: True: always batch statistics; False: always moving; None: batch while training.
        data_format: Accepted for MindSpore compatibility.
        dtype: Parameter dtype.
    """

    _ndims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization over (N, C, H, W) input; arguments as `BatchNorm1d`."""

    _ndims = (4,)


def fusable_norm_activation(norm: Any, activation: Any) -> str | None:
    """The name `_BatchNorm.fused` takes for `activation` following `norm`, or None when they do not fuse."""
    if type(norm) not in (BatchNorm1d, BatchNorm2d):
        return None
    return {ReLU: "relu", ReLU6: "relu6"}.get(type(activation))
