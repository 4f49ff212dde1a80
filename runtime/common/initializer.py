"""Parameter initializers with MindSpore's names (`from cadence.common.initializer import Normal`).

Random initializers draw from the `"init"` stream of `cadence.set_seed`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..compute import _dtype
from ..compute._context import rng
from ..compute._tensor import Tensor

__all__ = [
    "Constant",
    "HeNormal",
    "HeUniform",
    "Initializer",
    "Normal",
    "One",
    "TruncatedNormal",
    "Uniform",
    "XavierNormal",
    "XavierUniform",
    "Zero",
    "initializer",
]


def _fans(shape: tuple[int, ...]) -> tuple[int, int]:
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


class Initializer:
    """Base of initializers; subclasses implement `_fill(shape) -> numpy array`."""

    def _fill(self, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
        raise NotImplementedError

    def __call__(self, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
        """Return a float64 array of `shape` filled by this initializer."""
        return np.asarray(self._fill(tuple(shape)), dtype=np.float64)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class Zero(Initializer):
    """Fill with zeros."""

    def _fill(self, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
        return np.zeros(shape)


class One(Initializer):
    """Fill with ones."""

    def _fill(self, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
        return np.ones(shape)


class Constant(Initializer):
    """Fill with `value`."""

    def __init__(self, value: float) -> None:
        self.value = value

    def _fill(self, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
        return np.full(shape, self.value, dtype=np.float64)


class Normal(Initializer):
    """Draw from N(`mean`, `sigma`**2)."""

    def __init__(self, sigma: float = 0.01, mean: float = 0.0) -> None:
        self.sigma = sigma
        self.mean = mean

    def _fill(self, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
        return rng("init").normal(self.mean, self.sigma, shape)


class TruncatedNormal(Initializer):
    """Draw from N(`mean`, `sigma`**2) truncated to [`a`, `b`]."""

    def __init__(
        self, sigma: float = 0.01, mean: float = 0.0, a: float = -2.0, b: float = 2.0
    ) -> None:
        self.sigma = sigma
        self.mean = mean
        self.a = a
        self.b = b

    def _fill(self, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
        out = rng("init").normal(self.mean, self.sigma, shape)
        bad = (out < self.a) | (out > self.b)
        while bad.any():
            out[bad] = rng("init").normal(self.mean, self.sigma, int(bad.sum()))
            bad = (out < self.a) | (out > self.b)
        return out


class Uniform(Initializer):
    """Draw from U(-`scale`, `scale`)."""

    def __init__(self, scale: float = 0.07) -> None:
        self.scale = scale

    def _fill(self, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
        return rng("init").uniform(-self.scale, self.scale, shape)


def _gain(nonlinearity: str, negative_slope: float) -> float:
    if nonlinearity == "leaky_relu":
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "tanh":
        return 5.0 / 3
    return 1.0


class _Kaiming(Initializer):
    """What HeUniform and HeNormal share: their arguments, the gain and the chosen fan."""

    def __init__(
        self,
        negative_slope: float = 0,
        mode: str = "fan_in",
        nonlinearity: str = "leaky_relu",
    ) -> None:
        self.negative_slope = negative_slope
        self.mode = mode
        self.nonlinearity = nonlinearity

    def _gain_and_fan(self, shape: tuple[int, ...]) -> tuple[float, int]:
        fan_in, fan_out = _fans(shape)
        fan = fan_in if self.mode == "fan_in" else fan_out
        return _gain(self.nonlinearity, self.negative_slope), fan


class HeUniform(_Kaiming):
    """Kaiming uniform: U(-b, b) with b = gain * sqrt(3 / fan)."""

    def _fill(self, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
        gain, fan = self._gain_and_fan(shape)
        bound = gain * math.sqrt(3.0 / fan)
        return rng("init").uniform(-bound, bound, shape)


class HeNormal(_Kaiming):
    """Kaiming normal: N(0, (gain / sqrt(fan))**2)."""

    def _fill(self, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
        gain, fan = self._gain_and_fan(shape)
        return rng("init").normal(0.0, gain / math.sqrt(fan), shape)


class XavierUniform(Initializer):
    """Glorot uniform: U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, gain: float = 1) -> None:
        self.gain = gain

    def _fill(self, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
        fan_in, fan_out = _fans(shape)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return rng("init").uniform(-bound, bound, shape)


class XavierNormal(Initializer):
    """Glorot normal: N(0, gain**2 * 2 / (fan_in + fan_out))."""

    def __init__(self, gain: float = 1) -> None:
        self.gain = gain

    def _fill(self, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
        fan_in, fan_out = _fans(shape)
        return rng("init").normal(
            0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)), shape
        )


_BY_NAME: dict[str, type[Initializer]] = {
    "zeros": Zero,
    "zero": Zero,
    "ones": One,
    "one": One,
    "normal": Normal,
    "truncatednormal": TruncatedNormal,
    "uniform": Uniform,
    "heuniform": HeUniform,
    "henormal": HeNormal,
    "xavieruniform": XavierUniform,
    "xaviernormal": XavierNormal,
}


def initializer(init: Any, shape: Any = None, dtype: Any = _dtype.float32) -> Tensor:
    """Return a Tensor of `shape` and `dtype` filled by `init`.

    Args:
        init: An `Initializer`, its name (`"normal"`, `"zeros"`, `"he_uniform"`,
            ...), a number, or a Tensor / numpy array (used as is; its shape must match).
        shape: The shape (int or sequence of ints).
        dtype: A cadence type.

    Raises:
        ValueError: For an unknown name or a shape mismatch.
        TypeError: For an unsupported `init`.
    """
    np_dtype = _dtype.to_numpy(dtype)
    shp: tuple[int, ...] = (shape,) if isinstance(shape, int) else tuple(shape or ())
    if isinstance(init, (Tensor, np.ndarray)):
        arr = np.asarray(init)
        if shape is not None and arr.shape != shp:
            raise ValueError(
                f"For 'initializer', the shape of `init` {arr.shape} does not match `shape` {shp}."
            )
        return Tensor._wrap(arr.astype(np_dtype))
    if isinstance(init, str):
        cls = _BY_NAME.get(init.lower().replace("_", ""))
        if cls is None:
            raise ValueError(
                f"For 'initializer', unknown initializer name {init!r}; valid: {sorted(_BY_NAME)}."
            )
        init = cls()
    elif isinstance(init, (int, float)) and not isinstance(init, bool):
        init = Constant(init)
    if not isinstance(init, Initializer):
        raise TypeError(
            f"For 'initializer', `init` must be an Initializer, name, number, Tensor or array, but got {init!r}."
        )
    return Tensor._wrap(init(shp).astype(np_dtype))
