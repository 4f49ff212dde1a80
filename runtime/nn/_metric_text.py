"""Language metrics: `Perplexity` of predicted token probabilities and `BleuScore` of translations."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

import numpy as np

from ..validation import check_bool, check_type
from ._metric_base import (
    Metric,
    RunningMean,
    check_count,
    not_updated,
    rearrange_inputs,
    two_arrays,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["BleuScore", "Perplexity"]


class Perplexity(RunningMean):
    """exp of the mean negative log-probability of the true tokens.

    `update(preds, labels)`: `preds` (..., C) probabilities (e.g. softmax outputs),
    `labels` the true class of each row. Probabilities are clipped at 1e-10.

    Args:
        ignore_label: A label whose tokens are left out, or None.
    """

    def __init__(self, ignore_label: int | None = None) -> None:
        super().__init__()
        if ignore_label is not None:
            check_type(ignore_label, "ignore_label", int, "Perplexity")
        self.ignore_label = ignore_label

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Accumulate `update(preds, labels)`."""
        preds, labels = two_arrays("Perplexity", inputs, "preds, labels")
        classes = preds.shape[-1] if preds.ndim else 0
        if preds.ndim < 1 or labels.size * classes != preds.size:
            raise RuntimeError(
                f"For 'Perplexity.update', there must be one label per row of preds {preds.shape}, but got "
                f"{labels.size} labels."
            )
        rows = preds.reshape(-1, classes)
        labels = labels.reshape(-1).astype(np.int64)
        keep = (
            np.ones(labels.size, bool)
            if self.ignore_label is None
            else labels != self.ignore_label
        )
        if (labels[keep] < 0).any() or (labels[keep] >= classes).any():
            raise ValueError(
                f"For 'Perplexity.update', labels must be in [0, {classes}), but got {labels[keep].min()} to "
                f"{labels[keep].max()}."
            )
        chosen = rows[np.flatnonzero(keep), labels[keep]]
        # The negative log-likelihood of the chosen probabilities, per kept token.
        self._accumulate(
            -float(np.log(np.maximum(1e-10, chosen)).sum()), int(keep.sum())
        )

    def eval(self) -> np.float64:
        """Return the perplexity."""
        return np.float64(np.exp(self._mean()))


def _ngrams(tokens: Sequence[Any], n_max: int) -> Counter[tuple[Any, ...]]:
    """Counts of every n-gram of `tokens` for n = 1 .. n_max."""
    counts: Counter[tuple[Any, ...]] = Counter()
    for n in range(1, n_max + 1):
        counts.update(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
    return counts


class BleuScore(Metric):
    """Corpus BLEU: the geometric mean of clipped n-gram precisions times a brevity penalty.

    `update(candidate_corpus, reference_corpus)`: a list of token lists, and per
    candidate a list of reference token lists.

    Args:
        n_gram: Longest n-gram, 1 to 4.
        smooth: Add 1 to every n-gram count (numerator and denominator).
    """

    def __init__(self, n_gram: int = 4, smooth: bool = False) -> None:
        super().__init__()
        check_type(n_gram, "n_gram", int, "BleuScore")
        if isinstance(n_gram, bool) or not 1 <= n_gram <= 4:
            raise ValueError(
                f"For 'BleuScore', the argument 'n_gram' must be an int in [1, 4], but got {n_gram!r}."
            )
        self.n_gram = n_gram
        self.smooth = check_bool(smooth, "smooth", "BleuScore")
        self.clear()

    def clear(self) -> None:
        """Reset the counts."""
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._candidate_len = 0.0
        self._reference_len = 0.0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """Accumulate `update(candidate_corpus, reference_corpus)`."""
        check_count("BleuScore", inputs, 2, "candidate_corpus, reference_corpus")
        candidates, references = inputs
        if len(candidates) != len(references):
            raise ValueError(
                "For 'BleuScore.update', there must be one list of references per candidate, but got "
                f"{len(candidates)} candidates and {len(references)} reference lists."
            )
        for candidate, refs in zip(candidates, references, strict=True):
            self._candidate_len += len(candidate)
            # The reference length closest to the candidate's (the first such, on ties).
            lengths = [len(ref) for ref in refs]
            self._reference_len += min(lengths, key=lambda n: abs(len(candidate) - n))
            counts = _ngrams(candidate, self.n_gram)
            best: Counter[tuple[Any, ...]] = Counter()
            for ref in refs:
                best |= _ngrams(ref, self.n_gram)
            for gram, count in (counts & best).items():
                self._numerator[len(gram) - 1] += count
            for gram, count in counts.items():
                self._denominator[len(gram) - 1] += count
        self._is_update = True

    def eval(self) -> np.float64:
        """Return the BLEU score (0.0 when some n-gram order has no match)."""
        if not self._is_update:
            raise not_updated("BleuScore")
        if self._numerator.min() == 0.0:
            return np.float64(0.0)
        if self.smooth:
            precisions = (self._numerator + 1) / (self._denominator + 1)
        else:
            precisions = self._numerator / self._denominator
        geometric_mean = np.exp(np.mean(np.log(precisions)))
        if self._candidate_len > self._reference_len:
            penalty = 1.0
        else:
            penalty = np.exp(1 - self._reference_len / self._candidate_len)
        return np.float64(penalty * geometric_mean)
