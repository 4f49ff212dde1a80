"""`CosineSimilarity`: the pairwise similarity matrix of a batch of vectors."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..validation import check_bool, check_choice
from ._metric_base import Metric, check_count, not_updated, rearrange_inputs, to_numpy

__all__ = ["CosineSimilarity"]


class CosineSimilarity(Metric):
    """Similarity of every pair of rows of `update(x)` (x of shape (N, M)).

    Args:
        similarity: "cosine" (rows normalized first) or "dot".
        reduction: "none" (the (N, N) matrix), "sum" or "mean" (over each row).
        zero_diagonal: Set each row's similarity with itself to 0.
    """

    def __init__(
        self,
        similarity: str = "cosine",
        reduction: str = "none",
        zero_diagonal: bool = True,
    ) -> None:
        super().__init__()
        owner = "CosineSimilarity"
        self.similarity = check_choice(
            similarity, "similarity", ("cosine", "dot"), owner
        )
        self.reduction = check_choice(
            reduction, "reduction", ("none", "sum", "mean"), owner
        )
        self.zero_diagonal = check_bool(zero_diagonal, "zero_diagonal", owner)
        self.clear()

    def clear(self) -> None:
        """Forget the data."""
        self.sqr_mtx_res: np.ndarray[Any, Any] | None = None

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Compute the similarity matrix of `update(x)` (each update replaces the previous one)."""
        check_count("CosineSimilarity", inputs, 1, "x")
        data = to_numpy(inputs[0], "CosineSimilarity").astype(np.float64)
        if data.ndim != 2:
            raise ValueError(
                f"For 'CosineSimilarity.update', the input must be 2-D (N, M), but got shape {data.shape}."
            )
        if self.similarity == "cosine":
            data = data / np.linalg.norm(data, ord=2, axis=1, keepdims=True)
        self.sqr_mtx_res = data @ data.T

    def eval(self) -> np.ndarray[Any, Any]:
        """Return the similarity matrix, or its row sums or means."""
        if self.sqr_mtx_res is None:
            raise not_updated("CosineSimilarity")
        result = self.sqr_mtx_res.copy()
        if self.zero_diagonal:
            np.fill_diagonal(result, 0)
        if self.reduction == "mean":
            return np.asarray(result.mean(axis=-1))
        if self.reduction == "sum":
            return np.asarray(result.sum(axis=-1))
        return result
