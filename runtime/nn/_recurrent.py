"""Recurrent layers with MindSpore's names: `RNN`, `GRU`, `LSTM` and `RNNCell`, `GRUCell`, `LSTMCell`.

Parameter names, shapes, gate order and initialization are MindSpore 2.x's
(`weight_ih_l0`, `weight_hh_l0_reverse`, `bias_ih_l1`, ...; LSTM gates i, f, g, o;
GRU gates r, z, n), so MindSpore checkpoints load. Each layer and direction
runs its whole time loop in one kernel call (`cadence.ops._recurrent`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import ops
from ..common.initializer import Uniform, initializer
from ..compute import _dtype
from ..compute._tensor import Parameter, ParameterTuple, Tensor
from ..ops import _nn as nn_ops
from ..ops._recurrent import MODES, recurrent
from ._cell import Cell
from ._checks import check_bool, check_positive_int

__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _rnn_mode(owner: str, nonlinearity: Any) -> str:
    if nonlinearity not in ("tanh", "relu"):
        raise ValueError(
            f"For '{owner}', the argument 'nonlinearity' must be 'tanh' or 'relu', but got {nonlinearity!r}."
        )
    return "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"


def _uniform(
    shape: tuple[int, ...], hidden_size: int, dtype: Any, name: str
) -> Parameter:
    # MindSpore draws every recurrent weight and bias from U(-1/sqrt(H), 1/sqrt(H)).
    return Parameter(
        initializer(Uniform(1 / math.sqrt(hidden_size)), shape, dtype), name=name
    )


def _float_tensor(owner: str, name: str, value: Any, ndim: int) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(
            f"For '{owner}', the '{name}' must be a Tensor, but got {type(value).__name__}."
        )
    if value.ndim != ndim or value._data.dtype.kind != "f":
        raise ValueError(
            f"For '{owner}', the '{name}' must be a {ndim}-D float Tensor, but got {value.dtype} of shape {value.shape}."
        )
    return value


def _check_shape(owner: str, name: str, t: Tensor, shape: tuple[int, ...]) -> Tensor:
    if tuple(t.shape) != shape:
        raise ValueError(
            f"For '{owner}', the '{name}' must have shape {shape}, but got {tuple(t.shape)}."
        )
    return t


def _state(owner: str, hx: Any, is_lstm: bool) -> tuple[Any, Any]:
    """Split an initial state into (h, c): a tuple of two tensors for the LSTM, one tensor otherwise."""
    if not is_lstm:
        return hx, None
    if not isinstance(hx, (tuple, list)) or len(hx) != 2:
        raise TypeError(
            f"For '{owner}', the 'hx' must be a tuple of two Tensors (h, c), but got {hx!r}."
        )
    return hx[0], hx[1]


class _RNNBase(Cell):
    """What RNN, GRU and LSTM share: the parameter lists and the stacked, bidirectional loop."""

    _MODE = ""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        has_bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        owner = type(self).__name__
        self.input_size = check_positive_int(owner, "input_size", input_size)
        self.hidden_size = check_positive_int(owner, "hidden_size", hidden_size)
        self.num_layers = check_positive_int(owner, "num_layers", num_layers)
        self.has_bias = check_bool(owner, "has_bias", has_bias)
        self.batch_first = check_bool(owner, "batch_first", batch_first)
        self.bidirectional = check_bool(owner, "bidirectional", bidirectional)
        if not isinstance(dropout, float | int) or isinstance(dropout, bool):  # type: ignore[redundant-expr]
            raise TypeError(
                f"For '{owner}', the argument 'dropout' must be a float, but got {dropout!r}."
            )
        if not 0 <= dropout < 1:
            raise ValueError(
                f"For '{owner}', the argument 'dropout' must be a number in range [0, 1), but got {dropout!r}."
            )
        self.dropout = float(dropout)
        self.mode = mode = self._MODE
        self.is_lstm = mode == "LSTM"
        dt = dtype or _dtype.float32
        directions = 2 if bidirectional else 1
        gates = _GATES[mode] * hidden_size
        w_ih, w_hh, b_ih, b_hh = [], [], [], []
        for layer in range(num_layers):
            width = input_size if layer == 0 else hidden_size * directions
            for direction in range(directions):
                suffix = f"l{layer}{'_reverse' if direction else ''}"
                w_ih.append(
                    _uniform((gates, width), hidden_size, dt, f"weight_ih_{suffix}")
                )
                w_hh.append(
                    _uniform(
                        (gates, hidden_size), hidden_size, dt, f"weight_hh_{suffix}"
                    )
                )
                if has_bias:
                    b_ih.append(
                        _uniform((gates,), hidden_size, dt, f"bias_ih_{suffix}")
                    )
                    b_hh.append(
                        _uniform((gates,), hidden_size, dt, f"bias_hh_{suffix}")
                    )
        # Registered list by list, as MindSpore does: all W_ih, then W_hh, b_ih, b_hh.
        self.w_ih_list = ParameterTuple(w_ih)
        self.w_hh_list = ParameterTuple(w_hh)
        self.b_ih_list = ParameterTuple(b_ih)
        self.b_hh_list = ParameterTuple(b_hh)

    def _weights(self, i: int) -> tuple[Tensor, Tensor, Tensor | None, Tensor | None]:
        if self.has_bias:
            return (
                self.w_ih_list[i],
                self.w_hh_list[i],
                self.b_ih_list[i],
                self.b_hh_list[i],
            )
        return self.w_ih_list[i], self.w_hh_list[i], None, None

    def _initial(
        self, owner: str, hx: Any, rows: int, dtype: Any
    ) -> tuple[Tensor, Tensor]:
        shape = (
            self.num_layers * (2 if self.bidirectional else 1),
            rows,
            self.hidden_size,
        )
        if hx is None:
            zeros = Tensor(np.zeros(shape, dtype))
            return zeros, zeros
        h, c = _state(owner, hx, self.is_lstm)
        names = ("hx[0]", "hx[1]") if self.is_lstm else ("hx", "hx")
        h = _check_shape(owner, names[0], _float_tensor(owner, names[0], h, 3), shape)
        if c is None:
            return h, Tensor(np.zeros(shape, dtype))
        return h, _check_shape(
            owner, names[1], _float_tensor(owner, names[1], c, 3), shape
        )

    def _lengths(
        self, owner: str, seq_length: Any, rows: int, steps: int
    ) -> np.ndarray[Any, Any]:
        if seq_length is None:
            return np.full(rows, steps, np.int64)
        data = seq_length._data if isinstance(seq_length, Tensor) else None
        if (
            data is None
            or data.dtype not in (np.int32, np.int64)
            or data.shape != (rows,)
        ):
            raise TypeError(
                f"For '{owner}', the 'seq_length' must be an int32 or int64 Tensor of shape ({rows},), but got {seq_length!r}."
            )
        lengths = np.asarray(data, np.int64)
        if lengths.min() < 0 or lengths.max() > steps:
            raise ValueError(
                f"For '{owner}', every 'seq_length' must lie in [0, {steps}], but got {lengths.tolist()}."
            )
        return lengths

    def construct(
        self, x: Any, hx: Any = None, seq_length: Any = None
    ) -> tuple[Tensor, Any]:
        """Run the layers over `x`; return (output, h_n), or (output, (h_n, c_n)) for the LSTM.

        Args:
            x: (seq_len, batch, input_size), or (batch, seq_len, input_size) with `batch_first`.
            hx: The initial state, (num_layers * num_directions, batch, hidden_size);
                a tuple (h_0, c_0) for the LSTM; zeros when None.
            seq_length: Optional (batch,) int32/int64 lengths: positions past a row's
                length output 0 and leave its state unchanged.
        """
        owner = type(self).__name__
        x = _float_tensor(owner, "x", x, 3)
        if self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        steps, rows, width = x.shape
        if width != self.input_size:
            raise ValueError(
                f"For '{owner}', the last dimension of 'x' must be input_size={self.input_size}, but got {width}."
            )
        h0, c0 = self._initial(owner, hx, rows, x._data.dtype)
        lengths = self._lengths(owner, seq_length, rows, steps)
        directions = 2 if self.bidirectional else 1
        h_n: list[Tensor] = []
        c_n: list[Tensor] = []
        layer_in = x
        for layer in range(self.num_layers):
            outs = []
            for direction in range(directions):
                i = layer * directions + direction
                y, h, c = recurrent(
                    MODES[self.mode],
                    layer_in,
                    h0[i],
                    c0[i],
                    self._weights(i),
                    lengths,
                    direction == 1,
                )
                outs.append(y)
                h_n.append(h)
                c_n.append(c)
            layer_in = outs[0] if directions == 1 else ops.concat(outs, 2)
            if self.training and self.dropout > 0 and layer < self.num_layers - 1:
                layer_in = nn_ops.dropout(layer_in, self.dropout)
        out = ops.transpose(layer_in, (1, 0, 2)) if self.batch_first else layer_in
        if self.is_lstm:
            return out, (ops.stack(h_n), ops.stack(c_n))
        return out, ops.stack(h_n)

    def extend_repr(self) -> str:
        """Show the sizes and options."""
        return (
            f"input_size={self.input_size}, hidden_size={self.hidden_size}, num_layers={self.num_layers}, "
            f"has_bias={self.has_bias}, batch_first={self.batch_first}, dropout={self.dropout}, "
            f"bidirectional={self.bidirectional}"
        )


class RNN(_RNNBase):
    """Elman RNN layers: h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), act tanh or ReLU.

    Args:
        input_size: Features of the input.
        hidden_size: Features of the hidden state.
        num_layers: Stacked layers.
        has_bias: Whether the layers have b_ih and b_hh.
        batch_first: Whether `x` and the output are (batch, seq_len, features).
        dropout: Dropout probability on every layer's output but the last's, while training.
        bidirectional: Also run every layer from the last position to the first.
        dtype: Parameter dtype.
        nonlinearity: 'tanh' or 'relu' (keyword only).

    Example:
        >>> import cadence as ms
        >>> import numpy as np
        >>> net = ms.nn.RNN(10, 16, num_layers=2, batch_first=True)
        >>> out, h_n = net(ms.Tensor(np.ones((3, 5, 10), np.float32)))
        >>> out.shape, h_n.shape
        ((3, 5, 16), (2, 3, 16))
    """

    def __init__(self, *args: Any, nonlinearity: str = "tanh", **kwargs: Any) -> None:
        # Keyword-only, as in MindSpore (its RNN passes positional arguments on unchanged).
        self._MODE = _rnn_mode("RNN", nonlinearity)
        super().__init__(*args, **kwargs)
        self.nonlinearity = nonlinearity


class GRU(_RNNBase):
    """Gated recurrent unit layers (gates r, z, n, as MindSpore and PyTorch order them).

    Args: as `RNN`'s, without `nonlinearity`.

    Example:
        >>> import cadence as ms
        >>> import numpy as np
        >>> net = ms.nn.GRU(10, 16, bidirectional=True)
        >>> out, h_n = net(ms.Tensor(np.ones((5, 3, 10), np.float32)))
        >>> out.shape, h_n.shape
        ((5, 3, 32), (2, 3, 16))
    """

    _MODE = "GRU"


class LSTM(_RNNBase):
    """Long short-term memory layers (gates i, f, g, o); returns (output, (h_n, c_n)).

    Args: as `RNN`'s, without `nonlinearity`.

    Example:
        >>> import cadence as ms
        >>> import numpy as np
        >>> net = ms.nn.LSTM(10, 16, num_layers=2)
        >>> out, (h_n, c_n) = net(ms.Tensor(np.ones((5, 3, 10), np.float32)))
        >>> out.shape, h_n.shape, c_n.shape
        ((5, 3, 16), (2, 3, 16), (2, 3, 16))
    """

    _MODE = "LSTM"


class _CellBase(Cell):
    """One step of a recurrent cell: MindSpore's `weight_ih`, `weight_hh`, `bias_ih`, `bias_hh`.

    GRUCell and LSTMCell take these arguments; the mode comes from the class.
    """

    _MODE = ""

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, dtype: Any = None) -> None:  # fmt: skip
        super().__init__()
        mode = self._MODE
        owner = type(self).__name__
        self.input_size = check_positive_int(owner, "input_size", input_size)
        self.hidden_size = check_positive_int(owner, "hidden_size", hidden_size)
        self.has_bias = check_bool(owner, "has_bias", has_bias)
        self.mode = mode
        dt = dtype or _dtype.float32
        gates = _GATES[mode] * hidden_size
        self.weight_ih = _uniform((gates, input_size), hidden_size, dt, "weight_ih")
        self.weight_hh = _uniform((gates, hidden_size), hidden_size, dt, "weight_hh")
        self.bias_ih: Parameter | None = None
        self.bias_hh: Parameter | None = None
        if has_bias:
            self.bias_ih = _uniform((gates,), hidden_size, dt, "bias_ih")
            self.bias_hh = _uniform((gates,), hidden_size, dt, "bias_hh")

    def construct(self, x: Any, hx: Any) -> Any:
        """Advance one step: the new h (B, hidden_size), or (h, c) for `LSTMCell`."""
        owner = type(self).__name__
        x = _float_tensor(owner, "x", x, 2)
        rows = x.shape[0]
        if x.shape[1] != self.input_size:
            raise ValueError(
                f"For '{owner}', the last dimension of 'x' must be input_size={self.input_size}, but got {x.shape[1]}."
            )
        h, c = _state(owner, hx, self.mode == "LSTM")
        shape = (rows, self.hidden_size)
        names = ("hx[0]", "hx[1]") if c is not None else ("hx", "hx")
        h = _check_shape(owner, names[0], _float_tensor(owner, names[0], h, 2), shape)
        c = (
            Tensor(np.zeros(shape, x._data.dtype))
            if c is None
            else _check_shape(
                owner, names[1], _float_tensor(owner, names[1], c, 2), shape
            )
        )
        weights = (self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        _, h_new, c_new = recurrent(
            MODES[self.mode],
            ops.expand_dims(x, 0),
            h,
            c,
            weights,
            np.ones(rows, np.int64),
            False,
        )
        return (h_new, c_new) if self.mode == "LSTM" else h_new

    def extend_repr(self) -> str:
        """Show the sizes."""
        return f"input_size={self.input_size}, hidden_size={self.hidden_size}, has_bias={self.has_bias}"


class RNNCell(_CellBase):
    """One step of an Elman RNN: h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh).

    Args:
        input_size: Features of the input.
        hidden_size: Features of the hidden state.
        has_bias: Whether the cell has b_ih and b_hh.
        nonlinearity: 'tanh' or 'relu'.
        dtype: Parameter dtype.
    """

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, nonlinearity: str = "tanh", dtype: Any = None) -> None:  # fmt: skip
        self._MODE = _rnn_mode("RNNCell", nonlinearity)
        super().__init__(input_size, hidden_size, has_bias, dtype)
        self.nonlinearity = nonlinearity


class GRUCell(_CellBase):
    """One GRU step (gates r, z, n); `construct(x, hx)` returns the new h.

    Args: as `RNNCell`'s, without `nonlinearity`.
    """

    _MODE = "GRU"


class LSTMCell(_CellBase):
    """One LSTM step (gates i, f, g, o); `construct(x, (h, c))` returns (h', c').

    MindSpore 2.x's single-step cell (1.x's `LSTMCell` was a whole layer).

    Args: as `RNNCell`'s, without `nonlinearity`.
    """

    _MODE = "LSTM"
