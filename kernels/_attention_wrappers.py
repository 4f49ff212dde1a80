"""The normalization kernels every target builds the same way from its two row loops.

A target supplies `rows_forward(x, gamma, beta, eps, layout)` returning
(y, stats) and `rows_backward(dy, x, gamma, stats, layout)` returning
(dx, dparams), on (R, L) arrays laid out as `_attention_math` describes
(`layout` = (groups, span); stats rows: mean, 1/std; dparams rows: dgamma,
dbeta); the public signatures, checks and reshapes are written here once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ._checks import check_float_array, check_same_shape, check_shape

__all__ = ["ATTENTION_KERNELS", "NormKernels", "batch_matmul_shape", "norm_kernels"]

Array = Any
Layout = tuple[int, int]
RowsForward = Callable[[Array, Array, Array, float, Layout], tuple[Array, Array]]
RowsBackward = Callable[[Array, Array, Array, Array, Layout], tuple[Array, Array]]

# The kernels of this area: the `__all__` of both targets' modules.
ATTENTION_KERNELS = (
    "batch_matmul",
    "group_norm_backward",
    "group_norm_forward",
    "layer_norm_backward",
    "layer_norm_forward",
    "smooth_act_backward",
    "smooth_act_forward",
)


class NormKernels(NamedTuple):
    """Layer and group normalization, forward and backward."""

    layer_norm_forward: Callable[[Array, Array, Array, float], tuple[Array, Array]]
    layer_norm_backward: Callable[
        [Array, Array, Array, Array], tuple[Array, Array, Array]
    ]
    group_norm_forward: Callable[[Array, Array, Array, int, float], tuple[Array, Array]]
    group_norm_backward: Callable[
        [Array, Array, Array, Array, int], tuple[Array, Array, Array]
    ]


def _group_rows(x: Array, gamma: Array, groups: int) -> tuple[Array, int]:
    check_float_array("x", x, 3)
    n, c, m = x.shape
    if groups < 1 or c % groups:
        raise ValueError(
            f"Kernel argument `groups` must divide the {c} channels, but got {groups}."
        )
    check_shape("gamma", gamma, (c,))
    return x.reshape(n * groups, (c // groups) * m), m


def norm_kernels(forward: RowsForward, backward: RowsBackward) -> NormKernels:
    """Build the normalization kernels from a target's row loops."""

    def run_backward(
        dy: Array, x: Array, gamma: Array, stats: Array, layout: Layout
    ) -> tuple[Array, Array, Array]:
        check_shape("stats", stats, (2, x.shape[0]))
        dx, dparams = backward(dy, x, gamma, stats, layout)
        return dx, dparams[0], dparams[1]

    def layer_norm_forward(
        x: Array, gamma: Array, beta: Array, eps: float
    ) -> tuple[Array, Array]:
        """Normalize each row of x (R, D); return (y, stats (2, R): the rows' means and 1 / std)."""
        check_float_array("x", x, 2)
        check_shape("gamma", gamma, x.shape[1:])
        check_same_shape(("gamma", "beta"), gamma, beta)
        return forward(x, gamma, beta, eps, (1, 1))

    def layer_norm_backward(
        dy: Array, x: Array, gamma: Array, stats: Array
    ) -> tuple[Array, Array, Array]:
        """Return (dx, dgamma, dbeta) of `layer_norm_forward`."""
        check_float_array("dy", dy, 2)
        check_same_shape(("dy", "x"), dy, x)
        return run_backward(dy, x, gamma, stats, (1, 1))

    def group_norm_forward(
        x: Array, gamma: Array, beta: Array, groups: int, eps: float
    ) -> tuple[Array, Array]:
        """Normalize x (N, C, M) over each of `groups` channel groups; gamma, beta per channel.

        Returns (y, stats (2, N * groups): each group's mean and 1 / std).
        """
        rows, span = _group_rows(x, gamma, groups)
        y, stats = forward(rows, gamma, beta, eps, (groups, span))
        return y.reshape(x.shape), stats

    def group_norm_backward(
        dy: Array, x: Array, gamma: Array, stats: Array, groups: int
    ) -> tuple[Array, Array, Array]:
        """Return (dx, dgamma, dbeta) of `group_norm_forward`."""
        check_float_array("dy", dy, 3)
        check_same_shape(("dy", "x"), dy, x)
        rows, span = _group_rows(x, gamma, groups)
        dx, dgamma, dbeta = run_backward(
            dy.reshape(rows.shape), rows, gamma, stats, (groups, span)
        )
        return dx.reshape(x.shape), dgamma, dbeta

    return NormKernels(
        layer_norm_forward, layer_norm_backward, group_norm_forward, group_norm_backward
    )


def batch_matmul_shape(
    a: Array, b: Array, ta: bool, tb: bool
) -> tuple[int, int, int, int]:
    """Check a batched matmul's operands; return (batch, m, n, k) of op(a) @ op(b)."""
    check_float_array("a", a, 3)
    check_float_array("b", b, 3)
    batch, m, k = (a.shape[0], a.shape[2], a.shape[1]) if ta else a.shape
    kb, n = (b.shape[2], b.shape[1]) if tb else b.shape[1:]
    if b.shape[0] != batch or kb != k:
        raise ValueError(
            f"Kernel arguments `a` {a.shape}{' (transposed)' if ta else ''} and `b` "
            f"{b.shape}{' (transposed)' if tb else ''} must be stacks of the same length "
            f"with matching inner dimensions."
        )
    return batch, m, n, k
