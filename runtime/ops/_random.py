"""Random tensors: `rand`, `randn`, `randint`, `uniform`, `normal`, `StandardNormal`, `UniformReal`, `UniformInt`.

Values are drawn on the host by numpy's PCG64 generators (no kernel loop: a draw is
one vectorized numpy call, then the tensor moves to the device like any constant).
Without an op seed they come from the `"random"` stream of `cadence.set_seed`; a
functional op's `seed`, or an operator's nonzero `seed`/`seed2`, selects a generator
of its own that depends only on those seeds, as in MindSpore: an operator object
keeps its generator, so its calls continue one sequence and a second object built
with the same seeds repeats it. The numbers differ from MindSpore's (another
generator); shapes, dtypes and argument errors are MindSpore 2.10's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compute import _dtype
from ..compute._context import rng, seeded_rng
from ..compute._tensor import Tensor
from ..validation import check_int
from ._primitive import Primitive

__all__ = [
    "StandardNormal",
    "UniformInt",
    "UniformReal",
    "normal",
    "rand",
    "randint",
    "randn",
    "uniform",
]

_STREAM = "random"
_FLOATS = ("float16", "float32", "float64")
_INTS = ("int8", "int16", "int32", "int64", "uint8")


def _functional_rng(op: str, seed: Any) -> np.random.Generator:
    if seed is None:
        return rng(_STREAM)
    return seeded_rng(_STREAM, check_int(seed, "seed", op, minimum=0))


def _dims(op: str, name: str, dims: Any) -> tuple[int, ...]:
    """A shape of non-negative ints from a tuple (or, where MindSpore takes one, a Tensor)."""
    if isinstance(dims, Tensor):
        dims = tuple(np.asarray(dims.asnumpy()).reshape(-1).tolist())
    if not isinstance(dims, tuple) or not all(
        isinstance(d, int | np.integer) and not isinstance(d, bool) for d in dims
    ):
        raise TypeError(
            f"For '{op}', the argument '{name}' must be a tuple of ints, but got {dims!r}."
        )
    if any(d < 0 for d in dims):
        raise ValueError(
            f"For '{op}', the argument '{name}' must hold sizes >= 0, but got {dims!r}."
        )
    return tuple(int(d) for d in dims)


def _size_args(op: str, size: tuple[Any, ...]) -> tuple[int, ...]:
    """`rand(2, 3)` or `rand((2, 3))`; `rand()` is one element, as MindSpore's."""
    if len(size) == 1 and isinstance(size[0], tuple | list):
        return _dims(op, "size", tuple(size[0]))
    return _dims(op, "size", size) if size else (1,)


def _kind(op: str, dtype: Any, default: Any, kinds: tuple[str, ...]) -> np.dtype[Any]:
    chosen = default if dtype is None else dtype
    np_type = _dtype.to_numpy(chosen) if isinstance(chosen, _dtype.Type) else None
    if np_type is None or np_type.name not in kinds:
        kind = "a float" if kinds is _FLOATS else "an int"
        raise ValueError(
            f"For '{op}', the argument 'dtype' must be {kind} type ({', '.join(kinds)}), "
            f"but got {dtype!r}."
        )
    return np_type


def _unit_uniform(
    gen: np.random.Generator, shape: tuple[int, ...], np_type: Any
) -> Tensor:
    """[0, 1) in `np_type`: float16 draws are float32 ones kept below 1 after rounding."""
    draw = gen.random(shape, dtype=np.float64 if np_type == np.float64 else np.float32)
    out = draw.astype(np_type)
    if np_type == np.float16:
        out = np.minimum(out, np.nextafter(np.float16(1), np.float16(0)))
    return Tensor._wrap(out)


def _standard_normal(
    gen: np.random.Generator, shape: tuple[int, ...], np_type: Any
) -> Tensor:
    draw = gen.standard_normal(
        shape, dtype=np.float64 if np_type == np.float64 else np.float32
    )
    return Tensor._wrap(draw.astype(np_type))


def _integers(
    op: str, gen: np.random.Generator, low: int, high: int, shape: Any, np_type: Any
) -> Tensor:
    if low >= high:
        raise ValueError(
            f"For '{op}', the lower bound must be less than the upper bound, but got "
            f"{low} and {high}."
        )
    return Tensor._wrap(gen.integers(low, high, shape, dtype=np.int64).astype(np_type))


def rand(*size: Any, dtype: Any = None, seed: int | None = None) -> Tensor:
    """Numbers drawn uniformly from [0, 1), of shape `size` (ints or one tuple) and a float `dtype` (Float32)."""
    shape = _size_args("rand", size)
    np_type = _kind("rand", dtype, _dtype.float32, _FLOATS)
    return _unit_uniform(_functional_rng("rand", seed), shape, np_type)


def randn(*size: Any, dtype: Any = None, seed: int | None = None) -> Tensor:
    """Numbers drawn from the standard normal distribution, of shape `size` and a float `dtype` (Float32)."""
    shape = _size_args("randn", size)
    np_type = _kind("randn", dtype, _dtype.float32, _FLOATS)
    return _standard_normal(_functional_rng("randn", seed), shape, np_type)


def randint(
    low: int,
    high: int,
    size: tuple[int, ...],
    seed: int | None = None,
    *,
    dtype: Any = None,
) -> Tensor:
    """Integers drawn uniformly from [low, high), of shape `size` (a tuple) and an int `dtype` (Int64)."""
    check_int(low, "low", "randint")
    check_int(high, "high", "randint")
    if not isinstance(size, tuple):
        raise ValueError(
            f"For 'randint', the argument 'size' must be a tuple, but got {size!r}."
        )
    shape = _dims("randint", "size", size)
    np_type = _kind("randint", dtype, _dtype.int64, _INTS)
    return _integers(
        "randint", _functional_rng("randint", seed), low, high, shape, np_type
    )


def _bound(op: str, name: str, value: Any) -> np.ndarray[Any, Any]:
    if not isinstance(value, Tensor):
        raise TypeError(
            f"For '{op}', the argument '{name}' must be a Tensor, but got {value!r} of type "
            f"{type(value).__name__!r}."
        )
    return np.asarray(value.asnumpy())


def _broadcast(
    op: str, shape: tuple[int, ...], *arrays: np.ndarray[Any, Any]
) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(shape, *(a.shape for a in arrays)))
    except ValueError:
        raise ValueError(
            f"For '{op}', the argument 'shape' {shape} and the bounds' shapes "
            f"{[a.shape for a in arrays]} must broadcast together."
        ) from None


def uniform(
    shape: tuple[int, ...],
    minval: Any,
    maxval: Any,
    seed: int | None = None,
    dtype: Any = _dtype.float32,
) -> Tensor:
    """Numbers drawn uniformly from [minval, maxval): Float32 reals or Int32 integers, as `dtype` says.

    `minval` and `maxval` are Tensors of `dtype`: broadcast with `shape` for reals,
    scalars for integers.
    """
    dims = _dims("uniform", "shape", shape)
    lo, hi = _bound("uniform", "minval", minval), _bound("uniform", "maxval", maxval)
    if dtype not in (_dtype.int32, _dtype.float32):
        raise TypeError(
            f"For 'uniform', the argument 'dtype' must be Int32 or Float32, but got {dtype!r}."
        )
    np_type = _dtype.to_numpy(dtype)
    if lo.dtype != np_type or hi.dtype != np_type:
        raise TypeError(
            f"For 'uniform', 'minval' and 'maxval' must have the dtype {dtype!r}, but got "
            f"{minval.dtype!r} and {maxval.dtype!r}."
        )
    gen = _functional_rng("uniform", seed)
    if np_type == np.int32:
        return _uniform_int("uniform", gen, dims, lo, hi)
    out_shape = _broadcast("uniform", dims, lo, hi)
    unit = gen.random(out_shape, dtype=np.float32)
    return Tensor._wrap((lo + (hi - lo) * unit).astype(np.float32))


def _uniform_int(
    op: str, gen: np.random.Generator, shape: tuple[int, ...], lo: Any, hi: Any
) -> Tensor:
    if lo.size != 1 or hi.size != 1:
        raise ValueError(
            f"For '{op}', integer 'minval' and 'maxval' must be scalar tensors, but got shapes "
            f"{lo.shape} and {hi.shape}."
        )
    return _integers(op, gen, int(lo.item()), int(hi.item()), shape, np.int32)


def normal(
    shape: tuple[int, ...], mean: Any, stddev: Any, seed: int | None = None
) -> Tensor:
    """Float32 numbers drawn from N(mean, stddev²); `mean` and `stddev` (Tensors or numbers) broadcast with `shape`."""
    dims = _dims("normal", "shape", shape)
    mu, sigma = (
        np.asarray(
            v.asnumpy() if isinstance(v, Tensor) else _number("normal", name, v),
            np.float32,
        )
        for name, v in (("mean", mean), ("stddev", stddev))
    )
    out_shape = _broadcast("normal", dims, mu, sigma)
    draw = _functional_rng("normal", seed).standard_normal(out_shape, dtype=np.float32)
    return Tensor._wrap((mu + sigma * draw).astype(np.float32))


def _number(op: str, name: str, value: Any) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise TypeError(
            f"For '{op}', the argument '{name}' must be a Tensor or a number, but got {value!r} of "
            f"type {type(value).__name__!r}."
        )
    return float(value)


class _SeededOperator(Primitive):
    """An operator class with MindSpore's `seed`/`seed2` attributes and a generator of its own."""

    def __init__(self, seed: int = 0, seed2: int = 0) -> None:
        name = type(self).__name__
        super().__init__(name)
        self.seed = check_int(seed, "seed", name, minimum=0)
        self.seed2 = check_int(seed2, "seed2", name, minimum=0)
        self.attrs.update(seed=seed, seed2=seed2)
        # Both zero: the shared stream of `set_seed`; otherwise this object's own sequence.
        self._own = (
            None
            if seed == seed2 == 0
            else np.random.default_rng([seed, seed2, *name.encode()])
        )

    def _generator(self) -> np.random.Generator:
        return rng(_STREAM) if self._own is None else self._own


class StandardNormal(_SeededOperator):
    """`StandardNormal(seed=0, seed2=0)(shape)`: Float32 numbers drawn from N(0, 1).

    `shape` is a tuple of ints or an int Tensor. Nonzero seeds give the object its
    own sequence; both zero draw from `set_seed`'s stream.
    """

    def __call__(self, shape: Any) -> Tensor:
        """Draw a tensor of `shape`."""
        dims = _dims(self.name, "shape", shape)
        return _standard_normal(self._generator(), dims, np.float32)


class UniformReal(_SeededOperator):
    """`UniformReal(seed=0, seed2=0)(shape)`: Float32 numbers drawn uniformly from [0, 1).

    Seeds as `StandardNormal`'s.
    """

    def __call__(self, shape: Any) -> Tensor:
        """Draw a tensor of `shape`."""
        dims = _dims(self.name, "shape", shape)
        return _unit_uniform(self._generator(), dims, np.float32)


class UniformInt(_SeededOperator):
    """`UniformInt(seed=0, seed2=0)(shape, minval, maxval)`: Int32 integers drawn uniformly from [minval, maxval).

    `minval` and `maxval` are Int32 Tensors (scalars); seeds as `StandardNormal`'s.
    """

    def __call__(self, shape: Any, minval: Any, maxval: Any) -> Tensor:
        """Draw a tensor of `shape`."""
        dims = _dims(self.name, "shape", shape)
        lo, hi = (
            _bound(self.name, "minval", minval),
            _bound(self.name, "maxval", maxval),
        )
        if lo.dtype != np.int32 or hi.dtype != np.int32:
            raise TypeError(
                f"For '{self.name}', 'minval' and 'maxval' must be Int32 tensors, but got "
                f"{minval.dtype!r} and {maxval.dtype!r}."
            )
        return _uniform_int(self.name, self._generator(), dims, lo, hi)
