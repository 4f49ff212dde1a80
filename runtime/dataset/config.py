"""Global dataset settings, as `mindspore.dataset.config`.

Only the seed changes what cadence does; the worker and prefetch settings are
recorded so MindSpore scripts that set and read them run unchanged (cadence
reads in-memory data on the calling thread).
"""

from __future__ import annotations

from ._checks import check_int
from ._random import get_dataset_seed, set_dataset_seed

__all__ = [
    "get_num_parallel_workers",
    "get_prefetch_size",
    "get_seed",
    "set_num_parallel_workers",
    "set_prefetch_size",
    "set_seed",
]

_settings: dict[str, int] = {"num_parallel_workers": 8, "prefetch_size": 16}


def set_seed(seed: int) -> None:
    """Seed the shuffling of every dataset, overriding `cadence.set_seed` for datasets.

    Args:
        seed: An int in [0, 2**32 - 1], as in MindSpore.

    Raises:
        TypeError: If `seed` is not an int.
        ValueError: If `seed` is out of range.

    Example:
        >>> import cadence.dataset as ds
        >>> ds.config.set_seed(58)
        >>> ds.config.get_seed()
        58
    """
    set_dataset_seed(
        check_int(seed, "seed", "config.set_seed", minimum=0, maximum=2**32 - 1)
    )


def get_seed() -> int | None:
    """Return the dataset seed, else the seed given to `cadence.set_seed`, else None (OS entropy)."""
    return get_dataset_seed()


def set_num_parallel_workers(num: int) -> None:
    """Record the default number of parallel workers (cadence runs pipelines in the calling thread)."""
    _settings["num_parallel_workers"] = check_int(
        num, "num", "config.set_num_parallel_workers", minimum=1
    )


def get_num_parallel_workers() -> int:
    """Return the value given to `set_num_parallel_workers` (default 8, as in MindSpore)."""
    return _settings["num_parallel_workers"]


def set_prefetch_size(size: int) -> None:
    """Record the prefetch size (cadence does not prefetch in-memory data)."""
    _settings["prefetch_size"] = check_int(
        size, "size", "config.set_prefetch_size", minimum=1
    )


def get_prefetch_size() -> int:
    """Return the value given to `set_prefetch_size` (default 16, as in MindSpore)."""
    return _settings["prefetch_size"]
