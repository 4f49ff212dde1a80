"""Small data sets in MindSpore's real on-disk layouts, for the porting scripts and the docs.

Each `make_<name>(workdir)` writes its files under `workdir` exactly where a MindSpore
script expects them after the official download:

- `make_mnist`: `MNIST_Data/train` (`train-images-idx3-ubyte`, `train-labels-idx1-ubyte`)
  and `MNIST_Data/test` (`t10k-images-idx3-ubyte`, `t10k-labels-idx1-ubyte`), IDX files;
- `make_cifar10`: `cifar-10-batches-bin/data_batch_{1..5}.bin`, `test_batch.bin` and
  `batches.meta.txt`, CIFAR-10's binary version (label byte + red, green, blue planes);
  `make_cifar10_small` the same with fewer records, for scripts training a full-size network;
- `make_imagefolder`: `imagefolder/<class>/<n>.jpg`, JPEG files of a few sizes;
- `make_sentiment`: `sentiment/train.tsv` and `sentiment/test.tsv`, one `label<TAB>sentence`
  line per review, as text-classification corpora are distributed.

The images are tiny stand-ins, but learnable (the class decides where a bright patch sits
or which color dominates), so a short training run shows the loss falling. The record
counts are small so that scripts run in seconds; everything else is the real format.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

__all__ = [
    "MNIST_SIZES",
    "make_cifar10",
    "make_cifar10_small",
    "make_imagefolder",
    "make_mnist",
    "make_sentiment",
]

MNIST_SIZES = {"train": 320, "test": 64}
CIFAR_PER_BATCH = 40  # records per batch file (the real files hold 10,000)
CIFAR_SMALL_PER_BATCH = 16
IMAGEFOLDER_CLASSES = ("blue", "green", "red")
IMAGEFOLDER_PER_CLASS = 8
SENTIMENT_SIZES = {"train": 128, "test": 32}
_POSITIVE = ("good", "great", "fine", "lovely", "superb", "fun", "clever", "warm")
_NEGATIVE = ("bad", "dull", "awful", "boring", "weak", "slow", "silly", "cold")
_FILLER = (
    "the",
    "film",
    "was",
    "a",
    "plot",
    "and",
    "its",
    "cast",
    "very",
    "story",
    "so",
)


def _idx(array: np.ndarray) -> bytes:
    """An IDX file of unsigned bytes: magic 0x0000 08 <ndim>, big-endian dimensions, data."""
    header = bytes([0, 0, 0x08, array.ndim]) + struct.pack(
        f">{array.ndim}I", *array.shape
    )
    return header + array.astype(np.uint8).tobytes()


def mnist_arrays(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """`n` 28x28 uint8 images whose digit class is where a bright bar sits, and their labels."""
    rng = np.random.default_rng(seed)
    labels = (np.arange(n) % 10).astype(np.uint8)
    rng.shuffle(labels)
    images = rng.integers(0, 50, (n, 28, 28)).astype(np.uint8)
    for i, label in enumerate(labels):
        row, col = divmod(int(label), 5)
        images[i, 4 + 12 * row : 12 + 12 * row, 1 + 5 * col : 6 + 5 * col] = 250
    return images, labels


def make_mnist(workdir: str | Path) -> Path:
    """Write `MNIST_Data/train` and `MNIST_Data/test` under `workdir`; return `MNIST_Data`."""
    root = Path(workdir) / "MNIST_Data"
    for seed, (split, prefix) in enumerate((("train", "train"), ("test", "t10k"))):
        folder = root / split
        folder.mkdir(parents=True, exist_ok=True)
        images, labels = mnist_arrays(MNIST_SIZES[split], seed)
        (folder / f"{prefix}-images-idx3-ubyte").write_bytes(_idx(images))
        (folder / f"{prefix}-labels-idx1-ubyte").write_bytes(_idx(labels))
    return root


def cifar_records(n: int, seed: int) -> np.ndarray:
    """`n` CIFAR-10 records (3,073 bytes: label, then 32x32 red, green and blue planes)."""
    rng = np.random.default_rng(seed)
    labels = (np.arange(n) % 10).astype(np.uint8)
    rng.shuffle(labels)
    planes = rng.integers(0, 60, (n, 3, 32, 32)).astype(np.uint8)
    for i, label in enumerate(labels):
        channel, spot = divmod(
            int(label), 4
        )  # labels 8 and 9 reuse channel 2 with spots 0, 1
        top, left = 4 + 12 * (spot // 2), 4 + 12 * (spot % 2)
        planes[i, channel % 3, top : top + 12, left : left + 12] = 240
        if label >= 8:
            planes[i, :, 14:18, :] = 200  # a gray stripe tells 8 and 9 from 0 and 1
    return np.concatenate([labels[:, None], planes.reshape(n, -1)], axis=1)


def make_cifar10(workdir: str | Path, per_batch: int = CIFAR_PER_BATCH) -> Path:
    """Write `cifar-10-batches-bin` (five train batches, one test batch) under `workdir`; return it."""
    root = Path(workdir) / "cifar-10-batches-bin"
    root.mkdir(parents=True, exist_ok=True)
    names = [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]
    for seed, name in enumerate(names):
        (root / name).write_bytes(cifar_records(per_batch, seed).tobytes())
    (root / "batches.meta.txt").write_text(
        "airplane\nautomobile\nbird\ncat\ndeer\ndog\nfrog\nhorse\nship\ntruck\n"
    )
    return root


def make_cifar10_small(workdir: str | Path) -> Path:
    """`make_cifar10` with 16 records a file: 80 training images, 16 test images."""
    return make_cifar10(workdir, CIFAR_SMALL_PER_BATCH)


def make_imagefolder(workdir: str | Path) -> Path:
    """Write `imagefolder/<class>/<n>.jpg` (the class is the dominant color) under `workdir`; return it."""
    from PIL import Image

    root = Path(workdir) / "imagefolder"
    rng = np.random.default_rng(7)
    for channel, name in enumerate(IMAGEFOLDER_CLASSES[::-1]):  # red, green, blue
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(IMAGEFOLDER_PER_CLASS):
            height, width = 36 + 4 * (i % 3), 40 + 4 * (i % 2)
            pixels = rng.integers(0, 80, (height, width, 3)).astype(np.uint8)
            pixels[..., channel] = rng.integers(170, 256, (height, width))
            Image.fromarray(pixels).save(folder / f"{i:03d}.jpg", quality=90)
    return root


def sentiment_lines(n: int, seed: int) -> list[str]:
    """`n` lines `label<TAB>sentence`: label 1 when the sentence holds more positive than negative words."""
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(n):
        label = i % 2
        strong, weak = (_POSITIVE, _NEGATIVE) if label else (_NEGATIVE, _POSITIVE)
        words = [str(w) for w in rng.choice(_FILLER, int(rng.integers(3, 9)))]
        words += [str(w) for w in rng.choice(strong, 2)]
        if i % 3 == 0:  # a word of the other side, outnumbered
            words.append(str(rng.choice(weak)))
        rng.shuffle(words)
        lines.append(f"{label}\t{' '.join(words)}")
    return lines


def make_sentiment(workdir: str | Path) -> Path:
    """Write `sentiment/train.tsv` and `sentiment/test.tsv` under `workdir`; return `sentiment`."""
    root = Path(workdir) / "sentiment"
    root.mkdir(parents=True, exist_ok=True)
    for seed, (split, n) in enumerate(SENTIMENT_SIZES.items()):
        (root / f"{split}.tsv").write_text("\n".join(sentiment_lines(n, seed)) + "\n")
    return root
