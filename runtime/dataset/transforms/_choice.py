"""Operations that apply other operations at random: `RandomApply`, `RandomChoice`, `RandomOrder`.

Each sample (each row inside `Dataset.map`) draws anew, from the dataset random
source, so `set_seed` makes the draws reproducible.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...validation import check_number
from .._apply import apply_row
from .._random import augmentation_rng
from .._transform import TensorOperation

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from .._block import Array

__all__ = ["RandomApply", "RandomChoice", "RandomOrder", "check_transforms"]


def check_transforms(transforms: Any, owner: str) -> list[Callable[..., Any]]:
    """Return `transforms` if it is a non-empty list of callables."""
    if (
        not isinstance(transforms, list | tuple)
        or not transforms
        or not all(callable(t) for t in transforms)
    ):
        raise TypeError(
            f"For '{owner}', the argument 'transforms' must be a non-empty list of callables, but got {transforms!r}."
        )
    return list(transforms)


class _RandomTransforms(TensorOperation):
    """Applies a per-sample random selection of `transforms` (`_pick`), in the order it returns."""

    def __init__(self, transforms: Sequence[Callable[..., Any]]) -> None:
        self.transforms = check_transforms(transforms, type(self).__name__)

    def _block_capable(self) -> bool:
        return False  # each row draws its own choice

    def _pick(self) -> list[Callable[..., Any]]:
        raise NotImplementedError

    def _apply_sample(self, *arrays: Array) -> tuple[Array, ...]:
        return tuple(apply_row(self._pick(), list(arrays)))


class RandomApply(_RandomTransforms):
    """Apply all of `transforms`, in order, with probability `prob`; else pass the sample on unchanged.

    Args:
        transforms: A non-empty list of operations or callables.
        prob: The probability, in [0, 1].

    Raises:
        TypeError, ValueError: If an argument has the wrong type or value.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import transforms, vision
        >>> transforms.RandomApply([vision.Invert()], prob=1.0)(np.zeros((1, 1, 3), np.uint8)).tolist()
        [[[255, 255, 255]]]
    """

    def __init__(
        self, transforms: Sequence[Callable[..., Any]], prob: float = 0.5
    ) -> None:
        super().__init__(transforms)
        self.prob = check_number(prob, "prob", "RandomApply", minimum=0.0, maximum=1.0)

    def _pick(self) -> list[Callable[..., Any]]:
        return self.transforms if augmentation_rng().random() < self.prob else []


class RandomChoice(_RandomTransforms):
    """Apply one of `transforms` (a non-empty list of operations or callables), chosen uniformly for each sample.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import transforms, vision
        >>> op = transforms.RandomChoice([vision.Invert(), vision.Invert()])
        >>> op(np.zeros((1, 1, 3), np.uint8)).tolist()
        [[[255, 255, 255]]]
    """

    def _pick(self) -> list[Callable[..., Any]]:
        return [self.transforms[int(augmentation_rng().integers(len(self.transforms)))]]


class RandomOrder(_RandomTransforms):
    """Apply all of `transforms` (a non-empty list of operations or callables), in a random order for each sample.

    A `transforms` that is not such a list is a `TypeError`.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import transforms
        >>> op = transforms.RandomOrder([lambda x: x + 1, lambda x: x * 2])
        >>> int(op(np.array(1))) in (3, 4)
        True
    """

    def _pick(self) -> list[Callable[..., Any]]:
        order = augmentation_rng().permutation(len(self.transforms)).tolist()
        return [self.transforms[i] for i in order]
