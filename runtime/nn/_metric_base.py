"""The `Metric` base, `rearrange_inputs`, and the input handling every built-in metric shares.

A metric accumulates batches with `update(*inputs)` and reports with `eval()`;
`Model.eval` calls `clear`, then `update` once per step with the network's
outputs, then `eval`. Inputs are converted as MindSpore's metrics convert them:
a Tensor becomes its numpy array, a list or tuple an array; numbers are
accepted too (a scalar loss). Scalar results are `numpy.float64`, as MindSpore
returns them.
"""

from __future__ import annotations

import functools
from abc import ABCMeta, abstractmethod
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from ..compute._tensor import Tensor

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Metric", "rearrange_inputs"]

Array = np.ndarray[Any, Any]
_F = TypeVar("_F", bound="Callable[..., Any]")


def to_numpy(data: Any, owner: str = "Metric") -> Array:
    """Return `data` (Tensor, ndarray, list, tuple or number) as a numpy array; else raise TypeError."""
    if isinstance(data, Tensor):
        arr: Array = data.asnumpy()
        return arr
    if isinstance(data, np.ndarray):
        return data
    if isinstance(data, list | tuple | np.generic) or (
        isinstance(data, int | float) and not isinstance(data, bool)
    ):
        return np.asarray(data)
    raise TypeError(
        f"For '{owner}', the inputs must be Tensors, numpy arrays, lists or numbers, but got "
        f"{data!r} of type {type(data).__name__!r}."
    )


def rearrange_inputs(func: _F) -> _F:
    """Decorate a metric's `update` so it receives the inputs chosen by `set_indexes`, in that order.

    Without indexes the inputs pass through unchanged. Every built-in metric's
    `update` is decorated; decorate a custom metric's `update` to honour
    `set_indexes` as well.
    """

    @functools.wraps(func)
    def wrapper(self: Metric, *inputs: Any) -> Any:
        indexes = self.indexes
        if indexes:
            if max(indexes) >= len(inputs) or min(indexes) < -len(inputs):
                raise ValueError(
                    f"For '{type(self).__name__}.update', the indexes {indexes} set by 'set_indexes' must "
                    f"select among the {len(inputs)} inputs it received."
                )
            inputs = tuple(inputs[i] for i in indexes)
        return func(self, *inputs)

    return wrapper  # type: ignore[return-value]


class Metric(metaclass=ABCMeta):
    """Base of metrics: subclass it and define `clear()`, `update(*inputs)` and `eval()`.

    As in MindSpore the three are abstract: a subclass missing one cannot be
    instantiated. Calling a metric (`metric(y_pred, y)`) clears it, updates it
    once and returns `eval()`.
    """

    def __init__(self) -> None:
        self._indexes: list[int] | None = None

    @abstractmethod
    def clear(self) -> None:
        """Reset the accumulated state."""
        raise NotImplementedError(
            f"{type(self).__name__} must define 'clear' to be used as a Metric."
        )

    @abstractmethod
    def update(self, *inputs: Any) -> None:
        """Accumulate one batch."""
        raise NotImplementedError(
            f"{type(self).__name__} must define 'update' to be used as a Metric."
        )

    @abstractmethod
    def eval(self) -> Any:
        """Return the metric over everything accumulated since `clear`."""
        raise NotImplementedError(
            f"{type(self).__name__} must define 'eval' to be used as a Metric."
        )

    def set_indexes(self, indexes: Any) -> Metric:
        """Choose which of `update`'s inputs (e.g. the network's outputs) it receives, and in which order; return self.

        Applies to `update` methods decorated with `rearrange_inputs` (every
        built-in metric's is).

        Raises:
            ValueError: `indexes` is not a list of ints.
        """
        if not isinstance(indexes, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in indexes
        ):
            raise ValueError(
                f"For 'set_indexes', the argument 'indexes' must be a list of ints, but got {indexes!r}."
            )
        self._indexes = list(indexes)
        return self

    @property
    def indexes(self) -> list[int] | None:
        """The input indexes set by `set_indexes`, or None."""
        # getattr: a subclass whose __init__ forgot super().__init__() still works, as in MindSpore.
        return getattr(self, "_indexes", None)

    def __call__(self, *inputs: Any) -> Any:
        self.clear()
        self.update(*inputs)
        return self.eval()

    def _convert_data(self, data: Any) -> Array:
        """Return `data` as a numpy array (MindSpore's helper of the same name, for custom metrics)."""
        return to_numpy(data, type(self).__name__)

    @staticmethod
    def _check_onehot_data(data: Array) -> bool:
        """Whether `data` is one-hot along axis 1 (0/1 values summing to 1)."""
        if data.ndim > 1 and np.equal(data**2, data).all():
            return bool(np.equal(data.sum(axis=1), 1).all())
        return False


def check_count(owner: str, inputs: tuple[Any, ...], n: int, what: str) -> None:
    """Raise ValueError unless `update` received exactly `n` inputs."""
    if len(inputs) != n:
        raise ValueError(
            f"For '{owner}.update', it needs {n} inputs ({what}), but got {len(inputs)}."
        )


def two_arrays(
    owner: str, inputs: tuple[Any, ...], what: str = "predicted value, true value"
) -> tuple[Array, Array]:
    """Check that `update` received two inputs (`what` names them) and return them as numpy arrays."""
    check_count(owner, inputs, 2, what)
    return to_numpy(inputs[0], owner), to_numpy(inputs[1], owner)


class RunningMean(Metric):
    """A metric that sums one quantity over the batches and counts what it summed over.

    MindSpore keeps a differently named pair per metric (`_correct_num` /
    `_total_num`, `_sum_loss` / `_total_num`, `_dice_coeff_sum` /
    `_samples_num`, ...); here one pair serves them all. `update` adds through
    `_accumulate(amount, count)`; `eval` builds on `_mean()`, the sum over the count.
    """

    _sum: float
    _count: int

    def __init__(self) -> None:
        super().__init__()
        self.clear()

    def clear(self) -> None:
        """Reset the sum and the count."""
        self._sum = 0.0
        self._count = 0

    def _accumulate(self, amount: float, count: int) -> None:
        self._sum += amount
        self._count += count

    def _mean(self) -> np.float64:
        """The sum over the count; RuntimeError (`no_samples`) while nothing was counted."""
        if self._count == 0:
            raise no_samples(type(self).__name__)
        return np.float64(self._sum / self._count)


def no_samples(owner: str) -> RuntimeError:
    """The error of `eval` before any sample was accumulated."""
    return RuntimeError(
        f"The '{owner}' can not be calculated, because the number of samples is 0: call 'update' with "
        "non-empty inputs before calling 'eval'."
    )


def not_updated(owner: str) -> RuntimeError:
    """The error of `eval` before `update`."""
    return RuntimeError(
        f"For '{owner}', call the 'update' method before calling the 'eval' method."
    )
