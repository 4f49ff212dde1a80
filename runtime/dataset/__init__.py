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

from .._util import fixup_module_metadata
from . import config, text, transforms, vision
from ._cifar import Cifar10Dataset
from ._dataset import Dataset
from ._digits import DigitsDataset
from ._folder import ImageFolderDataset
from ._iterators import DictIterator, TupleIterator
from ._mindrecord import MindDataset
from ._mnist import FashionMnistDataset, MnistDataset
from ._npz import NpzDataset
from ._pipeline import (
    BatchDataset,
    MapDataset,
    RepeatDataset,
    ShuffleDataset,
    SkipDataset,
    TakeDataset,
)
from ._samplers import DistributedSampler, RandomSampler, Sampler, SequentialSampler
from ._sources import GeneratorDataset, NumpySlicesDataset
from ._text_files import CSVDataset, Shuffle, TextFileDataset

__all__ = [
    "BatchDataset",
    "CSVDataset",
    "Cifar10Dataset",
    "Dataset",
    "DictIterator",
    "DigitsDataset",
    "DistributedSampler",
    "FashionMnistDataset",
    "GeneratorDataset",
    "ImageFolderDataset",
    "MapDataset",
    "MindDataset",
    "MnistDataset",
    "NpzDataset",
    "NumpySlicesDataset",
    "RandomSampler",
    "RepeatDataset",
    "Sampler",
    "SequentialSampler",
    "Shuffle",
    "ShuffleDataset",
    "SkipDataset",
    "TakeDataset",
    "TextFileDataset",
    "TupleIterator",
    "config",
    "text",
    "transforms",
    "vision",
]

fixup_module_metadata(__name__, globals())
del fixup_module_metadata
