"""Attention and the Transformer encoder: `MultiheadAttention`, `TransformerEncoderLayer`, `TransformerEncoder`.

Parameter names, defaults, masks and the order of operations are MindSpore
2.10's (which follows PyTorch's): a checkpoint of one loads into the other.
The heads run as one batched matmul over (batch x heads) matrices on the
target's `batch_matmul` kernel, softmax on its softmax kernel, layer norms on
its fused layer-norm kernel.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..common.initializer import (
    HeUniform,
    Uniform,
    XavierNormal,
    XavierUniform,
    initializer,
)
from ..compute import _dtype
from ..compute._tensor import Parameter, Tensor
from ..ops import _attention as attention_ops, _functional as f, _nn as nn_ops
from ..ops._slicing import tile
from ..validation import check_number
from ._activation_cells import GELU
from ._cell import Cell, CellList
from ._checks import check_bool, check_positive_int
from ._layer_norm import LayerNorm
from ._layers import Dense, Dropout, ReLU

__all__ = ["MultiheadAttention", "TransformerEncoder", "TransformerEncoderLayer"]


def _dense(n_in: int, n_out: int, has_bias: bool, dtype: Any) -> Dense:
    """A Dense initialized as MindSpore's transformer layers initialize theirs."""
    return Dense(
        n_in,
        n_out,
        HeUniform(math.sqrt(5)),
        Uniform(1 / math.sqrt(n_in)),
        has_bias,
        dtype=dtype,
    )


def _dropout_p(owner: str, p: Any) -> float:
    return check_number(p, "dropout", owner, minimum=0.0, maximum=1.0, inclusive=True)


def _mask_array(mask: Any) -> np.ndarray[Any, Any]:
    return np.asarray(mask._data if isinstance(mask, Tensor) else mask)


def _additive_mask(
    mask: Any, name: str, shape: tuple[int, ...], dtype: np.dtype[Any]
) -> np.ndarray[Any, Any]:
    """A bool mask (True = may not attend) as 0 / -inf, a float mask as it is; checked against `shape`."""
    data = _mask_array(mask)
    if data.dtype == np.uint8:
        data = data.astype(bool)
    if data.dtype.kind not in "bf":  # ValueError, as MindSpore raises
        raise ValueError(
            f"For 'MultiheadAttention', the argument '{name}' must be a bool or float tensor, but got {data.dtype}."
        )
    if data.shape != shape:
        raise ValueError(
            f"For 'MultiheadAttention', the argument '{name}' must have shape {shape}, but got {data.shape}."
        )
    if data.dtype == bool:
        return np.where(data, -np.inf, 0.0).astype(dtype)
    return data.astype(dtype)


class MultiheadAttention(Cell):
    """Attention over `num_heads` heads: softmax(q k^T / sqrt(d)) v, projected in and out.

    Args:
        embed_dim: Model width E (query features); `num_heads` must divide it.
        num_heads: Heads.
        dropout: Drop probability of the attention weights while training.
        has_bias: Whether the in and out projections have biases.
        add_bias_kv: Append a learned key and value (`bias_k`, `bias_v`) to the sequence.
        add_zero_attn: Append a zero key and value to the sequence.
        kdim, vdim: Key and value features (default E); when they differ from E the
            projections are `q_proj_weight`, `k_proj_weight`, `v_proj_weight` instead of `in_proj_weight`.
        batch_first: Inputs and outputs are (N, L, E) instead of (L, N, E).
        dtype: Parameter dtype.

    Calling it with (query, key, value, key_padding_mask=None, need_weights=True,
    attn_mask=None, average_attn_weights=True) returns (output, weights) when
    `need_weights`, else the 1-tuple (output,), as MindSpore does.
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        has_bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        dtype: _dtype.Type | None = None,
    ) -> None:
        super().__init__()
        owner = "MultiheadAttention"
        self.embed_dim = check_positive_int(owner, "embed_dim", embed_dim)
        self.num_heads = check_positive_int(owner, "num_heads", num_heads)
        if embed_dim % num_heads:
            raise ValueError(
                f"For '{owner}', the argument 'embed_dim' must be divisible by 'num_heads' ({num_heads}), "
                f"but got {embed_dim}."
            )
        self.kdim = (
            embed_dim if kdim is None else check_positive_int(owner, "kdim", kdim)
        )
        self.vdim = (
            embed_dim if vdim is None else check_positive_int(owner, "vdim", vdim)
        )
        self.dropout = _dropout_p(owner, dropout)
        self.has_bias = check_bool(owner, "has_bias", has_bias)
        self.add_zero_attn = check_bool(owner, "add_zero_attn", add_zero_attn)
        self.batch_first = check_bool(owner, "batch_first", batch_first)
        check_bool(owner, "add_bias_kv", add_bias_kv)
        self.head_dim = embed_dim // num_heads
        dt = dtype or _dtype.float32
        self.dtype = dt
        self._packed = self.kdim == embed_dim and self.vdim == embed_dim
        e = embed_dim
        if self._packed:
            self.in_proj_weight = Parameter(
                initializer(XavierUniform(), (3 * e, e), dt)
            )
        else:
            self.q_proj_weight = Parameter(initializer(XavierUniform(), (e, e), dt))
            self.k_proj_weight = Parameter(
                initializer(XavierUniform(), (e, self.kdim), dt)
            )
            self.v_proj_weight = Parameter(
                initializer(XavierUniform(), (e, self.vdim), dt)
            )
        self.in_proj_bias: Parameter | None = (
            Parameter(initializer("zeros", (3 * e,), dt)) if has_bias else None
        )
        self.out_proj = _dense(e, e, has_bias, dt)
        self.bias_k: Parameter | None = None
        self.bias_v: Parameter | None = None
        if add_bias_kv:
            self.bias_k = Parameter(initializer(XavierNormal(), (1, 1, e), dt))
            self.bias_v = Parameter(initializer(XavierNormal(), (1, 1, e), dt))

    # --- projections -------------------------------------------------------------------
    def _bias(self, part: int) -> Tensor | None:
        if self.in_proj_bias is None:
            return None
        e = self.embed_dim
        return f.getitem(self.in_proj_bias, slice(part * e, (part + 1) * e))

    def _project(self, query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, ...]:
        """Return q, k, v, each (..., E), in the inputs' layout."""
        if not self._packed:
            weights = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
            return tuple(
                nn_ops.dense(x, w, self._bias(i))
                for i, (x, w) in enumerate(
                    zip((query, key, value), weights, strict=True)
                )
            )
        if query is key and key is value:  # self-attention: one product for all three
            return attention_ops.split(
                nn_ops.dense(query, self.in_proj_weight, self.in_proj_bias),
                self.embed_dim,
                -1,
            )
        e = self.embed_dim
        return tuple(
            nn_ops.dense(
                x,
                f.getitem(self.in_proj_weight, slice(i * e, (i + 1) * e)),
                self._bias(i),
            )
            for i, x in enumerate((query, key, value))
        )

    def _append_keys(
        self, k: Tensor, v: Tensor, batch: int
    ) -> tuple[Tensor, Tensor, int]:
        """Append bias_k / bias_v and the zero key/value along the sequence; return how many were added."""
        seq_axis = 1 if self.batch_first else 0
        added = 0
        if self.bias_k is not None and self.bias_v is not None:
            reps = (batch, 1, 1) if self.batch_first else (1, batch, 1)
            k = f.concat([k, tile(self.bias_k, reps)], seq_axis)
            v = f.concat([v, tile(self.bias_v, reps)], seq_axis)
            added += 1
        if self.add_zero_attn:
            shape = list(k.shape)
            shape[seq_axis] = 1
            k = f.concat([k, f.zeros(tuple(shape), k.dtype)], seq_axis)
            v = f.concat([v, f.zeros(tuple(shape), v.dtype)], seq_axis)
            added += 1
        return k, v, added

    def _heads(self, x: Tensor, batch: int) -> Tensor:
        """(N or L, L or N, E) -> (N * H, L, head_dim)."""
        seq = x.shape[1] if self.batch_first else x.shape[0]
        split = f.reshape(x, (*x.shape[:2], self.num_heads, self.head_dim))
        perm = (0, 2, 1, 3) if self.batch_first else (1, 2, 0, 3)
        return f.reshape(
            f.transpose(split, perm), (batch * self.num_heads, seq, self.head_dim)
        )

    def _mask(
        self,
        attn_mask: Any,
        key_padding_mask: Any,
        batch: int,
        tgt: int,
        src: int,
        added: int,
        dtype: np.dtype[Any],
    ) -> np.ndarray[Any, Any] | None:
        """The additive mask (N * H or 1, L, S + added), or None."""
        h = self.num_heads
        total: np.ndarray[Any, Any] | None = None
        if attn_mask is not None:
            ndim = _mask_array(attn_mask).ndim
            shape = (tgt, src) if ndim == 2 else (batch * h, tgt, src)
            total = _additive_mask(attn_mask, "attn_mask", shape, dtype).reshape(
                -1, tgt, src
            )
        if key_padding_mask is not None:
            pad = _additive_mask(
                key_padding_mask, "key_padding_mask", (batch, src), dtype
            )
            per_head = np.repeat(pad, h, axis=0)[:, None, :]
            total = per_head if total is None else total + per_head
        if total is not None and added:
            total = np.pad(total, ((0, 0), (0, 0), (0, added)))
        return total

    def construct(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
    ) -> tuple[Tensor, ...]:
        """Attend from `query` to `key`/`value`; see the class docstring for the result."""
        q_in, k_in, v_in = (f.as_tensor(x) for x in (query, key, value))
        if q_in.ndim not in (2, 3) or k_in.ndim != q_in.ndim or v_in.ndim != q_in.ndim:
            raise ValueError(
                f"For 'MultiheadAttention', query, key and value must all be 2-D (unbatched) or 3-D, "
                f"but got shapes {q_in.shape}, {k_in.shape}, {v_in.shape}."
            )
        unbatched = q_in.ndim == 2
        if unbatched:
            axis = 0 if self.batch_first else 1
            same_kv = k_in is v_in
            same_qk = q_in is k_in
            q_in = f.expand_dims(q_in, axis)
            k_in = q_in if same_qk else f.expand_dims(k_in, axis)
            v_in = k_in if same_kv else f.expand_dims(v_in, axis)
            if key_padding_mask is not None:
                key_padding_mask = Tensor(_mask_array(key_padding_mask)[None])
        batch_axis, seq_axis = (0, 1) if self.batch_first else (1, 0)
        batch, tgt = q_in.shape[batch_axis], q_in.shape[seq_axis]
        src = k_in.shape[seq_axis]
        if (
            q_in.shape[-1] != self.embed_dim
            or k_in.shape[-1] != self.kdim
            or v_in.shape[-1] != self.vdim
        ):
            raise ValueError(
                f"For 'MultiheadAttention', the last axes of query, key and value must be "
                f"{(self.embed_dim, self.kdim, self.vdim)}, but got shapes {q_in.shape}, {k_in.shape}, {v_in.shape}."
            )
        q, k, v = self._project(q_in, k_in, v_in)
        k, v, added = self._append_keys(k, v, batch)
        qh, kh, vh = self._heads(q, batch), self._heads(k, batch), self._heads(v, batch)
        scores = attention_ops.batch_matmul(
            f.mul(qh, 1.0 / math.sqrt(self.head_dim)), kh, transpose_b=True
        )
        mask = self._mask(
            attn_mask, key_padding_mask, batch, tgt, src, added, scores._data.dtype
        )
        if mask is not None:
            scores = f.add(scores, Tensor._wrap(mask))
        weights = nn_ops.softmax(scores, -1)
        if self.training and self.dropout > 0:
            weights = nn_ops.dropout(weights, self.dropout)
        heads = attention_ops.batch_matmul(weights, vh)  # (N * H, L, head_dim)
        merged = f.reshape(heads, (batch, self.num_heads, tgt, self.head_dim))
        merged = f.transpose(merged, (0, 2, 1, 3) if self.batch_first else (2, 0, 1, 3))
        out = self.out_proj(f.reshape(merged, (*merged.shape[:2], self.embed_dim)))
        if unbatched:
            out = f.squeeze(out, batch_axis)
        if not need_weights:
            return (out,)
        w = f.reshape(weights, (batch, self.num_heads, tgt, weights.shape[-1]))
        if average_attn_weights:
            w = f.mean(w, 1)
        if unbatched:
            w = f.squeeze(w, 0)
        return out, w

    def extend_repr(self) -> str:
        """Show the configuration."""
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, dropout={self.dropout}, batch_first={self.batch_first}"


def _activation(activation: Any) -> tuple[Any, str | None]:
    """Return (the callable, 'relu' when it can be fused into the first dense layer)."""
    from .. import ops

    if isinstance(activation, str):
        if activation not in ("relu", "gelu"):
            raise ValueError(
                f"For 'TransformerEncoderLayer', the argument 'activation' must be 'relu' or 'gelu', "
                f"but got {activation!r}."
            )
        return (ops.relu if activation == "relu" else ops.gelu), (
            "relu" if activation == "relu" else None
        )
    if isinstance(activation, Cell):
        if not isinstance(activation, (ReLU, GELU)):
            raise ValueError(
                f"For 'TransformerEncoderLayer', an 'activation' Cell must be nn.ReLU or nn.GELU, but got {activation!r}."
            )
        return activation, ("relu" if isinstance(activation, ReLU) else None)
    if activation is ops.relu or activation is ops.gelu:
        return activation, ("relu" if activation is ops.relu else None)
    raise ValueError(
        f"For 'TransformerEncoderLayer', the argument 'activation' must be 'relu', 'gelu', nn.ReLU, nn.GELU, "
        f"ops.relu or ops.gelu, but got {activation!r}."
    )


class TransformerEncoderLayer(Cell):
    """Self-attention then a feed-forward block, each with a residual connection and a layer norm.

    Args:
        d_model: Model width.
        nhead: Attention heads.
        dim_feedforward: Width of the feed-forward block.
        dropout: Drop probability (attention weights, and after each block and the activation).
        activation: 'relu' or 'gelu' (erf form), nn.ReLU / nn.GELU, or ops.relu / ops.gelu.
        layer_norm_eps: The layer norms' epsilon.
        batch_first: Inputs are (N, S, E) instead of (S, N, E).
        norm_first: Normalize before each block (pre-norm) instead of after (post-norm).
        dtype: Parameter dtype.
    """

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,  # a number in [0, 1]
        activation: Any = "relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        dtype: Any = None,
    ) -> None:
        # The arguments, first thing: `TransformerEncoder` builds its layers from them.
        self._config = {
            k: v for k, v in locals().items() if k not in ("self", "__class__")
        }
        super().__init__()
        owner = "TransformerEncoderLayer"
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dtype
        )
        check_positive_int(owner, "dim_feedforward", dim_feedforward)
        self.dense1 = _dense(d_model, dim_feedforward, True, dtype)
        self.dense2 = _dense(dim_feedforward, d_model, True, dtype)
        self.norm_first = check_bool(owner, "norm_first", norm_first)
        eps = check_number(
            layer_norm_eps, "layer_norm_eps", owner, minimum=0.0, inclusive=False
        )
        self.norm1 = LayerNorm((d_model,), epsilon=eps, dtype=dtype)
        self.norm2 = LayerNorm((d_model,), epsilon=eps, dtype=dtype)
        p = _dropout_p(owner, dropout)
        self.dropout = Dropout(p=p)
        self.dropout1 = Dropout(p=p)
        self.dropout2 = Dropout(p=p)
        self.activation, self._fused = _activation(activation)

    def _sa_block(self, x: Tensor, attn_mask: Any, key_padding_mask: Any) -> Tensor:
        out = self.self_attn(
            x,
            x,
            x,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            need_weights=False,
        )[0]
        return self.dropout1(out)  # type: ignore[no-any-return]

    def _ff_block(self, x: Tensor) -> Tensor:
        if self._fused is not None:
            hidden = self.dense1.fused(x, self._fused)
        else:
            hidden = self.activation(self.dense1(x))
        return self.dropout2(self.dense2(self.dropout(hidden)))  # type: ignore[no-any-return]

    def construct(
        self, src: Any, src_mask: Any = None, src_key_padding_mask: Any = None
    ) -> Tensor:
        """Encode `src`; masks as `MultiheadAttention`'s `attn_mask` and `key_padding_mask`."""
        x = src if isinstance(src, Tensor) else Tensor(src)
        if self.norm_first:
            x = f.add(x, self._sa_block(self.norm1(x), src_mask, src_key_padding_mask))
            return f.add(x, self._ff_block(self.norm2(x)))
        x = self.norm1(f.add(x, self._sa_block(x, src_mask, src_key_padding_mask)))
        return self.norm2(f.add(x, self._ff_block(x)))  # type: ignore[no-any-return]


class TransformerEncoder(Cell):
    """`num_layers` encoder layers configured like `encoder_layer` (each freshly initialized), then `norm`.

    Args:
        encoder_layer: The layer to replicate (its configuration; weights are new per layer, as in MindSpore).
        num_layers: Layers.
        norm: An optional final normalization cell.
    """

    def __init__(
        self,
        encoder_layer: TransformerEncoderLayer,
        num_layers: int,
        norm: Cell | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(encoder_layer, TransformerEncoderLayer):
            raise TypeError(
                f"For 'TransformerEncoder', the argument 'encoder_layer' must be a TransformerEncoderLayer, "
                f"but got {type(encoder_layer).__name__}."
            )
        self.num_layers = check_positive_int(
            "TransformerEncoder", "num_layers", num_layers
        )
        self.layers = CellList(
            [
                TransformerEncoderLayer(**encoder_layer._config)
                for _ in range(num_layers)
            ]
        )
        if norm is not None and not isinstance(norm, Cell):
            raise TypeError(
                f"For 'TransformerEncoder', the argument 'norm' must be a Cell or None, but got {norm!r}."
            )
        self.norm = norm

    def construct(
        self, src: Any, src_mask: Any = None, src_key_padding_mask: Any = None
    ) -> Tensor:
        """Run every layer, then `norm`."""
        out = src if isinstance(src, Tensor) else Tensor(src)
        for layer in self.layers:
            out = layer(
                out, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask
            )
        return out if self.norm is None else self.norm(out)
