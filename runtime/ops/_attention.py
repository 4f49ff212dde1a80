"""The ops attention and normalization layers need.

Batched matmul, masked fill, split, layer/group norm and the smooth
activations (`gelu`, `silu`, `leaky_relu`, `prelu`).

`bmm` / `BatchMatMul`, the norms and the smooth activations run the target's
kernels (`batch_matmul`, `layer_norm_*`, `group_norm_*`, `smooth_act_*`);
`masked_fill`, `split` and `prelu` are compositions of differentiable ops, so
they run on every target through those.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from cadence.kernels._attention_math import SMOOTH_ACT_CODES

from ..compute._tensor import Tensor
from ..validation import check_choice, check_number, check_positive_int
from . import _elementwise as e, _functional as f
from ._functional import Array, GradFn, as_tensor, record, unbroadcast
from ._nn import _contig, _float, _k

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "batch_matmul",
    "bmm",
    "erf",
    "gelu",
    "group_norm",
    "layer_norm",
    "layer_norm_with_statistics",
    "leaky_relu",
    "masked_fill",
    "normalize_groups",
    "normalize_trailing",
    "prelu",
    "silu",
    "split",
]


# --- batched matmul --------------------------------------------------------------------
def _stack_shape(a: tuple[int, ...], b: tuple[int, ...], op: str) -> tuple[int, ...]:
    if len(a) < 3 or len(b) < 3:
        raise ValueError(
            f"For '{op}', both inputs must have 3 or more dimensions, but got shapes {a} and {b}."
        )
    try:
        return tuple(np.broadcast_shapes(a[:-2], b[:-2]))
    except ValueError:
        raise ValueError(
            f"For '{op}', the batch dimensions of shapes {a} and {b} cannot be broadcast."
        ) from None


def batch_matmul(
    x: Any, y: Any, *, transpose_a: bool = False, transpose_b: bool = False
) -> Tensor:
    """op(x) @ op(y) over the leading (batch) axes, which broadcast; op swaps the last two axes when set."""
    ta, tb = as_tensor(x), as_tensor(y)
    a, b = _float(ta), _float(tb)
    batch = _stack_shape(a.shape, b.shape, "BatchMatMul")
    a3 = _contig(np.broadcast_to(a, batch + a.shape[-2:])).reshape(-1, *a.shape[-2:])
    b3 = _contig(np.broadcast_to(b, batch + b.shape[-2:])).reshape(-1, *b.shape[-2:])
    k = _k()
    out = k.batch_matmul(a3, b3, transpose_a, transpose_b)

    def grad_fn() -> GradFn:
        def backward(g: Array) -> tuple[Array | None, Array | None]:
            g3 = _contig(g).reshape(out.shape)
            ga = gb = None
            if ta._tracked:  # d op(a) = g @ op(b).T, transposed back when a was
                d = (
                    k.batch_matmul(b3, g3, transpose_b, True)
                    if transpose_a
                    else k.batch_matmul(g3, b3, False, not transpose_b)
                )
                ga = unbroadcast(d.reshape(batch + a.shape[-2:]), a.shape)
            if tb._tracked:
                d = (
                    k.batch_matmul(g3, a3, True, transpose_a)
                    if transpose_b
                    else k.batch_matmul(a3, g3, not transpose_a, False)
                )
                gb = unbroadcast(d.reshape(batch + b.shape[-2:]), b.shape)
            return ga, gb

        return backward

    return record(out.reshape(batch + out.shape[-2:]), (ta, tb), grad_fn)


def bmm(input_x: Any, mat2: Any) -> Tensor:
    """Batched matrix product of two tensors of 3 or more dimensions (batch axes broadcast)."""
    return batch_matmul(input_x, mat2)


# --- masking and splitting ---------------------------------------------------------------
def masked_fill(input_x: Any, mask: Any, value: Any) -> Tensor:
    """`value` where `mask` is True, `input_x` elsewhere (mask and value broadcast to its shape)."""
    x, m = as_tensor(input_x), as_tensor(mask)
    if m._data.dtype.kind != "b":
        raise TypeError(
            f"For 'masked_fill', the argument 'mask' must be a bool tensor, but got {m.dtype}."
        )
    fill = (
        f.cast(value, x.dtype)
        if hasattr(value, "shape")
        else f.as_tensor(np.asarray(value, dtype=x._data.dtype))
    )
    out = e.select(m, fill, x)
    if out.shape != x.shape:
        raise ValueError(
            f"For 'masked_fill', 'mask' {m.shape} and 'value' must broadcast to the input's shape {x.shape}, "
            f"but the result has shape {out.shape}."
        )
    return out


def split(
    tensor: Any, split_size_or_sections: int | Sequence[int], axis: int = 0
) -> tuple[Tensor, ...]:
    """Split along `axis` into pieces of `split_size_or_sections` (the last may be shorter) or of the listed sizes."""
    t = as_tensor(tensor)
    n = t.shape[axis]
    if isinstance(split_size_or_sections, int) and not isinstance(
        split_size_or_sections, bool
    ):
        size = check_positive_int(
            split_size_or_sections, "split_size_or_sections", "split"
        )
        sections = [min(size, n - s) for s in range(0, n, size)]
    elif isinstance(split_size_or_sections, (list, tuple)):
        sections = [int(s) for s in split_size_or_sections]
        if sum(sections) != n or any(s < 0 for s in sections):
            raise ValueError(
                f"For 'split', the sizes in 'split_size_or_sections' must be >= 0 and add up to "
                f"{n} (axis {axis}), but got {list(split_size_or_sections)}."
            )
    else:
        raise TypeError(
            f"For 'split', the argument 'split_size_or_sections' must be an int, list or tuple, "
            f"but got {split_size_or_sections!r}."
        )
    index: list[Any] = [slice(None)] * t.ndim
    parts = []
    start = 0
    for size in sections:
        index[axis % t.ndim] = slice(start, start + size)
        parts.append(f.getitem(t, tuple(index)))
        start += size
    return tuple(parts)


# --- normalization -----------------------------------------------------------------------
def _norm(
    t: Tensor,
    rows: Array,
    params: tuple[Tensor, Tensor],
    run: Any,
    args: tuple[Any, ...],
) -> tuple[Tensor, Array]:
    """Record one normalization kernel call (`run(step)` is its forward or backward); return (y, stats)."""
    gamma, beta = params
    g, b = _float(gamma).reshape(-1), _float(beta).reshape(-1)
    y, stats = run("forward")(rows, g, b, *args)

    def grad_fn() -> GradFn:
        def backward(grad: Array) -> tuple[Array, Array, Array]:
            dx, dg, db = run("backward")(
                _contig(grad).reshape(rows.shape), rows, g, stats, *args[:-1]
            )
            return dx.reshape(t.shape), dg.reshape(gamma.shape), db.reshape(beta.shape)

        return backward

    return record(y.reshape(t.shape), (t, gamma, beta), grad_fn), stats


def normalize_trailing(
    x: Any, gamma: Tensor, beta: Tensor, axes: tuple[int, int], eps: float
) -> tuple[Tensor, Array]:
    """Layer normalization; return (y, stats (2, rows): mean and 1 / std per row).

    Statistics over the axes from `axes[0]`, gamma and beta over those from `axes[1]`
    (both non-negative).
    """
    t = as_tensor(x)
    xd = _float(t)
    norm_axis, params_axis = axes
    width = int(np.prod(xd.shape[norm_axis:]))
    k = _k()
    fused = norm_axis == params_axis
    if (
        not fused
    ):  # gamma covers other axes than the statistics: scale afterwards, by broadcasting
        ones = f.ones((width,), t.dtype)
        params = (ones, f.zeros((width,), t.dtype))
    y, stats = _norm(
        t,
        xd.reshape(-1, width),
        (gamma, beta) if fused else params,
        lambda step: getattr(k, f"layer_norm_{step}"),
        (float(eps),),
    )
    return (y if fused else f.add(f.mul(y, gamma), beta)), stats


def normalize_groups(
    x: Any, num_groups: int, gamma: Tensor, beta: Tensor, eps: float
) -> Tensor:
    """Normalize (N, C, ...) input over each of `num_groups` channel groups; gamma, beta per channel."""
    t = as_tensor(x)
    xd = _float(t)
    k = _k()
    return _norm(
        t,
        xd.reshape(xd.shape[0], xd.shape[1], -1),
        (gamma, beta),
        lambda step: getattr(k, f"group_norm_{step}"),
        (num_groups, float(eps)),
    )[0]


def layer_norm(
    input: Any,
    normalized_shape: Sequence[int],
    weight: Any = None,
    bias: Any = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize over the trailing axes `normalized_shape`, then scale by `weight` and shift by `bias`."""
    t = as_tensor(input)
    shape = tuple(int(n) for n in normalized_shape)
    if not shape or t.shape[t.ndim - len(shape) :] != shape:
        raise ValueError(
            f"For 'layer_norm', the argument 'normalized_shape' must be the input's trailing axes, "
            f"but got {tuple(normalized_shape)} for input shape {t.shape}."
        )
    gamma = f.ones(shape, t.dtype) if weight is None else as_tensor(weight)
    beta = f.zeros(shape, t.dtype) if bias is None else as_tensor(bias)
    axis = t.ndim - len(shape)
    return normalize_trailing(t, gamma, beta, (axis, axis), eps)[0]


def group_norm(
    input: Any, num_groups: int, weight: Any = None, bias: Any = None, eps: float = 1e-5
) -> Tensor:
    """Normalize (N, C, ...) input over each of `num_groups` channel groups, then scale and shift per channel."""
    t = as_tensor(input)
    check_positive_int(num_groups, "num_groups", "group_norm")
    if t.ndim < 2 or t.shape[1] % num_groups:
        raise ValueError(
            f"For 'group_norm', the input must be (N, C, ...) with C divisible by 'num_groups' "
            f"({num_groups}), but got shape {t.shape}."
        )
    channels = (t.shape[1],)
    gamma = f.ones(channels, t.dtype) if weight is None else as_tensor(weight)
    beta = f.zeros(channels, t.dtype) if bias is None else as_tensor(bias)
    return normalize_groups(t, num_groups, gamma, beta, eps)


def layer_norm_with_statistics(
    input_x: Any,
    gamma: Any,
    beta: Any,
    *,
    begin_norm_axis: int = 1,
    begin_params_axis: int = 1,
    epsilon: float = 1e-7,
) -> tuple[Tensor, Tensor, Tensor]:
    """MindSpore's `LayerNorm` operator: (y, mean, variance), the statistics with the normalized axes kept as 1."""
    t = as_tensor(input_x)
    axes = (begin_norm_axis % t.ndim, begin_params_axis % t.ndim)
    g, b = as_tensor(gamma), as_tensor(beta)
    if g.shape != t.shape[axes[1] :] or b.shape != g.shape:
        raise ValueError(
            f"For 'LayerNorm', 'gamma' and 'beta' must have the input's shape from begin_params_axis="
            f"{begin_params_axis}, {t.shape[axes[1] :]}, but got {g.shape} and {b.shape}."
        )
    y, stats = normalize_trailing(t, g, b, axes, epsilon)
    kept = t.shape[: axes[0]] + (1,) * (t.ndim - axes[0])
    host = np.asarray(
        stats
    )  # statistics are outputs without a gradient, as the operator's are
    mean = host[0].reshape(kept)
    variance = (
        (1.0 / (host[1].astype(np.float64) ** 2) - epsilon)
        .astype(host.dtype)
        .reshape(kept)
    )
    return y, Tensor._wrap(mean), Tensor._wrap(variance)


# --- smooth activations ------------------------------------------------------------------
def _smooth(name: str, input: Any, alpha: float = 0.0) -> Tensor:
    t = as_tensor(input)
    xd = _float(t)
    k = _k()
    code = SMOOTH_ACT_CODES[name]
    y = k.smooth_act_forward(xd, code, alpha)
    return record(
        y, (t,), lambda: lambda g: (k.smooth_act_backward(_contig(g), xd, code, alpha),)
    )


def gelu(input: Any, approximate: str = "none") -> Tensor:
    """X * P(X <= x) for a standard normal X: exact (`'none'`, through erf) or the `'tanh'` approximation."""
    check_choice(approximate, "approximate", ("none", "tanh"), "gelu")
    return _smooth("gelu" if approximate == "none" else "gelu_tanh", input)


def erf(input: Any) -> Tensor:
    """Elementwise Gauss error function."""
    return _smooth("erf", input)


def silu(input: Any) -> Tensor:
    """X * sigmoid(x)."""
    return _smooth("silu", input)


def leaky_relu(input: Any, alpha: float = 0.2) -> Tensor:
    """X where x > 0, else alpha * x."""
    return _smooth("leaky_relu", input, check_number(alpha, "alpha", "leaky_relu"))


def prelu(input: Any, weight: Any) -> Tensor:
    """X where x > 0, else weight * x, with one learned slope per channel (axis 1) or one for all."""
    x, w = as_tensor(input), as_tensor(weight)
    channels = x.shape[1] if x.ndim >= 2 else 1
    if w.ndim != 1 or w.shape[0] not in (1, channels):
        raise ValueError(
            f"For 'prelu', the argument 'weight' must be 1-D of size 1 or {channels} (the channels of "
            f"input shape {x.shape}), but got shape {w.shape}."
        )
    slope = f.reshape(w, (-1,) + (1,) * (x.ndim - 2)) if x.ndim >= 2 else w
    return e.select(f.greater(x, 0), x, f.mul(slope, x))
