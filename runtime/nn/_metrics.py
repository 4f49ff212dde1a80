"""Every metric with MindSpore's names, and the registry of metric names (`get_metric_fn`, `names`).

The metrics live in modules by kind (`_metric_classification`, `_metric_errors`,
`_metric_confusion`, `_metric_curves`, `_metric_text`, `_metric_similarity`,
`_metric_segmentation`, `_metric_occlusion`); this module gathers them for
`cadence.nn` and `cadence.train`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._metric_base import Metric, rearrange_inputs
from ._metric_classification import (
    F1,
    Accuracy,
    Fbeta,
    Precision,
    Recall,
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
)
from ._metric_confusion import ConfusionMatrix, ConfusionMatrixMetric
from ._metric_curves import ROC, auc
from ._metric_errors import MAE, MSE, Loss
from ._metric_occlusion import OcclusionSensitivity
from ._metric_segmentation import (
    Dice,
    HausdorffDistance,
    MeanSurfaceDistance,
    RootMeanSquareDistance,
)
from ._metric_similarity import CosineSimilarity
from ._metric_text import BleuScore, Perplexity

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "F1",
    "MAE",
    "MSE",
    "ROC",
    "Accuracy",
    "BleuScore",
    "ConfusionMatrix",
    "ConfusionMatrixMetric",
    "CosineSimilarity",
    "Dice",
    "Fbeta",
    "HausdorffDistance",
    "Loss",
    "MeanSurfaceDistance",
    "Metric",
    "OcclusionSensitivity",
    "Perplexity",
    "Precision",
    "Recall",
    "RootMeanSquareDistance",
    "Top1CategoricalAccuracy",
    "Top5CategoricalAccuracy",
    "TopKCategoricalAccuracy",
    "auc",
    "get_metric_by_name",
    "get_metric_fn",
    "get_metrics",
    "names",
    "rearrange_inputs",
]

# MindSpore's names, as `names()` lists them.
_METRICS: dict[str, Callable[..., Any]] = {
    "accuracy": Accuracy,
    "acc": Accuracy,
    "auc": auc,  # listed by MindSpore too: `get_metric_fn("auc", x, y)` returns the area
    "bleu_score": BleuScore,
    "confusion_matrix": ConfusionMatrix,
    "confusion_matrix_metric": ConfusionMatrixMetric,
    "cosine_similarity": CosineSimilarity,
    "dice": Dice,
    "F1": F1,
    "hausdorff_distance": HausdorffDistance,
    "loss": Loss,
    "mae": MAE,
    "mean_surface_distance": MeanSurfaceDistance,
    "mse": MSE,
    "occlusion_sensitivity": OcclusionSensitivity,
    "perplexity": Perplexity,
    "precision": Precision,
    "recall": Recall,
    "roc": ROC,
    "root_mean_square_distance": RootMeanSquareDistance,
    "top_1_accuracy": Top1CategoricalAccuracy,
    "top_5_accuracy": Top5CategoricalAccuracy,
    "topk": TopKCategoricalAccuracy,
}
_ALIASES: dict[str, type[Metric]] = {
    "f1": F1
}  # accepted by cadence before; not in `names()`


def get_metric_fn(name: str, *args: Any, **kwargs: Any) -> Any:
    """Return a new metric by name (see `names()`), built with `*args`/`**kwargs`.

    Raises:
        TypeError: `name` is not a str.
        KeyError: An unknown name (the message lists the valid ones).

    Example:
        >>> from cadence.train import get_metric_fn
        >>> type(get_metric_fn("mae")).__name__
        'MAE'
    """
    if not isinstance(name, str):
        raise TypeError(
            f"For 'get_metric_fn', the argument 'name' must be a str, but got {name!r} of type "
            f"{type(name).__name__!r}."
        )
    cls = _METRICS.get(name) or _ALIASES.get(name)
    if cls is None:
        raise KeyError(
            f"For 'get_metric_fn', the argument 'name' must be one of {sorted(_METRICS)}, but got {name!r}."
        )
    return cls(*args, **kwargs)


def get_metric_by_name(name: str, *args: Any, **kwargs: Any) -> Any:
    """The same as `get_metric_fn` (a cadence alias; MindSpore 2.x has only `get_metric_fn`)."""
    return get_metric_fn(name, *args, **kwargs)


def get_metrics(metrics: Any) -> dict[str, Any] | None:
    """Return `{name: Metric}` from a set of names, a dict `{name: Metric}` (checked, copied) or None.

    Raises:
        TypeError: `metrics` is none of those, or a dict key is not a str or a value not a Metric.
        KeyError: An unknown metric name.
    """
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        for key, value in metrics.items():
            if not isinstance(key, str) or not isinstance(value, Metric):
                raise TypeError(
                    "For 'get_metrics', a dict of metrics must map str names to Metric objects, but got "
                    f"{key!r}: {value!r}."
                )
        return dict(metrics)
    if isinstance(metrics, set):
        # Sorted: a set's order changes from run to run (string hashing), and so would the results'.
        return {name: get_metric_fn(name) for name in sorted(metrics)}
    raise TypeError(
        f"For 'get_metrics', the argument 'metrics' must be None, a dict or a set, but got {metrics!r} of "
        f"type {type(metrics).__name__!r}."
    )


def names() -> list[str]:
    """Return the metric names `get_metric_fn` accepts, sorted."""
    return sorted(_METRICS)
