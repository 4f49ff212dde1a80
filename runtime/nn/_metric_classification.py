"""Classification metrics: accuracy, precision, recall, F-beta and top-k accuracy."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ._metric_base import (
    Metric,
    RunningMean,
    no_samples,
    rearrange_inputs,
    two_arrays,
)

__all__ = [
    "F1",
    "Accuracy",
    "Fbeta",
    "Precision",
    "Recall",
    "Top1CategoricalAccuracy",
    "Top5CategoricalAccuracy",
    "TopKCategoricalAccuracy",
]


def _labels(
    y_pred: np.ndarray[Any, Any], y: np.ndarray[Any, Any]
) -> np.ndarray[Any, Any]:
    """Class indices from labels given as indices (N,) or one-hot (N, C)."""
    if y.ndim == y_pred.ndim and y.shape == y_pred.shape and y_pred.ndim > 1:
        return np.asarray(y.argmax(axis=-1))
    return y.reshape(-1)


def _eval_type(value: Any, owner: str) -> str:
    """Accuracy's, precision's, recall's and F-beta's `eval_type`, checked."""
    if value not in ("classification", "multilabel"):
        raise ValueError(
            f"For '{owner}', the argument 'eval_type' must be 'classification' or 'multilabel', but got {value!r}."
        )
    return str(value)


class Accuracy(RunningMean):
    """Fraction of samples whose arg-max prediction equals the label.

    Args:
        eval_type: 'classification' (labels as indices or one-hot) or 'multilabel'.
    """

    def __init__(self, eval_type: str = "classification") -> None:
        super().__init__()
        self.eval_type = _eval_type(eval_type, "Accuracy")

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Accumulate `update(y_pred, y)`."""
        y_pred, y = two_arrays("Accuracy", inputs)
        if self.eval_type == "multilabel":
            hit = (
                np.all(np.round(y_pred) == y, axis=-1)
                if y_pred.ndim > 1
                else np.round(y_pred) == y
            )
            self._accumulate(float(hit.sum()), hit.shape[0])
            return
        labels = _labels(y_pred, y)
        pred = (
            y_pred.argmax(axis=-1).reshape(-1)
            if y_pred.ndim > 1
            else (y_pred > 0.5).astype(np.int64)
        )
        if pred.shape[0] != labels.shape[0]:
            raise ValueError(
                f"For 'Accuracy.update', predicted and true values must have the same number of samples, but got {pred.shape[0]} and {labels.shape[0]}."
            )
        self._accumulate(float((pred == labels).sum()), labels.shape[0])

    def eval(self) -> np.float64:
        """Return correct / total."""
        return self._mean()


class _Confusion(Metric):
    @property
    def _name(self) -> str:
        """The metric's name in messages: its class's."""
        return type(self).__name__

    def __init__(self, eval_type: str = "classification") -> None:
        super().__init__()
        self.eval_type = _eval_type(eval_type, self._name)
        self.eps = sys.float_info.min
        self.clear()

    def clear(self) -> None:
        """Reset the counts."""
        self._class_num = 0
        self._tp: np.ndarray[Any, Any] = np.zeros(0)
        self._pred_pos: np.ndarray[Any, Any] = np.zeros(0)
        self._actual_pos: np.ndarray[Any, Any] = np.zeros(0)

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Accumulate `update(y_pred, y)`."""
        y_pred, y = two_arrays(self._name, inputs)
        if self.eval_type == "multilabel":
            pred_1h = np.round(y_pred).reshape(-1, y_pred.shape[-1])
            true_1h = y.reshape(pred_1h.shape)
        else:
            c = y_pred.shape[-1]
            labels = _labels(y_pred, y).astype(np.int64)
            if labels.size and (labels.min() < 0 or labels.max() >= c):
                raise ValueError(
                    f"For '{self._name}.update', labels must be in [0, {c}), but got values from {labels.min()} to {labels.max()}."
                )
            pred_1h = np.eye(c)[y_pred.reshape(-1, c).argmax(axis=-1)]
            true_1h = np.eye(c)[labels]
        if self._class_num == 0:
            self._class_num = pred_1h.shape[-1]
            self._tp = np.zeros(self._class_num)
            self._pred_pos = np.zeros(self._class_num)
            self._actual_pos = np.zeros(self._class_num)
        elif pred_1h.shape[-1] != self._class_num:
            raise ValueError(
                f"For '{self._name}.update', the number of classes changed from {self._class_num} to {pred_1h.shape[-1]}."
            )
        self._tp += (pred_1h * true_1h).sum(axis=0)
        self._pred_pos += pred_1h.sum(axis=0)
        self._actual_pos += true_1h.sum(axis=0)

    def _check(self) -> None:
        if self._class_num == 0:
            raise no_samples(self._name)


class _TruePositiveRatio(_Confusion):
    _denominator: str
    """The per-class count that divides tp: `_pred_pos` (precision) or `_actual_pos` (recall)."""

    def eval(self, average: bool = False) -> Any:
        """Return the per-class ratios (array), or their mean."""
        self._check()
        result = self._tp / (getattr(self, self._denominator) + self.eps)
        return np.float64(result.mean()) if average else result


class Precision(_TruePositiveRatio):
    """Per-class precision tp / (tp + fp); `eval(average=True)` returns their mean.

    Args:
        eval_type: 'classification' or 'multilabel'.
    """

    _denominator = "_pred_pos"


class Recall(_TruePositiveRatio):
    """Per-class recall tp / (tp + fn); `eval(average=True)` returns their mean.

    Args:
        eval_type: 'classification' or 'multilabel'.
    """

    _denominator = "_actual_pos"


class Fbeta(_Confusion):
    """Per-class F-beta score.

    Args:
        beta: Weight of recall relative to precision (> 0).
    """

    def __init__(self, beta: float) -> None:
        if not isinstance(beta, (int, float)) or isinstance(beta, bool) or beta <= 0:  # type: ignore[redundant-expr]
            raise ValueError(
                f"For '{self._name}', the argument 'beta' must be a float > 0, but got {beta!r}."
            )
        self.beta = float(beta)
        super().__init__()

    def eval(self, average: bool = False) -> Any:
        """Return the per-class scores (array), or their mean."""
        self._check()
        b2 = self.beta**2
        result = (
            (1 + b2) * self._tp / (b2 * self._actual_pos + self._pred_pos + self.eps)
        )
        return np.float64(result.mean()) if average else result


class F1(Fbeta):
    """Per-class F1 score (F-beta with beta = 1)."""

    def __init__(self) -> None:
        super().__init__(1.0)


class TopKCategoricalAccuracy(RunningMean):
    """Fraction of samples whose label is among the `k` highest scores.

    Args:
        k: How many top predictions count (int >= 1).
    """

    def __init__(self, k: int) -> None:
        super().__init__()
        if not isinstance(k, int) or isinstance(k, bool):  # type: ignore[redundant-expr]
            raise TypeError(
                f"For 'TopKCategoricalAccuracy', the argument 'k' must be an int, but got {k!r}."
            )
        if k < 1:
            raise ValueError(
                f"For 'TopKCategoricalAccuracy', the argument 'k' must be at least 1, but got {k!r}."
            )
        self.k = k

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Accumulate `update(y_pred, y)`."""
        y_pred, y = two_arrays(type(self).__name__, inputs)
        labels = _labels(y_pred, y)
        top = np.argsort(-y_pred, axis=-1, kind="stable")[:, : self.k]
        self._accumulate(
            int((top == labels[:, None]).any(axis=1).sum()), labels.shape[0]
        )

    def eval(self) -> np.float64:
        """Return correct / total."""
        return self._mean()


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    """Top-1 categorical accuracy."""

    def __init__(self) -> None:
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    """Top-5 categorical accuracy."""

    def __init__(self) -> None:
        super().__init__(5)
