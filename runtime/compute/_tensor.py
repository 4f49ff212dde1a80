"""`Tensor`, `Parameter` and `ParameterTuple`: numpy-backed arrays with MindSpore's surface.

Arithmetic and methods go through `cadence.ops`, so they are recorded on the
autograd tape when it is on (see `_autograd`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self, cast, final

import numpy as np
import numpy.typing as npt

from . import _dtype

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from types import ModuleType

    # The type checker reads the operations' signatures here; at run time they are bound.
    from ..ops import _functional as F, _tensor_methods as M  # noqa: N812 - the functional-ops idiom
    from ._autograd import Node
    from ._dtype import Type
else:
    F = M = None  # bound by `bind_functional` when `cadence.ops` is imported

__all__ = ["Parameter", "ParameterTuple", "Tensor", "bind_functional", "format_value"]


def bind_functional(functional: ModuleType, methods: ModuleType) -> None:
    """Give `Tensor`'s operators and methods the functions they run (`cadence.ops`).

    The ops build on `Tensor`, so this module cannot import them without a cycle;
    `cadence.ops` hands its functional module over when it is imported, which
    happens before any tensor is made (importing `cadence` imports `cadence.ops`).
    """
    globals()["F"] = functional
    globals()["M"] = (
        methods  # ops composed from the functional ones (masked_fill, softmax, ...)
    )


NDArray = npt.NDArray[Any]


def _to_array(data: Any, dtype: Any) -> NDArray:
    if isinstance(data, Tensor):
        data = data._data
    if getattr(type(data), "__cadence_device__", False):
        # A device array stays on its device (typed NDArray: it quacks like one).
        dev: Any = data if dtype is None else data.astype(_dtype.to_numpy(dtype))
        return cast("NDArray", dev)
    if dtype is not None:
        return np.asarray(data, dtype=_dtype.to_numpy(dtype))
    if isinstance(data, np.ndarray):
        arr = data
    else:
        arr = np.asarray(data)
        # MindSpore: Python floats become Float32, Python ints Int64.
        if arr.dtype == np.float64 and not isinstance(data, np.generic):
            arr = arr.astype(np.float32)
    _dtype.from_numpy(arr.dtype)  # reject strings, objects, complex
    return arr


def _float_item(v: float, digits: int = 8) -> str:
    s = f"{v:+.{digits}e}"
    return " " + s[1:] if s[0] == "+" else s


def format_value(a: NDArray) -> str:
    """Format array data the way MindSpore's Tensor repr shows it after `value=`."""
    if a.ndim == 0:
        v = a.item()
        if isinstance(v, float):
            return " " + f"{v:g}"
        return " " + str(v)
    digits = (
        4 if a.dtype == np.float16 else 8
    )  # MindSpore shows float16 with 4 decimals
    formatter: Any = (
        {"float_kind": lambda v: _float_item(v, digits)}
        if a.dtype.kind == "f"
        else None
    )
    body = np.array2string(
        a,
        separator=", ",
        max_line_width=1 << 30,
        formatter=formatter,
        threshold=1000,
        edgeitems=3,
    )
    return (" " if a.ndim == 1 else "\n") + body


class Tensor:
    """A numpy-backed tensor with MindSpore's surface.

    Args:
        input_data: A Tensor, number, bool, list, tuple or numpy array. Python
            floats become `float32` and Python ints `int64`, as in MindSpore.
        dtype: A cadence type (`cadence.float32`, ...); None keeps the data's type.
        shape: With `init`, the shape of a tensor to initialize.
        init: With `shape` and `dtype`, an initializer (name, number or Initializer).

    Example:
        >>> import cadence as ms
        >>> ms.Tensor([1.0, 2.0]) * 2
        Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00,  4.00000000e+00])
    """

    __slots__ = ("__weakref__", "_data", "_node", "_tracked")
    # Make numpy defer to Tensor's reflected operators (ndarray + Tensor -> Tensor).
    __array_ufunc__ = None

    def __init__(
        self,
        input_data: Any = None,
        dtype: Type | None = None,
        shape: Any = None,
        init: Any = None,
        internal: bool = False,
        const_arg: bool = False,
    ) -> None:
        if input_data is None:
            if shape is None or init is None:
                raise TypeError(
                    "For 'Tensor', `input_data` must be given unless both `shape` and `init` are."
                )
            from ..common.initializer import initializer

            input_data = initializer(init, shape, dtype or _dtype.float32)._data
        self._data: NDArray = _to_array(input_data, dtype)
        self._node: Node | None = None
        self._tracked = False

    @staticmethod
    def from_numpy(array: NDArray) -> Tensor:
        """Return a Tensor over `array`'s memory (writes show in both; the dtype is kept), as MindSpore's.

        Also `cadence.from_numpy`.

        Raises:
            TypeError: If `array` is not a numpy array, or its dtype has no cadence type.
        """
        given: Any = array  # checked at run time: callers may pass anything
        if not isinstance(given, np.ndarray):
            raise TypeError(
                f"For 'from_numpy', the argument 'array' must be a numpy.ndarray, "
                f"but got {array!r} of type {type(array).__name__!r}."
            )
        return Tensor(array)

    @classmethod
    def _wrap(cls, data: NDArray) -> Tensor:
        """Wrap an array without copying or checking (internal fast path)."""
        t = object.__new__(Tensor)
        t._data = data
        t._node = None
        t._tracked = False
        return t

    # --- data access -----------------------------------------------------------
    def asnumpy(self) -> NDArray:
        """Return the data as a numpy array: shared with the tensor on the host, a copy from a device."""
        d: Any = self._data  # a numpy array, or a device array on device targets
        return d if isinstance(d, np.ndarray) else np.asarray(d)

    def init_data(
        self, slice_index: Any = None, shape: Any = None, opt_shape: Any = None
    ) -> Self:
        """Return self: cadence fills data at once, where MindSpore's `initializer(...)` may defer it."""
        return self

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> NDArray:
        d = self.asnumpy()
        return d if dtype is None else d.astype(dtype)

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape, as a tuple of ints."""
        return self._data.shape

    @property
    def dtype(self) -> Type:
        """The element type (`cadence.float32`, ...)."""
        return _dtype.from_numpy(self._data.dtype)

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    @property
    def size(self) -> int:
        """The number of elements."""
        return self._data.size

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of data."""
        return self._data.nbytes

    @property
    def requires_grad(self) -> bool:
        """Whether the tensor takes part in gradient computation."""
        return self._tracked

    def item(self, index: Any = None) -> Any:
        """Return one element as a Python number (the only one when `index` is None)."""
        return self._data.item() if index is None else self._data.item(index)

    def tolist(self) -> Any:
        """Return the data as nested Python lists."""
        return self._data.tolist()

    def __float__(self) -> float:
        return float(self._data)

    def __int__(self) -> int:
        return int(self._data)

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iu":
            raise TypeError(
                f"Only integer tensors can be used as an index, but got dtype {self.dtype!r}."
            )
        return int(self._data)

    def __bool__(self) -> bool:
        return bool(self._data)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor is not defined.")
        return len(self._data)

    def __iter__(self) -> Iterator[Tensor]:
        for i in range(len(self)):
            yield self[i]

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return f"Tensor(shape={list(self._data.shape)}, dtype={self.dtype!r}, value={format_value(self.asnumpy())})"

    def __str__(self) -> str:
        return str(self.asnumpy())

    def __copy__(self) -> Tensor:
        return Tensor._wrap(self._data.copy())

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
        return self.__copy__()

    def __reduce__(self) -> tuple[Any, ...]:
        return (Tensor, (self.asnumpy(),))

    def copy(self) -> Tensor:
        """Return a tensor holding a copy of the data (not recorded on the tape)."""
        return Tensor._wrap(self._data.copy())

    # --- operators (differentiable through cadence.ops) ------------------------
    def __add__(self, other: Any) -> Tensor:
        return F.add(self, other)

    def __radd__(self, other: Any) -> Tensor:
        return F.add(other, self)

    def __sub__(self, other: Any) -> Tensor:
        return F.sub(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return F.sub(other, self)

    def __mul__(self, other: Any) -> Tensor:
        return F.mul(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return F.mul(other, self)

    def __truediv__(self, other: Any) -> Tensor:
        return F.div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return F.div(other, self)

    def __pow__(self, other: Any) -> Tensor:
        return F.pow(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        return F.pow(other, self)

    def __matmul__(self, other: Any) -> Tensor:
        return F.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        return F.matmul(other, self)

    def __neg__(self) -> Tensor:
        return F.neg(self)

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return F.abs(self)

    def __floordiv__(self, other: Any) -> Tensor:
        return F.floor_divide(self, other)

    def __mod__(self, other: Any) -> Tensor:
        return F.mod(self, other)

    def __eq__(self, other: object) -> Tensor:  # type: ignore[override]
        return F.equal(self, other)

    def __ne__(self, other: object) -> Tensor:  # type: ignore[override]
        return F.not_equal(self, other)

    def __lt__(self, other: Any) -> Tensor:
        return F.less(self, other)

    def __le__(self, other: Any) -> Tensor:
        return F.less_equal(self, other)

    def __gt__(self, other: Any) -> Tensor:
        return F.greater(self, other)

    def __ge__(self, other: Any) -> Tensor:
        return F.greater_equal(self, other)

    def __getitem__(self, index: Any) -> Tensor:
        return F.getitem(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        self._data[_unwrap_index(index)] = (
            value._data if isinstance(value, Tensor) else value
        )

    # --- methods ---------------------------------------------------------------
    def astype(self, dtype: Type, copy: bool = True) -> Tensor:
        """Return the tensor converted to `dtype`."""
        return F.cast(self, dtype)

    def to(self, dtype: Type) -> Tensor:
        """Return the tensor converted to `dtype`."""
        return F.cast(self, dtype)

    def float(self) -> Tensor:
        """Return the tensor as float32."""
        return F.cast(self, _dtype.float32)

    def numpy(self) -> NDArray:
        """Return the data as a numpy array (as `asnumpy`)."""
        return self.asnumpy()

    def dim(self) -> int:
        """Return the number of axes (as `ndim`)."""
        return self.ndim

    def nelement(self) -> int:
        """Return the number of elements (as `size`)."""
        return self.size

    def unsqueeze(self, dim: int) -> Tensor:
        """Insert a dimension of size 1 at `dim` (as `expand_dims`)."""
        return F.expand_dims(self, dim)

    def permute(self, *axis: Any) -> Tensor:
        """Reorder the axes (`permute(1, 0)` or `permute((1, 0))`)."""
        return F.transpose(self, axis[0] if len(axis) == 1 else axis)

    def masked_fill(self, mask: Any, value: Any) -> Tensor:
        """`value` where `mask` is True, this tensor elsewhere (`ops.masked_fill`)."""
        return M.masked_fill(self, mask, value)

    def softmax(self, axis: int = -1) -> Tensor:
        """Softmax along `axis`."""
        return M.softmax(self, axis)

    def log_softmax(self, axis: int = -1) -> Tensor:
        """Log-softmax along `axis`."""
        return M.log_softmax(self, axis)

    def tile(self, reps: Any) -> Tensor:
        """Repeat the tensor `reps[i]` times along axis i (`ops.tile`)."""
        return M.tile(self, reps)

    def norm(
        self, ord: Any = None, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,
    ) -> Tensor:  # fmt: skip
        """The vector or matrix norm (`ops.norm`)."""
        return M.norm(self, ord, dim, keepdim, dtype=dtype)

    def broadcast_to(self, shape: Any) -> Tensor:
        """Broadcast to `shape`; -1 keeps an axis (`ops.broadcast_to`)."""
        return M.broadcast_to(self, shape)

    def expand_as(self, other: Any) -> Tensor:
        """Broadcast to `other`'s shape (`ops.expand_as`)."""
        return M.expand_as(self, other)

    def repeat(self, *repeats: Any) -> Tensor:
        """Copies of the whole tensor along each axis, as `tile` (MindSpore 2.x's meaning; see `repeat_interleave`)."""
        return M.repeat(self, *repeats)

    def repeat_interleave(self, repeats: Any, dim: int | None = None) -> Tensor:
        """Repeat each element or slice along `dim` (`ops.repeat_interleave`)."""
        return M.repeat_interleave(self, repeats, dim)

    def cumsum(self, axis: int | None = None, dtype: Any = None) -> Tensor:
        """Cumulative sum along `axis`, of the flattened tensor when None (`ops.cumsum`)."""
        return M.cumsum(self, axis, dtype)

    def topk(
        self, k: int, dim: int | None = None, largest: bool = True, sorted: bool = True
    ) -> tuple[Tensor, Tensor]:
        """The k largest (or smallest) elements along `dim` and their indices (`ops.topk`)."""
        return M.topk(self, k, dim, largest, sorted)

    def cumprod(self, dim: int, dtype: Any = None) -> Tensor:
        """Cumulative product along `dim` (`ops.cumprod`)."""
        return M.cumprod(self, dim, dtype)

    def sort(
        self, axis: int = -1, descending: bool = False, *, dim: int | None = None
    ) -> tuple[Tensor, Tensor]:
        """(values, Int32 indices) sorted along `axis` (or `dim`), stable (`ops.sort`)."""
        return M.sort(self, axis if dim is None else dim, descending)

    def unique(
        self,
        sorted: bool = True,
        return_inverse: bool = False,
        return_counts: bool = False,
        dim: int | None = None,
    ) -> Any:
        """The distinct elements (or slices along `dim`), with their inverse positions and counts if asked."""
        return M.unique_elements(self, sorted, return_inverse, return_counts, dim)

    def std(self, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Tensor:
        """Standard deviation over `axis`, dividing by n - ddof (`ops.std`)."""
        return M.std(self, axis, ddof, keepdims)

    def var(self, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Tensor:
        """Variance over `axis`, dividing by n - ddof (`ops.var`)."""
        return M.var(self, axis, ddof, keepdims)

    def tril(self, diagonal: int = 0) -> Tensor:
        """The lower triangle of the last two axes (`ops.tril`)."""
        return M.tril(self, diagonal)

    def triu(self, diagonal: int = 0) -> Tensor:
        """The upper triangle of the last two axes (`ops.triu`)."""
        return M.triu(self, diagonal)

    def index_select(self, axis: int, index: Any) -> Tensor:
        """The slices at the 1-D `index` along `axis` (`ops.index_select`)."""
        return M.index_select(self, axis, index)

    def scatter(self, axis: int, index: Any, src: Any) -> Tensor:
        """A copy with `src` (a tensor, or one number) written at `index` along `axis` (`ops.scatter`)."""
        return M.scatter(self, axis, index, src)

    def gather_elements(self, dim: int, index: Any) -> Tensor:
        """The elements at `index` along `dim` (`ops.gather_elements`)."""
        return M.gather_elements(self, dim, index)

    def chunk(self, chunks: int, axis: int = 0) -> tuple[Tensor, ...]:
        """At most `chunks` pieces along `axis`, the last possibly shorter (`ops.chunk`)."""
        return M.chunk(self, chunks, axis)

    def split(self, split_size_or_sections: Any, axis: int = 0) -> tuple[Tensor, ...]:
        """Pieces of `split_size_or_sections` elements (one size, or a list of sizes) along `axis` (`ops.split`)."""
        return M.split(self, split_size_or_sections, axis)

    def long(self) -> Tensor:
        """Return the tensor as int64."""
        return F.cast(self, _dtype.int64)

    def argsort(self, axis: int = -1, descending: bool = False) -> Tensor:
        """The Int32 indices that sort the tensor along `axis` (`ops.argsort`)."""
        return M.argsort(self, axis, descending)

    def flip(self, dims: Any) -> Tensor:
        """The elements in reverse order along each axis of `dims` (`ops.flip`)."""
        return M.flip(self, dims)

    def roll(self, shifts: Any, dims: Any = None) -> Tensor:
        """The elements rotated by `shifts` along `dims` (`ops.roll`)."""
        return M.roll(self, shifts, dims)

    def trace(self) -> Tensor:
        """The sum of the diagonal of a 2-D tensor (`ops.trace`)."""
        return M.trace(self)

    def nonzero(self, *, as_tuple: bool = False) -> Any:
        """The Int64 positions of the non-zero elements (`ops.nonzero`)."""
        return M.nonzero(self, as_tuple=as_tuple)

    def masked_select(self, mask: Any) -> Tensor:
        """The 1-D tensor of the elements where `mask` holds (`ops.masked_select`)."""
        return M.masked_select(self, mask)

    def gather(self, input_indices: Any, axis: int, batch_dims: int = 0) -> Tensor:
        """The slices at `input_indices` along `axis` (`ops.gather`)."""
        return M.gather(self, input_indices, axis, batch_dims=batch_dims)

    def reshape(self, *shape: Any) -> Tensor:
        """Return the data in a new shape (`reshape(2, 3)` or `reshape((2, 3))`)."""
        return F.reshape(
            self,
            shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape,
        )

    def view(self, *shape: Any) -> Tensor:
        """Same as `reshape`."""
        return self.reshape(*shape)

    def flatten(
        self, order: str = "C", *, start_dim: int = 0, end_dim: int = -1
    ) -> Tensor:
        """Return the data flattened (between `start_dim` and `end_dim`)."""
        return F.flatten(self, start_dim=start_dim, end_dim=end_dim)

    def transpose(self, *axes: Any) -> Tensor:
        """Return the tensor with its axes permuted (reversed when none are given)."""
        if len(axes) == 1 and not isinstance(axes[0], int):
            axes = tuple(axes[0])
        return F.transpose(self, axes or None)

    @property
    def T(self) -> Tensor:  # noqa: N802 - numpy and MindSpore spell it this way
        """The tensor with its axes reversed."""
        return F.transpose(self, None)

    def squeeze(self, axis: Any = None) -> Tensor:
        """Remove dimensions of size 1 (all, or those in `axis`)."""
        return F.squeeze(self, axis)

    def expand_dims(self, axis: int) -> Tensor:
        """Insert a dimension of size 1 at `axis`."""
        return F.expand_dims(self, axis)

    def sum(
        self,
        axis: Any = None,
        dtype: Any = None,
        keepdims: bool = False,
        initial: Any = None,
    ) -> Tensor:
        """Sum over `axis` (all axes when None)."""
        out = F.sum(self, axis, keepdims)
        return out if dtype is None else F.cast(out, dtype)

    def mean(self, axis: Any = None, keep_dims: bool = False) -> Tensor:
        """Mean over `axis` (all axes when None or `()`)."""
        return F.mean(self, axis, keep_dims)

    def max(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Maximum over `axis`."""
        return F.amax(self, axis, keepdims)

    def min(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Minimum over `axis`."""
        return F.amin(self, axis, keepdims)

    def argmax(
        self, axis: int | None = None, keepdims: bool = False, *, dim: int | None = None,
        keepdim: bool | None = None,
    ) -> Tensor:  # fmt: skip
        """Indices (Int64) of the maxima along `axis` (`dim`); of all elements when None (`ops.argmax`)."""
        return M.argmax(self, dim, bool(keepdim) or keepdims, axis=axis)

    def argmin(self, axis: int | None = None, keepdims: bool = False) -> Tensor:
        """Indices of the minima along `axis`."""
        return F.argmin(self, axis, keepdims)

    def exp(self) -> Tensor:
        """Elementwise e**x."""
        return F.exp(self)

    def log(self) -> Tensor:
        """Elementwise natural logarithm."""
        return F.log(self)

    def sqrt(self) -> Tensor:
        """Elementwise square root."""
        return F.sqrt(self)

    def square(self) -> Tensor:
        """Elementwise x*x."""
        return F.square(self)

    def abs(self) -> Tensor:
        """Elementwise absolute value."""
        return F.abs(self)

    def pow(self, exponent: Any) -> Tensor:
        """Elementwise x**exponent."""
        return F.pow(self, exponent)

    def clip(self, xmin: Any = None, xmax: Any = None) -> Tensor:
        """Limit values to [xmin, xmax]."""
        return F.clip(self, xmin, xmax)

    def add(self, other: Any) -> Tensor:
        """Elementwise sum."""
        return F.add(self, other)

    def sub(self, other: Any) -> Tensor:
        """Elementwise difference."""
        return F.sub(self, other)

    def mul(self, other: Any) -> Tensor:
        """Elementwise product."""
        return F.mul(self, other)

    def div(self, other: Any) -> Tensor:
        """Elementwise quotient."""
        return F.div(self, other)

    def matmul(self, other: Any) -> Tensor:
        """Matrix product."""
        return F.matmul(self, other)

    def all(self, axis: Any = None, keep_dims: bool = False) -> Tensor:
        """Whether all elements are true."""
        return Tensor._wrap(
            np.asarray(np.all(self._data, axis=axis, keepdims=keep_dims))
        )

    def any(self, axis: Any = None, keep_dims: bool = False) -> Tensor:
        """Whether any element is true."""
        return Tensor._wrap(
            np.asarray(np.any(self._data, axis=axis, keepdims=keep_dims))
        )

    def stop_gradient(self) -> Tensor:
        """Return the same data, cut off from the tape."""
        return Tensor._wrap(self._data)

    def assign_value(self, value: Any) -> Tensor:
        """Replace the data in place and return self."""
        self._data = _to_array(value, None)
        return self

    # Last in the class: below these names, `int` and `bool` would mean the methods to a type checker.
    def int(self) -> Tensor:
        """Return the tensor as int32."""
        return F.cast(self, _dtype.int32)

    def bool(self) -> Tensor:
        """Return the tensor as bool."""
        return F.cast(self, _dtype.bool_)


def _unwrap_index(index: Any) -> Any:
    if isinstance(index, Tensor):
        return index._data
    if isinstance(index, tuple):
        return tuple(i._data if isinstance(i, Tensor) else i for i in index)
    return index


class Parameter(Tensor):
    """A named tensor held by a cell; optimizers update those with `requires_grad`.

    Args:
        default_input: The initial value: a Tensor, numpy array, number or list.
        name: The parameter's name; cells prefix it with their attribute path
            (`"1.weight"`). Defaults to `"Parameter"` until a cell names it.
        requires_grad: Whether gradients are computed for it and optimizers update it.
        layerwise_parallel: Accepted for MindSpore compatibility; ignored.
        parallel_optimizer: Accepted for MindSpore compatibility; ignored.

    Example:
        >>> import numpy as np, cadence as ms
        >>> ms.Parameter(np.zeros((2, 3), np.float32), name="w")
        Parameter (name=w, shape=(2, 3), dtype=Float32, requires_grad=True)
    """

    __slots__ = ("_before_write", "_name", "_requires_grad", "_user_named")

    def __init__(
        self,
        default_input: Any,
        name: str | None = None,
        requires_grad: bool = True,
        layerwise_parallel: bool = False,
        parallel_optimizer: bool = True,
    ) -> None:
        if name is not None and not isinstance(name, str):
            raise TypeError(
                f"For 'Parameter', `name` must be a str or None, but got {name!r}."
            )
        if not isinstance(requires_grad, bool):
            raise TypeError(
                f"For 'Parameter', `requires_grad` must be a bool, but got {requires_grad!r}."
            )
        data = _to_array(default_input, None)
        if not data.flags.writeable or not data.flags.c_contiguous:
            data = np.ascontiguousarray(data).copy()
        self._data = data
        self._node = None
        self._before_write: Callable[[], None] | None = None
        """Called before a write into the buffer: data-parallel ranks may share it (`nn/_shared_weights.py`)."""
        self._name = "Parameter" if name is None else name
        self._user_named = name is not None
        self._requires_grad = requires_grad
        self._tracked = requires_grad

    @property
    def name(self) -> str:
        """The parameter's name (checkpoint key)."""
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"`Parameter.name` must be a str, but got {value!r}.")
        self._name = value
        self._user_named = True

    @property
    def requires_grad(self) -> bool:
        """Whether gradients are computed for it and optimizers update it."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise TypeError(
                f"`Parameter.requires_grad` must be a bool, but got {value!r}."
            )
        self._requires_grad = value
        self._tracked = value

    @property
    def data(self) -> Parameter:
        """The parameter itself (as in MindSpore)."""
        return self

    def set_data(self, data: Any, slice_shape: bool = False) -> Parameter:
        """Replace the value and return self.

        A value of the same shape is copied into the existing buffer (keeping the
        dtype), so views held by optimizers stay valid; another shape replaces it.

        Raises:
            TypeError: If `data` is not a Tensor, array or number.
        """
        if not isinstance(
            data, (Tensor, np.ndarray, int, float, bool, np.generic, list, tuple)
        ):
            raise TypeError(
                f"For 'Parameter.set_data', `data` must be a Tensor, numpy array or number, but got {data!r}."
            )
        arr = data._data if isinstance(data, Tensor) else np.asarray(data)
        self._prepare_write()
        if arr.shape == self._data.shape:
            # Dispatches to the device array's copyto when either side lives on a device.
            np.copyto(self._data, arr, casting="unsafe")
        else:
            self._data = np.array(
                arr,
                dtype=self._data.dtype
                if arr.dtype.kind == self._data.dtype.kind
                else None,
            )
        return self

    def __setitem__(self, index: Any, value: Any) -> None:
        self._prepare_write()
        super().__setitem__(index, value)

    def _prepare_write(self) -> None:
        """Make the buffer this parameter's own before writing into it (see `_before_write`)."""
        hook = getattr(
            self, "_before_write", None
        )  # unset where a subclass skipped __init__
        if hook is not None:
            hook()

    def value(self) -> Tensor:
        """Return the current value as a plain Tensor sharing the data."""
        return Tensor._wrap(self._data)

    def clone(self, init: Any = "same") -> Parameter:
        """Return a copy (`init="same"`) or a same-shaped parameter filled by `init`."""
        if isinstance(init, str) and init == "same":
            data = self._data.copy()
        else:
            from ..common.initializer import initializer

            data = initializer(
                init, self._data.shape, _dtype.from_numpy(self._data.dtype)
            )._data
        p = Parameter(data, name=self._name, requires_grad=self._requires_grad)
        p._user_named = self._user_named
        return p

    def copy(self) -> Parameter:
        """A new Parameter with a copy of the data, the same name and `requires_grad`, as MindSpore's."""
        return self.clone("same")

    def __repr__(self) -> str:
        return f"Parameter (name={self._name}, shape={self._data.shape}, dtype={self.dtype!r}, requires_grad={self._requires_grad})"

    __str__ = __repr__

    def __copy__(self) -> Parameter:
        return self.clone()

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        return self.clone()

    def __reduce__(self) -> tuple[Any, ...]:
        return (Parameter, (self.asnumpy(), self._name, self._requires_grad))


@final
class ParameterTuple(tuple[Parameter, ...]):
    """An immutable sequence of parameters (what `Cell.trainable_params()` feeds optimizers)."""

    __slots__ = ()

    def __new__(cls, iterable: Iterable[Parameter] = ()) -> ParameterTuple:
        items = tuple(iterable)
        owners: dict[str | None, int] = {}
        for i, p in enumerate(items):
            if not isinstance(p, Parameter):
                raise TypeError(
                    f"For 'ParameterTuple', element {i} must be a Parameter, but got {p!r}."
                )
            # Optimizer state is keyed by these names: two parameters sharing one would share it.
            if owners.setdefault(p.name, id(p)) != id(p):
                raise ValueError(
                    f"For 'ParameterTuple', element {i} is named {p.name!r} like an earlier, different "
                    "parameter; give each parameter a unique name (as MindSpore requires)."
                )
        return super().__new__(cls, items)

    def clone(self, prefix: str, init: Any = "same") -> ParameterTuple:
        """Return copies named `<prefix>.<name>` and filled by `init` (optimizer state)."""
        out = []
        for p in self:
            c = p.clone(init)
            c.name = f"{prefix}.{p.name}"
            out.append(c)
        return ParameterTuple(out)
