"""Confusion-matrix metrics: `ConfusionMatrix` (class counts) and `ConfusionMatrixMetric` (rates from tp/fp/tn/fn)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..validation import check_bool, check_choice, check_type
from ._metric_base import Metric, no_samples, not_updated, rearrange_inputs, two_arrays

__all__ = ["ConfusionMatrix", "ConfusionMatrixMetric"]

Array = np.ndarray[Any, Any]
_NORMALIZE = ("no_norm", "target", "prediction", "all")


class ConfusionMatrix(Metric):
    """Counts of (true class, predicted class) pairs, optionally normalized.

    `update(y_pred, y)`: `y` holds class indices; `y_pred` holds scores with the
    classes on axis 1 (arg-max is taken), or indices, or probabilities of the
    positive class compared with `threshold`.

    Args:
        num_classes: Number of classes (int > 0).
        normalize: "no_norm" (counts), "target" (rows sum to 1), "prediction"
            (columns sum to 1) or "all" (the matrix sums to 1); empty rows or
            columns give 0.
        threshold: Probability from which a one-column prediction counts as 1.
    """

    def __init__(
        self, num_classes: int, normalize: str = "no_norm", threshold: float = 0.5
    ) -> None:
        super().__init__()
        check_type(num_classes, "num_classes", int, "ConfusionMatrix")
        if isinstance(num_classes, bool) or num_classes <= 0:
            raise ValueError(
                f"For 'ConfusionMatrix', the argument 'num_classes' must be an int > 0, but got {num_classes!r}."
            )
        self.num_classes = num_classes
        self.normalize = check_choice(
            normalize, "normalize", _NORMALIZE, "ConfusionMatrix"
        )
        check_type(threshold, "threshold", float, "ConfusionMatrix")
        self.threshold = threshold
        self.clear()

    def clear(self) -> None:
        """Reset the counts."""
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes))
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Accumulate `update(y_pred, y)`."""
        y_pred, y = two_arrays("ConfusionMatrix", inputs)
        if y_pred.ndim not in (y.ndim, y.ndim + 1):
            raise ValueError(
                "For 'ConfusionMatrix.update', the predicted value must have the true value's number of "
                f"dimensions ({y.ndim}) or one more, but got {y_pred.ndim}."
            )
        if y_pred.ndim == y.ndim + 1:
            y_pred = y_pred.argmax(axis=1)
        elif y_pred.dtype.kind == "f":
            y_pred = (y_pred >= self.threshold).astype(np.int64)
        pred, true = y_pred.reshape(-1).astype(np.int64), y.reshape(-1).astype(np.int64)
        if pred.shape != true.shape:
            raise ValueError(
                f"For 'ConfusionMatrix.update', predicted and true values must describe the same samples, "
                f"but got {pred.size} predictions and {true.size} labels."
            )
        for what, values in (("true", true), ("predicted", pred)):
            if values.size and (values.min() < 0 or values.max() >= self.num_classes):
                raise ValueError(
                    f"For 'ConfusionMatrix.update', the {what} classes must be in [0, {self.num_classes}), "
                    f"but got values from {values.min()} to {values.max()}."
                )
        pairs = np.bincount(
            true * self.num_classes + pred, minlength=self.num_classes**2
        )
        self.confusion_matrix += pairs.reshape(self.num_classes, self.num_classes)
        self._is_update = True

    def eval(self) -> Array:
        """Return the (num_classes, num_classes) matrix, rows true classes, columns predicted ones."""
        if not self._is_update:
            raise not_updated("ConfusionMatrix")
        matrix = self.confusion_matrix.astype(np.float64)
        if self.normalize == "no_norm":
            return matrix
        totals = {
            "target": matrix.sum(axis=1, keepdims=True),
            "prediction": matrix.sum(axis=0, keepdims=True),
            "all": matrix.sum(),
        }[self.normalize]
        with np.errstate(divide="ignore", invalid="ignore"):
            normalized: Array = np.nan_to_num(matrix / totals, nan=0.0)
        return normalized


# Every accepted spelling -> the short name of the rate (spaces count as underscores, case is ignored).
_RATE_NAMES = {
    "tpr": ("sensitivity", "recall", "hit_rate", "true_positive_rate", "tpr"),
    "tnr": ("specificity", "selectivity", "true_negative_rate", "tnr"),
    "ppv": ("precision", "positive_predictive_value", "ppv"),
    "npv": ("negative_predictive_value", "npv"),
    "fnr": ("miss_rate", "false_negative_rate", "fnr"),
    "fpr": ("fall_out", "false_positive_rate", "fpr"),
    "fdr": ("false_discovery_rate", "fdr"),
    "for": ("false_omission_rate", "for"),
    "pt": ("prevalence_threshold", "pt"),
    "ts": ("threat_score", "critical_success_index", "ts", "csi"),
    "acc": ("accuracy", "acc"),
    "ba": ("balanced_accuracy", "ba"),
    "f1": ("f1_score", "f1"),
    "mcc": ("matthews_correlation_coefficient", "mcc"),
    "fm": ("fowlkes_mallows_index", "fm"),
    "bm": ("informedness", "bookmaker_informedness", "bm"),
    "mk": ("markedness", "deltap", "mk"),
}
_RATE_OF = {alias: short for short, aliases in _RATE_NAMES.items() for alias in aliases}
_DECREASE = (
    "none",
    "mean",
    "sum",
    "mean_batch",
    "sum_batch",
    "mean_channel",
    "sum_channel",
)


def _rate_name(metric_name: str) -> str:
    short = _RATE_OF.get(metric_name.replace(" ", "_").lower())
    if short is None:
        raise NotImplementedError(
            f"For 'ConfusionMatrixMetric', the argument 'metric_name' must be one of {sorted(_RATE_OF)} "
            f"(spaces for underscores allowed), but got {metric_name!r}."
        )
    return short


def _ratio(numerator: Array, denominator: Array) -> Array:
    """Numerator / denominator, NaN where the denominator is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator != 0, numerator / denominator, np.nan)


def _rate(short: str, counts: Array) -> Array:
    """The rate `short` from counts whose last axis is (tp, fp, tn, fn)."""
    tp, fp, tn, fn = (counts[..., i] for i in range(4))
    p, n = tp + fn, fp + tn
    tpr, tnr = _ratio(tp, p), _ratio(tn, n)
    ppv, npv = _ratio(tp, tp + fp), _ratio(tn, tn + fn)
    one = np.ones_like(tp)
    with np.errstate(invalid="ignore"):
        num_den = {
            "tpr": (tp, p),
            "tnr": (tn, n),
            "ppv": (tp, tp + fp),
            "npv": (tn, tn + fn),
            "fnr": (fn, p),
            "fpr": (fp, n),
            "fdr": (fp, fp + tp),
            "for": (fn, fn + tn),
            "pt": (np.sqrt(tpr * (1.0 - tnr)) + tnr - 1.0, tpr + tnr - 1.0),
            "ts": (tp, tp + fn + fp),
            "acc": (tp + tn, p + n),
            "ba": (tpr + tnr, 2.0 * one),
            "f1": (2.0 * tp, 2.0 * tp + fn + fp),
            "mcc": (
                tp * tn - fp * fn,
                np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)),
            ),
            "fm": (np.sqrt(ppv * tpr), one),
            "bm": (tpr + tnr - 1.0, one),
            "mk": (ppv + npv - 1.0, one),
        }[short]
    return _ratio(*num_den)


def _counts(y_pred: Array, y: Array, skip_channel: bool) -> Array:
    """Per (sample, channel) counts (tp, fp, tn, fn) of binarized `y_pred` against `y`, shape (N, C, 4)."""
    if not skip_channel and y_pred.shape[1] > 1:
        # MindSpore's flag reads backwards: False leaves out channel 0 (the background).
        y_pred, y = y_pred[:, 1:], y[:, 1:]
    batch, channels = y_pred.shape[:2]
    pred = y_pred.reshape(batch, channels, -1).astype(np.float64)
    true = y.reshape(batch, channels, -1).astype(np.float64)
    tp = ((pred + true) == 2).sum(axis=2).astype(np.float64)
    tn = ((pred + true) == 0).sum(axis=2).astype(np.float64)
    p = true.sum(axis=2)
    fn, fp = p - tp, (true.shape[-1] - p) - tn
    return np.stack([tp, fp, tn, fn], axis=-1)


def _reduce(chart: Array, decrease: str) -> tuple[Array, Array]:
    """Reduce per (sample, channel) values, NaNs left out; return (value, count of non-NaN values)."""
    valid = ~np.isnan(chart)
    chart = np.where(valid, chart, 0.0)
    counts = valid.astype(np.float64)

    def mean(values: Array, count: Array, axis: int) -> tuple[Array, Array]:
        count = count.sum(axis=axis)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(count > 0, values.sum(axis=axis) / count, 0.0), count

    if decrease == "mean":
        per_sample, count = mean(chart, counts, 1)
        samples = (count > 0).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            total = samples.sum()
            return np.where(total > 0, per_sample.sum() / total, 0.0), total
    if decrease == "sum":
        return chart.sum(axis=(0, 1)), counts.sum(axis=(0, 1))
    if decrease == "mean_batch":
        return mean(chart, counts, 0)
    if decrease == "sum_batch":
        return chart.sum(axis=0), counts.sum(axis=0)
    if decrease == "mean_channel":
        return mean(chart, counts, 1)
    if decrease == "sum_channel":
        return chart.sum(axis=1), counts.sum(axis=1)
    return chart, counts


class ConfusionMatrixMetric(Metric):
    """A rate of the confusion counts (sensitivity, specificity, F1, MCC, ...) for binarized, one-hot inputs.

    `update(y_pred, y)` takes arrays of shape (N, C, ...) holding 0/1 (`y` must be
    binary). With `calculation_method=False` the counts tp/fp/tn/fn are summed over
    everything and the rate is computed once at `eval` (an array of one value);
    with True the rate is computed per sample and channel, reduced by `decrease`,
    and averaged over the updates (a float).

    Args:
        skip_channel: False leaves out channel 0 (as MindSpore reads the flag).
        metric_name: "sensitivity", "specificity", "precision", "negative predictive
            value", "miss rate", "fall out", "false discovery rate", "false omission
            rate", "prevalence threshold", "threat score", "accuracy", "balanced
            accuracy", "f1 score", "matthews correlation coefficient", "fowlkes
            mallows index", "informedness", "markedness" (and their abbreviations).
        calculation_method: Per-sample rates (True) or one rate of the summed counts (False).
        decrease: How per-sample rates reduce: "none", "mean", "sum", "mean_batch",
            "sum_batch", "mean_channel" or "sum_channel".
    """

    def __init__(
        self,
        skip_channel: bool = True,
        metric_name: str = "sensitivity",
        calculation_method: bool = False,
        decrease: str = "mean",
    ) -> None:
        super().__init__()
        owner = "ConfusionMatrixMetric"
        self.skip_channel = check_bool(skip_channel, "skip_channel", owner)
        self.calculation_method = check_bool(
            calculation_method, "calculation_method", owner
        )
        self.metric_name = check_type(metric_name, "metric_name", str, owner)
        self._rate = _rate_name(metric_name)
        check_type(decrease, "decrease", str, owner)
        self.decrease = check_choice(decrease, "decrease", _DECREASE, owner)
        self.clear()

    def clear(self) -> None:
        """Reset the sums."""
        self._total_num = 0.0
        self._class_num = 0
        self._counts = np.zeros(4)
        self._summed = False

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Accumulate `update(y_pred, y)`."""
        owner = "ConfusionMatrixMetric"
        y_pred, y = two_arrays(owner, inputs)
        if not np.all(y.astype(np.uint8) == y):
            raise ValueError(
                f"For '{owner}.update', the true value must hold only 0 and 1, but got values {np.unique(y)[:8]}."
            )
        if y_pred.ndim < 2:
            raise ValueError(
                f"For '{owner}.update', the predicted value must have at least 2 dimensions (N, C, ...), "
                f"but got shape {y_pred.shape}."
            )
        if y_pred.shape != y.shape:
            raise ValueError(
                f"For '{owner}.update', predicted and true values must have the same shape, but got "
                f"{y_pred.shape} and {y.shape}."
            )
        counts = _counts(y_pred, y, self.skip_channel)
        # Without spatial dimensions a per-sample rate means nothing: MindSpore sums the counts then.
        per_sample = self.calculation_method and not (
            y_pred.ndim == 2 or (y_pred.ndim == 3 and y_pred.shape[-1] == 1)
        )
        if per_sample:
            score, valid = _reduce(_rate(self._rate, counts), self.decrease)
            if np.size(score) != 1:
                raise ValueError(
                    f"For '{owner}.update', decrease={self.decrease!r} leaves {np.size(score)} values per update; "
                    "with calculation_method=True use 'mean' or 'sum'."
                )
            n = int(np.asarray(valid).reshape(-1)[0])
            self._total_num += float(np.asarray(score).reshape(-1)[0]) * n
            self._class_num += n
        else:
            self._counts += counts.sum(axis=(0, 1))
            self._summed = True

    def eval(self) -> Any:
        """Return the rate: a float64 (calculation_method=True) or an array of one value."""
        if self.calculation_method and self._class_num > 0:
            return np.float64(self._total_num / self._class_num)
        if not self._summed:
            raise no_samples("ConfusionMatrixMetric")
        return _rate(self._rate, self._counts[None, :])
