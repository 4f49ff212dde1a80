"""`Tensor` and `Parameter`: numpy-backed arrays with MindSpore's surface.

Minimal first version; the compute work (autograd, ops, dtypes) extends it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["Parameter", "Tensor"]


class Tensor:
    """A numpy-backed tensor.

    Args:
        input_data: Anything `numpy.asarray` accepts, or another Tensor.
        dtype: A numpy dtype (cadence dtypes come with the compute layer).
    """

    __slots__ = ("_data",)

    def __init__(self, input_data: Any = None, dtype: Any = None) -> None:
        if isinstance(input_data, Tensor):
            input_data = input_data._data
        self._data: npt.NDArray[Any] = np.asarray(input_data, dtype=dtype)

    def asnumpy(self) -> npt.NDArray[Any]:
        """Return the data as a numpy array (shared, not copied)."""
        return self._data

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape, as a tuple."""
        return tuple(self._data.shape)

    def __repr__(self) -> str:
        return f"Tensor(shape={list(self._data.shape)}, value={self._data!s})"


class Parameter(Tensor):
    """A named, trainable tensor held by a cell.

    Args:
        default_input: The initial value.
        name: The parameter's name in the cell tree.
        requires_grad: Whether optimizers update it.
    """

    __slots__ = ("name", "requires_grad")

    def __init__(self, default_input: Any, name: str | None = None, requires_grad: bool = True) -> None:
        super().__init__(default_input)
        self.name = name
        self.requires_grad = requires_grad

    def set_data(self, data: Any) -> Parameter:
        """Replace the value in place and return self."""
        self._data = np.asarray(data.asnumpy() if isinstance(data, Tensor) else data)
        return self
