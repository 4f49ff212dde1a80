"""`cadence predict CKPT INPUT`: classify the samples of a `.npy` / `.npz` file with a trained checkpoint."""

from __future__ import annotations

import os
import zipfile
from typing import TYPE_CHECKING, Any

import numpy as np

from ._command import CHECKPOINT, Command, UsageError, arg
from ._eval import load_trained_network
from ._presets import prepare_inputs

if TYPE_CHECKING:
    import argparse

__all__ = ["COMMAND", "read_inputs", "run"]

_CHUNK = 1024  # samples per forward pass


def run(args: argparse.Namespace) -> int:
    """Predict and print one line per sample; return the exit status."""
    import cadence as ms

    spec, net = load_trained_network(args.checkpoint)
    raw = read_inputs(args.input)
    try:
        x = prepare_inputs(raw, spec)
    except ValueError as exc:
        raise UsageError(f"{args.input!r}: {exc}") from None
    model = ms.Model(net)
    for start in range(0, len(x), _CHUNK):
        logits = model.predict(ms.Tensor(x[start : start + _CHUNK])).asnumpy()
        probabilities = _softmax(logits.astype(np.float64))
        for offset, row in enumerate(probabilities):
            label = int(row.argmax())
            print(
                f"sample {start + offset}: class {label} (probability {row[label]:.3f})"
            )
    return 0


def read_inputs(path: str) -> np.ndarray[Any, Any]:
    """Read the array of samples in `path` (.npy, or .npz with `x` or a single array).

    Raises:
        UsageError: The file is missing or does not hold a numeric array.
    """
    if not os.path.isfile(path):
        what = "is not a file" if os.path.exists(path) else "does not exist"
        raise UsageError(
            f"the input {path!r} {what}; pass a .npy or .npz file of samples."
        )
    from ..dataset._npy_claims import check_member, check_npy_file, file_kind

    kind = file_kind(path)
    try:
        if kind == "other":
            raise ValueError("it is neither a zip archive (.npz) nor a .npy file")
        if kind == "npy":
            check_npy_file(path)  # before numpy allocates what the header claims
        loaded = np.load(path, allow_pickle=False)
        if isinstance(loaded, np.lib.npyio.NpzFile) and loaded.zip is not None:
            for key in {"x"} & set(loaded.files) or loaded.files[:1]:
                check_member(loaded.zip, key, path)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise UsageError(
            f"cannot read {path!r} as a .npy or .npz file ({exc}); write the samples with numpy.save or numpy.savez."
        ) from None
    if isinstance(loaded, np.lib.npyio.NpzFile):
        with loaded:
            names = list(loaded.files)
            if "x" not in names and len(names) != 1:
                raise UsageError(
                    f"{path!r} holds the arrays {names!r}; name the samples x (numpy.savez(path, x=samples))."
                )
            try:
                array = np.asarray(loaded["x" if "x" in names else names[0]])
            except ValueError as exc:
                raise UsageError(
                    f"cannot read the samples in {path!r}: {exc}"
                ) from None
    else:
        array = np.asarray(loaded)
    return array


def _softmax(logits: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    result: np.ndarray[Any, Any] = shifted / shifted.sum(axis=1, keepdims=True)
    return result


COMMAND = Command(
    name="predict",
    help="classify the samples in a .npy or .npz file with a checkpoint of `cadence train`",
    description="Print the predicted class and its probability for each sample in INPUT: a .npy file, "
    "or an .npz file with an array x (or a single array). One sample or a batch; samples are raw like "
    "the training data (integer pixels are divided by 255, floats taken as in [0, 1]).",
    args=(
        CHECKPOINT,
        arg("input", metavar="INPUT", help="a .npy or .npz file of samples"),
    ),
    run=run,
)
