"""The ROC curve (`ROC`) and the area under a curve (`auc`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..validation import check_type
from ._metric_base import Metric, not_updated, rearrange_inputs, two_arrays

__all__ = ["ROC", "auc"]

Array = np.ndarray[Any, Any]


def _binary_curve(
    scores: Array, target: Array, pos_label: int
) -> tuple[Array, Array, Array]:
    """False and true positive counts at each distinct score, highest score first, and those scores."""
    order = np.argsort(-scores, kind="stable")
    scores, hits = scores[order], (target[order] == pos_label).astype(np.int64)
    # The last index of each run of equal scores: one point of the curve per distinct threshold.
    ends = np.r_[np.flatnonzero(np.diff(scores)), hits.size - 1]
    tps = np.cumsum(hits)[ends]
    fps = ends + 1 - tps
    return fps, tps, scores[ends]


def _roc_one(
    scores: Array, target: Array, pos_label: int
) -> tuple[Array, Array, Array]:
    fps, tps, thresholds = _binary_curve(scores, target, pos_label)
    fps, tps = np.r_[0, fps], np.r_[0, tps]
    thresholds = np.r_[thresholds[0] + 1, thresholds]
    if fps[-1] <= 0:
        raise ValueError(
            f"For 'ROC.eval', the true value must hold a negative sample (a label other than {pos_label}), "
            "but it has none: the false positive rate is undefined."
        )
    if tps[-1] <= 0:
        raise ValueError(
            f"For 'ROC.eval', the true value must hold a positive sample (label {pos_label}), but it has "
            "none: the true positive rate is undefined."
        )
    return fps / fps[-1], tps / tps[-1], thresholds


class ROC(Metric):
    """The receiver operating characteristic: false and true positive rates over the score thresholds.

    `update(y_pred, y)` with scores and labels of the same shape (binary:
    `pos_label` marks the positives, 1 by default) or scores (N, C) and labels (N,)
    (one curve per class, one-versus-rest; set `class_num`). Each update replaces
    the data (the curve is of the last update). `eval()` returns
    `(fpr, tpr, thresholds)`: arrays, or lists of arrays per class.

    Args:
        class_num: Number of classes for (N, C) scores; None for binary input.
        pos_label: The positive label of binary input; must be None for (N, C) scores.
    """

    def __init__(
        self, class_num: int | None = None, pos_label: int | None = None
    ) -> None:
        super().__init__()
        if class_num is not None:
            check_type(class_num, "class_num", int, "ROC")
        if pos_label is not None:
            check_type(pos_label, "pos_label", int, "ROC")
        self.class_num, self.pos_label = class_num, pos_label
        self.clear()

    def clear(self) -> None:
        """Forget the data."""
        self._y_pred: Array | None = None
        self._y: Array | None = None

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Keep `update(y_pred, y)` for `eval`."""
        y_pred, y = two_arrays("ROC", inputs)
        if y_pred.ndim == y.ndim:
            if self.class_num not in (None, 1):
                raise ValueError(
                    "For 'ROC', scores and labels of the same shape are binary: 'class_num' must be None "
                    f"or 1, but got {self.class_num!r}."
                )
            self.class_num = 1
            self.pos_label = 1 if self.pos_label is None else self.pos_label
            y_pred, y = y_pred.reshape(-1), y.reshape(-1)
        elif y_pred.ndim == y.ndim + 1:
            if self.pos_label is not None:
                raise ValueError(
                    "For 'ROC', with per-class scores (one more dimension than the labels) each class is "
                    f"the positive one in turn: 'pos_label' must be None, but got {self.pos_label!r}."
                )
            if self.class_num != y_pred.shape[1]:
                raise ValueError(
                    f"For 'ROC', the argument 'class_num' must equal the number of classes of the scores "
                    f"({y_pred.shape[1]}), but got {self.class_num!r}."
                )
            classes = y_pred.shape[1]
            y_pred, y = y_pred.reshape(y_pred.shape[0], classes, -1), y.reshape(-1)
            y_pred = np.moveaxis(y_pred, 1, -1).reshape(-1, classes)
        else:
            raise ValueError(
                f"For 'ROC', the scores must have the labels' number of dimensions ({y.ndim}) or one more, "
                f"but got {y_pred.ndim}."
            )
        if y_pred.shape[0] != y.shape[0]:
            raise ValueError(
                f"For 'ROC.update', there must be one score (row) per label, but got {y_pred.shape[0]} "
                f"and {y.shape[0]}."
            )
        self._y_pred, self._y = y_pred, y

    def eval(self) -> tuple[Any, Any, Any]:
        """Return `(fpr, tpr, thresholds)` (per class: lists of arrays)."""
        if self._y_pred is None or self._y is None:
            raise not_updated("ROC")
        if self.class_num == 1:
            assert self.pos_label is not None
            return _roc_one(self._y_pred, self._y, self.pos_label)
        curves = [
            _roc_one(self._y_pred[:, c], self._y, c)
            for c in range(self._y_pred.shape[1])
        ]
        fpr, tpr, thresholds = (list(part) for part in zip(*curves, strict=True))
        return fpr, tpr, thresholds


def auc(x: Any, y: Any, reorder: bool = False) -> np.float64:
    """Return the area under the curve through the points (x, y), by the trapezoidal rule.

    Args:
        x: 1-D numpy array of x coordinates, increasing or decreasing (any order
            with `reorder=True`), e.g. `ROC`'s false positive rates.
        y: 1-D numpy array of y coordinates, e.g. true positive rates.
        reorder: Sort the points by x (then y) first.

    Raises:
        TypeError: `x` or `y` is not a numpy array.
        ValueError: Lengths differ, fewer than 2 points, or `x` is not monotonic
            without `reorder`.
    """
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray):
        raise TypeError(
            f"For 'auc', the arguments 'x' and 'y' must be numpy arrays, but got {type(x).__name__!r} "
            f"and {type(y).__name__!r}."
        )
    for name, arr in (("x", x), ("y", y)):
        if not (arr.ndim == 1 or (arr.ndim == 2 and arr.shape[1] == 1)):
            raise ValueError(
                f"For 'auc', the argument '{name}' must be 1-D (or a single column), but got shape {arr.shape}."
            )
    x, y = x.reshape(-1), y.reshape(-1)
    if x.shape != y.shape:
        raise ValueError(
            f"For 'auc', 'x' and 'y' must have the same length, but got {x.size} and {y.size}."
        )
    if x.size < 2:
        raise ValueError(f"For 'auc', at least 2 points are needed, but got {x.size}.")
    direction = 1.0
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    else:
        dx = np.diff(x)
        if (dx < 0).any():
            if not (dx <= 0).all():
                raise ValueError(
                    f"For 'auc', 'x' must be increasing or decreasing when 'reorder' is False, but got {x!r}."
                )
            direction = -1.0
    return np.float64(direction * np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2.0))
