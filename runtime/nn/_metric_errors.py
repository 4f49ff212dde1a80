"""Averaged errors: `Loss` (the network's loss), `MAE` and `MSE` (regression)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._metric_base import (
    RunningMean,
    check_count,
    rearrange_inputs,
    to_numpy,
    two_arrays,
)

__all__ = ["MAE", "MSE", "Loss"]


class Loss(RunningMean):
    """Average of the per-batch mean loss: `update(loss)` with a scalar or 1-D per-sample losses."""

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Accumulate one batch's loss."""
        check_count("Loss", inputs, 1, "loss")
        loss = to_numpy(inputs[0], "Loss")
        if loss.ndim == 0:
            loss = loss.reshape(1)
        if loss.ndim != 1:
            raise ValueError(
                f"For 'Loss.update', the loss must be a scalar or 1-D, but got shape {loss.shape}."
            )
        # The batch mean in the loss's own precision, summed in float64, as MindSpore does.
        self._accumulate(np.float64(loss.mean(-1)), 1)

    def eval(self) -> np.float64:
        """Return the mean of the batch losses."""
        return self._mean()


class _PerSampleSum(RunningMean):
    """Sum of per-element errors over the samples seen, divided by the number of samples."""

    @staticmethod
    def _error(diff: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        raise NotImplementedError

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Accumulate `update(y_pred, y)`; `y` is reshaped to `y_pred`'s shape (same number of elements)."""
        name = type(self).__name__
        y_pred, y = two_arrays(name, inputs)
        if y.size != y_pred.size:
            raise ValueError(
                f"For '{name}.update', the true value must have as many elements as the predicted value "
                f"{y_pred.shape}, but got shape {y.shape}."
            )
        # Errors in the inputs' precision, the running sum in float64: MindSpore's numbers exactly.
        error = np.float64(self._error(y.reshape(y_pred.shape) - y_pred).sum())
        self._accumulate(error, y.shape[0] if y.ndim else 1)

    def eval(self) -> np.float64:
        """Return the summed error divided by the number of samples."""
        return self._mean()


class MAE(_PerSampleSum):
    r"""Mean absolute error: the sum of `|y_pred - y|` over the samples' elements, divided by the number of samples.

    Example:
        >>> import numpy as np
        >>> from cadence import Tensor, float32
        >>> from cadence.train import MAE
        >>> x = Tensor(np.array([0.1, 0.2, 0.6, 0.9]), float32)
        >>> y = Tensor(np.array([0.1, 0.25, 0.7, 0.9]), float32)
        >>> error = MAE()
        >>> error.clear()
        >>> error.update(x, y)
        >>> round(float(error.eval()), 6)
        0.0375
    """

    @staticmethod
    def _error(diff: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        return np.asarray(np.abs(diff))


class MSE(_PerSampleSum):
    """Mean squared error: the sum of `(y_pred - y)**2` over the samples' elements, divided by the number of samples."""

    @staticmethod
    def _error(diff: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        return np.asarray(np.power(diff, 2))
