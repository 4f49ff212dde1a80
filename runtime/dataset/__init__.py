"""Datasets with MindSpore's names (`cadence.dataset`), so `mindspore.dataset` scripts port by changing the import.

Sources: `NumpySlicesDataset`, `GeneratorDataset`, `MnistDataset` (IDX files),
`DigitsDataset` (scikit-learn's bundled digits) and `NpzDataset` (`.npz` files).
Operations (`batch`, `shuffle`, `map`, `repeat`, `take`, `skip`, `project`,
`rename`) return new datasets; `create_tuple_iterator`, `create_dict_iterator`
and plain iteration yield rows of `cadence.Tensor`. Image and general
operations live in `cadence.dataset.vision` and `cadence.dataset.transforms`.
"""

from __future__ import annotations

from .._util import fixup_module_metadata
from . import config, transforms, vision
from ._dataset import Dataset
from ._digits import DigitsDataset
from ._iterators import DictIterator, TupleIterator
from ._mnist import MnistDataset
from ._npz import NpzDataset
from ._pipeline import (
    BatchDataset,
    MapDataset,
    RepeatDataset,
    ShuffleDataset,
    SkipDataset,
    TakeDataset,
)
from ._shard import DistributedSampler
from ._sources import GeneratorDataset, NumpySlicesDataset

__all__ = [
    "BatchDataset",
    "Dataset",
    "DictIterator",
    "DigitsDataset",
    "DistributedSampler",
    "GeneratorDataset",
    "MapDataset",
    "MnistDataset",
    "NpzDataset",
    "NumpySlicesDataset",
    "RepeatDataset",
    "ShuffleDataset",
    "SkipDataset",
    "TakeDataset",
    "TupleIterator",
    "config",
    "transforms",
    "vision",
]

fixup_module_metadata(__name__, globals())
del fixup_module_metadata
