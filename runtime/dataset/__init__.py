"""Datasets with MindSpore's names (`cadence.dataset`), so `mindspore.dataset` scripts port by changing the import.

Sources: `NumpySlicesDataset`, `GeneratorDataset`, `MnistDataset` (IDX files),
`Cifar10Dataset` (CIFAR-10's binary batches), `ImageFolderDataset` (one folder
of images per class), `DigitsDataset` (scikit-learn's bundled digits),
`NpzDataset` (`.npz` files), `MindDataset` (MindRecord files, see
`cadence.mindrecord`), `TextFileDataset` and `CSVDataset` (lines of text files).
Operations (`batch`, `shuffle`, `map`, `repeat`, `take`, `skip`, `project`,
`rename`) return new datasets; `create_tuple_iterator`, `create_dict_iterator`
and plain iteration yield rows of `cadence.Tensor`. Image and general
operations live in `cadence.dataset.vision` and `cadence.dataset.transforms`.

Layer rule: builds on the compute package (tensors, the seed in the context)
and `cadence._util`; never the bus, the training core or the callbacks.
"""

from __future__ import annotations

from typing import Any

from .._util import fixup_module_metadata
from . import config, text, transforms, vision
from ._cifar import Cifar10Dataset
from ._combine import ConcatDataset, ZipDataset
from ._dataset import Dataset
from ._digits import DigitsDataset
from ._filter import FilterDataset
from ._folder import ImageFolderDataset
from ._iterators import DictIterator, TupleIterator
from ._mindrecord import MindDataset
from ._mnist import FashionMnistDataset, MnistDataset
from ._npz import NpzDataset
from ._padded_batch import PaddedBatchDataset
from ._pipeline import (
    BatchDataset,
    MapDataset,
    RepeatDataset,
    ShuffleDataset,
    SkipDataset,
    TakeDataset,
)
from ._samplers import (
    DistributedSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    SubsetSampler,
    WeightedRandomSampler,
)
from ._sources import GeneratorDataset, NumpySlicesDataset
from ._text_files import CSVDataset, Shuffle, TextFileDataset


def zip(datasets: tuple[Dataset, ...]) -> ZipDataset:
    """Zip datasets column-wise, as `mindspore.dataset.zip`: the first dataset's `zip` of the others.

    Args:
        datasets: A tuple of at least two datasets with different column names.

    Raises:
        TypeError: If `datasets` is not a tuple of datasets.
        ValueError: If it holds fewer than two, or two share a column name.
    """
    from ._combine import datasets_argument

    owner = "zip"
    given: Any = datasets  # checked as any value, whatever the annotation says
    if isinstance(given, Dataset):
        raise TypeError(
            f"For '{owner}', the argument 'datasets' must be a tuple of Datasets, but got one {type(datasets).__name__!r}."
        )
    return ZipDataset(datasets_argument(datasets, (tuple,), owner), owner)


__all__ = [
    "BatchDataset",
    "CSVDataset",
    "Cifar10Dataset",
    "ConcatDataset",
    "Dataset",
    "DictIterator",
    "DigitsDataset",
    "DistributedSampler",
    "FashionMnistDataset",
    "FilterDataset",
    "GeneratorDataset",
    "ImageFolderDataset",
    "MapDataset",
    "MindDataset",
    "MnistDataset",
    "NpzDataset",
    "NumpySlicesDataset",
    "PaddedBatchDataset",
    "RandomSampler",
    "RepeatDataset",
    "Sampler",
    "SequentialSampler",
    "Shuffle",
    "ShuffleDataset",
    "SkipDataset",
    "SubsetRandomSampler",
    "SubsetSampler",
    "TakeDataset",
    "TextFileDataset",
    "TupleIterator",
    "WeightedRandomSampler",
    "ZipDataset",
    "config",
    "text",
    "transforms",
    "vision",
    "zip",
]

fixup_module_metadata(__name__, globals())
del fixup_module_metadata
