"""Segmentation metrics: `Dice` and the surface distances (Hausdorff, mean, root mean square).

The surface of a mask is the mask minus its binary erosion; distances are
distance transforms of the other mask's surface (scipy.ndimage).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import ndimage

from ..validation import check_bool, check_choice, check_number, check_type
from ._metric_base import (
    Metric,
    RunningMean,
    check_count,
    not_updated,
    rearrange_inputs,
    to_numpy,
    two_arrays,
)

__all__ = ["Dice", "HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance"]

Array = np.ndarray[Any, Any]
_DISTANCES = ("euclidean", "chessboard", "taxicab")


class Dice(RunningMean):
    """Mean over samples of 2|X∩Y| / (|X|^2 + |Y|^2 + smooth), X and Y the flattened batches.

    `update(y_pred, y)` with arrays of the same shape; each update adds one
    coefficient, weighted by the batch's number of samples in the mean.

    Args:
        smooth: Added to the denominator (> 0).
    """

    def __init__(self, smooth: float = 1e-5) -> None:
        super().__init__()
        check_type(smooth, "smooth", float, "Dice")
        self.smooth = check_number(
            smooth, "smooth", "Dice", minimum=0.0, inclusive=False
        )

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Accumulate `update(y_pred, y)`."""
        y_pred, y = two_arrays("Dice", inputs)
        if y_pred.shape != y.shape:
            raise ValueError(
                f"For 'Dice.update', predicted and true values must have the same shape, but got "
                f"{y_pred.shape} and {y.shape}."
            )
        p, t = y_pred.reshape(-1), y.reshape(-1)
        intersection = float(np.dot(p, t))
        union = float(np.dot(p, p) + np.dot(t, t))
        self._accumulate(
            2 * intersection / (union + self.smooth), y.shape[0] if y.ndim else 1
        )

    def eval(self) -> np.float64:
        """Return the summed coefficients divided by the number of samples (as MindSpore computes it)."""
        return self._mean()


def _masks(owner: str, inputs: tuple[Any, ...]) -> tuple[Array, Array]:
    """The boolean masks of `label_idx` in `update(y_pred, y, label_idx)`'s inputs."""
    check_count(owner, inputs, 3, "predicted value, true value, label index")
    y_pred, y = to_numpy(inputs[0], owner), to_numpy(inputs[1], owner)
    label = inputs[2]
    if not isinstance(label, int | float) or isinstance(label, bool):
        raise TypeError(
            f"For '{owner}.update', the label index (input[2]) must be an int or float, but got {label!r}."
        )
    if y_pred.size == 0 or y_pred.shape != y.shape:
        raise ValueError(
            f"For '{owner}.update', predicted and true values must be non-empty and of the same shape, "
            f"but got {y_pred.shape} and {y.shape}."
        )
    if label not in y_pred and label not in y:
        raise ValueError(
            f"For '{owner}.update', the label index {label!r} appears in neither the predicted nor the true value."
        )
    pred = y_pred if y_pred.dtype == bool else y_pred == label
    true = y if y.dtype == bool else y == label
    return np.asarray(pred), np.asarray(true)


def _surface(mask: Array) -> Array:
    return np.asarray(ndimage.binary_erosion(mask) ^ mask)


def _distances(from_edges: Array, to_edges: Array, metric: str) -> Array:
    """Distance of every `from_edges` point to the nearest `to_edges` point (inf if there is none)."""
    if not from_edges.any():
        return np.zeros(0)
    if not to_edges.any():
        return np.full(int(from_edges.sum()), np.inf)
    if metric == "euclidean":
        field = ndimage.distance_transform_edt(~to_edges)
    else:
        field = ndimage.distance_transform_cdt(~to_edges, metric=metric)
    return np.asarray(field, dtype=np.float64)[from_edges]


def _crop(pred: Array, true: Array) -> tuple[Array, Array]:
    """Both masks cut to the bounding box of their union (distances do not change; work shrinks)."""
    union = pred | true
    if not union.any():
        return np.zeros_like(pred), np.zeros_like(true)
    box = tuple(slice(int(idx.min()), int(idx.max()) + 1) for idx in np.nonzero(union))
    return pred[box], true[box]


class _SurfaceMetric(Metric):
    def __init__(self, distance_metric: str) -> None:
        super().__init__()
        owner = type(self).__name__
        check_type(distance_metric, "distance_metric", str, owner)
        self.distance_metric = check_choice(
            distance_metric, "distance_metric", _DISTANCES, owner
        )

    def clear(self) -> None:
        """Forget the surfaces."""
        self._edges: tuple[Array, Array] | None = None

    def _set(self, pred: Array, true: Array) -> None:
        self._edges = (_surface(pred), _surface(true))

    def _get(self) -> tuple[Array, Array]:
        if self._edges is None:
            raise not_updated(type(self).__name__)
        return self._edges


class HausdorffDistance(_SurfaceMetric):
    """The largest (or `percentile`-th) distance from a surface point of one mask to the other's surface.

    `update(y_pred, y, label_idx)` sets the masks `y_pred == label_idx` and
    `y == label_idx` (each update replaces the previous one).

    Args:
        distance_metric: "euclidean", "chessboard" or "taxicab".
        percentile: A percentile in [0, 100] instead of the maximum, or None.
        directed: Only from y_pred's surface to y's (else the larger of both directions).
        crop: Cut the masks to their bounding box first (same result, less work).
    """

    def __init__(
        self,
        distance_metric: str = "euclidean",
        percentile: float | None = None,
        directed: bool = False,
        crop: bool = True,
    ) -> None:
        super().__init__(distance_metric)
        if percentile is not None:
            check_type(percentile, "percentile", float, "HausdorffDistance")
            check_number(
                percentile,
                "percentile",
                "HausdorffDistance",
                minimum=0.0,
                maximum=100.0,
            )
        self.percentile = percentile
        self.directed = check_bool(directed, "directed", "HausdorffDistance")
        self.crop = check_bool(crop, "crop", "HausdorffDistance")
        self.clear()

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Set `update(y_pred, y, label_idx)`."""
        pred, true = _masks("HausdorffDistance", inputs)
        if self.crop:
            pred, true = _crop(pred, true)
        self._set(pred, true)

    def _directed(self, from_edges: Array, to_edges: Array) -> np.float64:
        dist = _distances(from_edges, to_edges, self.distance_metric)
        if dist.size == 0:
            return np.float64(np.inf)
        if not self.percentile:
            return np.float64(dist.max())
        return np.float64(np.percentile(dist, self.percentile))

    def eval(self) -> np.float64:
        """Return the distance (inf when a surface is empty)."""
        pred_edges, true_edges = self._get()
        forward = self._directed(pred_edges, true_edges)
        if self.directed:
            return forward
        return max(forward, self._directed(true_edges, pred_edges))


class _AveragedSurfaceMetric(_SurfaceMetric):
    # Both public subclasses take exactly these arguments, with these defaults.
    def __init__(
        self, symmetric: bool = False, distance_metric: str = "euclidean"
    ) -> None:
        super().__init__(distance_metric)
        self.symmetric = check_bool(symmetric, "symmetric", type(self).__name__)
        self.clear()

    _power: int
    """1: the mean of the per-direction mean distances; 2: the root of their mean squares."""

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Set `update(y_pred, y, label_idx)`."""
        self._set(*_masks(type(self).__name__, inputs))

    def eval(self) -> np.float64:
        """Return the average distance (inf when a surface is empty)."""
        pred_edges, true_edges = self._get()
        directions = [(pred_edges, true_edges)]
        if self.symmetric:
            directions.append((true_edges, pred_edges))
        dists = [_distances(a, b, self.distance_metric) for a, b in directions]
        if any(d.size == 0 for d in dists):
            return np.float64(np.inf)
        # Each direction's mean of d**p, then their mean, as MindSpore averages both directions.
        means = np.mean([(d**self._power).mean() for d in dists])
        return np.float64(np.sqrt(means) if self._power == 2 else means)


class MeanSurfaceDistance(_AveragedSurfaceMetric):
    """Mean distance from y_pred's surface points to y's surface (both ways averaged if `symmetric`).

    Args:
        symmetric: Average both directions.
        distance_metric: "euclidean", "chessboard" or "taxicab".
    """

    _power = 1


class RootMeanSquareDistance(_AveragedSurfaceMetric):
    """Root of the mean squared distance from y_pred's surface points to y's surface.

    Args:
        symmetric: Average both directions.
        distance_metric: "euclidean", "chessboard" or "taxicab".
    """

    _power = 2
