"""`OcclusionSensitivity`: how much a classifier's score drops when each region of the input is hidden."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ..compute._tensor import Tensor
from ..validation import check_positive_int, check_type
from ._cell import Cell
from ._metric_base import Metric, check_count, not_updated, rearrange_inputs, to_numpy

__all__ = ["OcclusionSensitivity"]

Array = np.ndarray[Any, Any]


class OcclusionSensitivity(Metric):
    """For each position of one input image, the label's score minus the score with a patch around it hidden.

    `update(model, y_pred, label)`: `model` a classifying Cell, `y_pred` one input
    (shape (1, ...)), `label` its class. `eval()` returns the map, of the input's
    shape without the batch axis (or of the bounding box).

    Args:
        pad_val: Value the hidden patch is filled with.
        margin: Half-size of the patch, an int (every axis) or a list (one per axis).
        n_batch: Occluded inputs per model call.
        b_box: [min0, max0, min1, max1, ...] to compute only inside a box (negative max: to the end).
    """

    def __init__(
        self,
        pad_val: float = 0.0,
        margin: int | list[int] = 2,
        n_batch: int = 128,
        b_box: list[int] | None = None,
    ) -> None:
        super().__init__()
        owner = "OcclusionSensitivity"
        self.pad_val = float(check_type(pad_val, "pad_val", float, owner))
        self.margin = check_type(margin, "margin", (int, list), owner)
        self.n_batch = check_positive_int(n_batch, "n_batch", owner)
        self.b_box = None if b_box is None else check_type(b_box, "b_box", list, owner)
        self.clear()

    def clear(self) -> None:
        """Forget the map."""
        self._map: Array | None = None

    def _box(self, shape: Array) -> tuple[Array, Array]:
        if self.b_box is None:
            return np.zeros_like(shape), shape - 1
        if len(self.b_box) != 2 * len(shape):
            raise ValueError(
                f"For 'OcclusionSensitivity', the argument 'b_box' must hold a min and a max for each of the "
                f"{len(shape)} input axes, but got {self.b_box!r}."
            )
        low, high = np.array(self.b_box[::2]), np.array(self.b_box[1::2])
        low[low < 0] = 0
        high[high < 0] = shape[high < 0] - 1
        if (high >= shape).any() or (low > high).any():
            raise ValueError(
                f"For 'OcclusionSensitivity', the argument 'b_box' must lie inside the input {tuple(shape)} with "
                f"each min <= max, but got {self.b_box!r}."
            )
        return low, high

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Compute the map for `update(model, y_pred, label)`."""
        owner = "OcclusionSensitivity"
        check_count(owner, inputs, 3, "model, predicted value, label")
        model = check_type(inputs[0], "model", Cell, owner)
        image = to_numpy(inputs[1], owner)
        label = int(np.asarray(to_numpy(inputs[2], owner)).reshape(-1)[0])
        if image.ndim < 2 or image.shape[0] != 1:
            raise RuntimeError(
                f"For '{owner}.update', the input must be one sample (shape (1, ...)), but got shape {image.shape}."
            )
        shape = np.array(image.shape[1:])
        margins = np.broadcast_to(np.asarray(self.margin), shape.shape)
        low, high = self._box(shape)
        baseline = float(model(Tensor(image)).asnumpy()[0, label])
        scores: list[float] = []
        batch: list[Array] = []
        positions = itertools.product(
            *(range(lo, hi + 1) for lo, hi in zip(low, high, strict=True))
        )
        for pos in positions:
            occluded = image.copy()
            patch = tuple(
                slice(max(0, p - m), min(n, p + m))
                for p, m, n in zip(pos, margins, shape, strict=True)
            )
            occluded[(slice(None), *patch)] = self.pad_val
            batch.append(occluded)
            if len(batch) == self.n_batch:
                scores.extend(
                    model(Tensor(np.concatenate(batch))).asnumpy()[:, label].tolist()
                )
                batch = []
        if batch:
            scores.extend(
                model(Tensor(np.concatenate(batch))).asnumpy()[:, label].tolist()
            )
        self._map = baseline - np.asarray(scores, np.float64).reshape(
            tuple(high - low + 1)
        )

    def eval(self) -> Array:
        """Return the sensitivity map (baseline score minus occluded score)."""
        if self._map is None:
            raise not_updated("OcclusionSensitivity")
        return np.squeeze(self._map)
