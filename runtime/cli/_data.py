"""Data loading for `cadence train` / `eval`: the digits, MNIST IDX files, CIFAR-10's binary files, or any `.npz`.

Every source is read into numpy arrays once (through `cadence.dataset`, which
checks the files), split into train / validation / test, and fed to the model
through `NumpySlicesDataset` pipelines that scale and shape each batch with
`prepare_inputs`, the same function `cadence predict` applies to its input.
"""

from __future__ import annotations

import os
import zipfile
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ._command import UsageError
from ._presets import RunSpec, Statistic, prepare_inputs

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["DATA_HELP", "Split", "Splits", "load_splits", "load_test_split", "pipeline"]

Array = np.ndarray[Any, Any]

DATA_HELP = (
    "'digits' (scikit-learn's 8x8 handwritten digits, no download), 'mnist' (IDX files in --data-dir), "
    "'cifar10' (the binary batch files in --data-dir) "
    "or the path of an .npz file with arrays x and y (and optionally x_test, y_test)"
)
_CIFAR_FILES = (
    "cifar-10-batches-bin: data_batch_1.bin ... data_batch_5.bin and test_batch.bin"
)
# Per channel (red, green, blue), over the 50,000 training images' pixels in [0, 1]: the
# published statistics of CIFAR-10's training set (the standard deviation of all pixels,
# not the mean of per-image deviations, 0.2023/0.1994/0.2010, that some scripts use).
_CIFAR_MEAN = (0.4914, 0.4822, 0.4465)
_CIFAR_STD = (0.2470, 0.2435, 0.2616)
_MNIST_FILES = (
    "MNIST_Data/train with train-images-idx3-ubyte and train-labels-idx1-ubyte beside MNIST_Data/test with "
    "t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte, or all four in one directory"
)
_MNIST_MEAN, _MNIST_STD = 0.1307, 0.3081  # over MNIST's training pixels in [0, 1]
_NPZ_TEST_FRACTION = 0.2
_MAX_CLASSES = 10_000


@dataclass(frozen=True)
class Split:
    """Raw samples (any numeric dtype, one row per sample) and integer labels."""

    x: Array
    y: Array

    def __len__(self) -> int:
        return len(self.y)


@dataclass(frozen=True)
class Splits:
    """A data set ready to train on: its splits and how its samples become network inputs."""

    description: str
    train: Split
    valid: Split | None
    test: Split
    data: str
    data_dir: str | None
    input_shape: tuple[int, ...]
    num_classes: int
    mean: Statistic
    std: Statistic

    def spec(self, model: str) -> RunSpec:
        """The `RunSpec` of a `model` preset trained on this data."""
        return RunSpec(
            model=model,
            input_shape=self.input_shape,
            num_classes=self.num_classes,
            mean=self.mean,
            std=self.std,
            data=self.data,
            data_dir=self.data_dir,
        )


def load_splits(
    data: str, data_dir: str | None, valid_fraction: float, seed: int
) -> Splits:
    """Load `data`, holding out `valid_fraction` of its training rows (chosen by `seed`) for validation.

    Raises:
        UsageError: The data set is unknown, missing or malformed (one line, with the fix).
    """
    name, train, test, mean, std, data_dir = _read(data, data_dir, seed)
    train, valid = _hold_out(train, valid_fraction, seed)
    input_shape = tuple(int(n) for n in train.x.shape[1:])
    classes = int(max(train.y.max(), test.y.max())) + 1
    if classes > _MAX_CLASSES:
        raise UsageError(
            f"the labels of {name} go up to {classes - 1}; labels must be class numbers 0, 1, 2, ... "
            f"(at most {_MAX_CLASSES} classes)."
        )
    parts = [f"{len(train)} train", f"{len(test)} test"]
    if valid is not None:
        parts.insert(1, f"{len(valid)} validation")
    description = (
        f"{name}: {', '.join(parts)} samples of shape {input_shape}, {classes} classes"
    )
    return Splits(
        description, train, valid, test, data, data_dir, input_shape, classes, mean, std
    )


def load_test_split(
    spec: RunSpec, data: str | None, data_dir: str | None
) -> tuple[str, Split]:
    """Load the test split of `data` (default: the data set `spec` was trained on).

    Raises:
        UsageError: As `load_splits`, or the samples do not fit the network.
    """
    if data is None:
        data, data_dir = spec.data, data_dir or spec.data_dir
    name, _, test, _, _, _ = _read(data, data_dir, 0)
    if tuple(test.x.shape[1:]) != spec.input_shape:
        raise UsageError(
            f"the samples of {name} have shape {tuple(test.x.shape[1:])}, but the checkpoint's network takes "
            f"{spec.input_shape}; evaluate it on the data it was trained on."
        )
    if int(test.y.max()) >= spec.num_classes:
        raise UsageError(
            f"the labels of {name} go up to {int(test.y.max())}, but the checkpoint's network has "
            f"{spec.num_classes} classes; evaluate it on the data it was trained on."
        )
    return name, test


def pipeline(
    split: Split,
    spec: RunSpec,
    batch_size: int,
    *,
    shuffle: bool,
    shard: tuple[int, int] | None = None,
) -> Any:
    """A batched `cadence.dataset` pipeline over `split` whose images are network inputs.

    `shard` is `(num_shards, shard_id)` for a data-parallel rank's part of the split.
    """
    from cadence import dataset

    num_shards, shard_id = shard if shard is not None else (None, None)
    source = dataset.NumpySlicesDataset(
        {"image": split.x, "label": split.y},
        shuffle=shuffle,
        num_shards=num_shards,
        shard_id=shard_id,
    )
    return source.batch(batch_size).map(lambda x: prepare_inputs(x, spec), "image")


# --- sources -------------------------------------------------------------------------


def _read(
    data: str, data_dir: str | None, seed: int
) -> tuple[str, Split, Split, Statistic, Statistic, str | None]:
    if data == "digits":
        if data_dir is not None:
            raise UsageError(
                "--data-dir is only for --data mnist and cifar10; the digits come with scikit-learn."
            )
        return (
            "the digits",
            _labels(_digits("train")),
            _labels(_digits("test")),
            0.0,
            1.0,
            None,
        )
    if data == "mnist":
        train, test, directory = _mnist(data_dir)
        return f"MNIST ({directory})", train, test, _MNIST_MEAN, _MNIST_STD, directory
    if data == "cifar10":
        train, test, directory = _cifar10(data_dir)
        return (
            f"CIFAR-10 ({directory})",
            train,
            test,
            _CIFAR_MEAN,
            _CIFAR_STD,
            directory,
        )
    if data.endswith(".npz"):
        if data_dir is not None:
            raise UsageError(
                "--data-dir is only for --data mnist and cifar10; an .npz file is named by --data itself."
            )
        train, test = _npz(data, seed)
        return data, train, test, 0.0, 1.0, None
    raise UsageError(f"unknown data set {data!r}: --data takes {DATA_HELP}.")


def _digits(usage: str) -> Split:
    from cadence import dataset

    try:
        source = dataset.DigitsDataset(usage=usage, shuffle=False)
    except ImportError as exc:  # pragma: no cover - scikit-learn is a dependency
        raise UsageError(
            f"the digits need scikit-learn ({exc}); install it with pip install scikit-learn."
        ) from None
    return _arrays(source, "image", "label")


def _mnist(data_dir: str | None) -> tuple[Split, Split, str]:
    from cadence import dataset

    if data_dir is None:
        raise UsageError(
            f"--data mnist needs --data-dir DIR, the directory of MNIST's IDX files ({_MNIST_FILES}; "
            "each optionally gzipped)."
        )
    if not os.path.isdir(data_dir):
        what = "is not a directory" if os.path.exists(data_dir) else "does not exist"
        raise UsageError(
            f"the MNIST directory {data_dir!r} {what}; pass --data-dir DIR with MNIST's IDX files "
            f"({_MNIST_FILES})."
        )
    hint = f"--data-dir must hold MNIST's IDX files as published: {_MNIST_FILES}"
    train, test = (
        _image_split(
            partial(dataset.MnistDataset, folder, usage=usage, shuffle=False), hint
        )
        for usage, folder in zip(
            ("train", "test"), _mnist_folders(data_dir), strict=True
        )
    )
    return train, test, os.path.abspath(data_dir)


def _cifar10(data_dir: str | None) -> tuple[Split, Split, str]:
    from cadence import dataset

    if data_dir is None or not os.path.isdir(data_dir):
        problem = (
            "needs --data-dir DIR"
            if data_dir is None
            else f"got --data-dir {data_dir!r}, which "
            + ("is not a directory" if os.path.exists(data_dir) else "does not exist")
        )
        raise UsageError(
            f"--data cifar10 {problem}: the directory of CIFAR-10's binary files ({_CIFAR_FILES})."
        )
    hint = f"--data-dir must hold CIFAR-10's binary files: {_CIFAR_FILES}"
    train, test = (
        _image_split(
            partial(dataset.Cifar10Dataset, data_dir, usage=usage, shuffle=False), hint
        )
        for usage in ("train", "test")
    )
    return train, test, os.path.abspath(data_dir)


def _image_split(source: Callable[[], Any], hint: str) -> Split:
    """Every row of the image data set `source()` builds, as (N, C, H, W); a reading error says `hint`."""
    try:
        rows = _arrays(source(), "image", "label")
    except (RuntimeError, ValueError) as exc:
        raise UsageError(f"{exc} ({hint})") from None
    return _labels(Split(np.ascontiguousarray(rows.x.transpose(0, 3, 1, 2)), rows.y))


def _mnist_folders(data_dir: str) -> tuple[str, str]:
    """The folders of MNIST's train and t10k files, for the layouts users have.

    MindSpore's download: `MNIST_Data/train` (train files) beside `MNIST_Data/test`
    (t10k files); `--data-dir` may name either `MNIST_Data` or its `train` folder.
    Otherwise all four files share `--data-dir`.
    """
    root = Path(data_dir)
    if (root / "train").is_dir() and (root / "test").is_dir():
        return str(root / "train"), str(root / "test")
    holds_test = any("t10k-images" in entry.name for entry in root.iterdir())
    if not holds_test and (root.parent / "test").is_dir():
        return data_dir, str(root.parent / "test")
    return data_dir, data_dir


def _npz(path: str, seed: int) -> tuple[Split, Split]:
    from cadence import dataset

    if not os.path.isfile(path):
        what = "is not a file" if os.path.exists(path) else "does not exist"
        raise UsageError(f"the data file {path!r} {what}; --data takes {DATA_HELP}.")
    try:
        train = _arrays(dataset.NpzDataset(path, shuffle=False), "x", "y")
        test = None
        keys = _npz_keys(path)
        if ("x_test" in keys) != ("y_test" in keys):
            present, absent = (
                ("x_test", "y_test") if "x_test" in keys else ("y_test", "x_test")
            )
            raise UsageError(
                f"{path!r} has an array {present} but no {absent}; a test split needs both "
                "(or neither: then part of x, y is held out for testing)."
            )
        if {"x_test", "y_test"} <= keys:
            test = _arrays(
                dataset.NpzDataset(path, ("x_test", "y_test"), shuffle=False),
                "x_test",
                "y_test",
            )
    except (ValueError, FileNotFoundError) as exc:
        raise UsageError(
            f"{exc} (--data needs an .npz file written by numpy.savez with arrays x (samples) and y "
            "(integer labels))"
        ) from None
    _check_npz_split(train, path, "x", "y")
    train = _channel_first(_labels(train))
    if test is not None:
        _check_npz_split(test, path, "x_test", "y_test")
        test = _channel_first(_labels(test))
    if test is None:
        return _hold_out_required(train, _NPZ_TEST_FRACTION, seed, path)
    if test.x.shape[1:] != train.x.shape[1:]:
        raise UsageError(
            f"in {path!r}, x_test has samples of shape {test.x.shape[1:]} but x has {train.x.shape[1:]}; "
            "both must hold samples of the same shape."
        )
    return train, test


def _npz_keys(path: str) -> set[str]:
    with zipfile.ZipFile(path) as archive:
        return {Path(name).stem for name in archive.namelist()}


def _check_npz_split(split: Split, path: str, x_name: str, y_name: str) -> None:
    if split.x.ndim < 2 or split.x.dtype.kind not in "biuf":
        raise UsageError(
            f"in {path!r}, {x_name} must be a numeric array with one row per sample (at least 2-d), "
            f"but it has shape {split.x.shape} and dtype {str(split.x.dtype)!r}."
        )
    y = split.y
    if (
        y.ndim != 1
        or y.dtype.kind not in "biuf"
        or not np.all(np.isfinite(y))
        or np.any(y != np.round(y))
        or np.any(y < 0)
    ):
        raise UsageError(
            f"in {path!r}, {y_name} must be a 1-d array of class numbers 0, 1, 2, ..., but it has shape "
            f"{y.shape} and dtype {str(y.dtype)!r}"
            + ("" if y.ndim != 1 else f" (first values {y[:3].tolist()})")
            + "."
        )


def _channel_first(split: Split) -> Split:
    """Give (N, H, W) images their channel axis: (N, 1, H, W)."""
    return Split(split.x[:, None], split.y) if split.x.ndim == 3 else split


def _labels(split: Split) -> Split:
    return Split(split.x, split.y.astype(np.int32))


def _arrays(source: Any, x_name: str, y_name: str) -> Split:
    """Read every row of an in-memory `cadence.dataset` source, in file order."""
    rows = source.get_dataset_size()
    batch = next(
        source.batch(rows).create_dict_iterator(num_epochs=1, output_numpy=True)
    )
    return Split(np.asarray(batch[x_name]), np.asarray(batch[y_name]))


# --- splitting -----------------------------------------------------------------------


def _hold_out(train: Split, fraction: float, seed: int) -> tuple[Split, Split | None]:
    if fraction == 0:
        return train, None
    held = round(len(train) * fraction)
    if held < 1 or held >= len(train):
        raise UsageError(
            f"--valid-fraction {fraction} holds out {held} of {len(train)} training samples; "
            "choose a fraction that leaves at least one sample on each side, or 0 for no validation."
        )
    order = np.random.default_rng(seed).permutation(len(train))
    return _take(train, order[held:]), _take(train, order[:held])


def _hold_out_required(
    train: Split, fraction: float, seed: int, path: str
) -> tuple[Split, Split]:
    if len(train) < 2:
        raise UsageError(
            f"{path!r} holds {len(train)} sample(s); at least 2 are needed to hold some out for testing."
        )
    held = max(1, round(len(train) * fraction))
    order = np.random.default_rng(seed + 1).permutation(len(train))
    return _take(train, np.sort(order[held:])), _take(train, np.sort(order[:held]))


def _take(split: Split, rows: Array) -> Split:
    return Split(split.x[rows], split.y[rows])
