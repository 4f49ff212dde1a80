"""Model and data set presets the service can train, and the job one request becomes."""

from __future__ import annotations

import dataclasses
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from ._schema import RunRequest

__all__ = ["DATASETS", "MODELS", "Job", "build_job"]

_DIGIT_SHAPE = (
    1,
    8,
    8,
)  # the digits preset's images; the networks are `cadence train`'s presets


def _mlp() -> Any:
    from ..cli._presets import mlp

    return mlp(_DIGIT_SHAPE, 10)


def _lenet5() -> Any:
    from ..cli._presets import lenet5

    return lenet5(_DIGIT_SHAPE, 10)


def _digits(usage: str, shuffle: bool) -> Any:
    from cadence import dataset

    return dataset.DigitsDataset(usage=usage, shuffle=shuffle)


MODELS: dict[str, Callable[[], Any]] = {"lenet5": _lenet5, "mlp": _mlp}
"""Model preset name -> a function building the network (10 classes, 1x8x8 inputs)."""
DATASETS: dict[str, Callable[[str, bool], Any]] = {"digits": _digits}
"""Data set preset name -> a function `(usage, shuffle)` building the unbatched data set."""

# `set_seed` is process-wide: seeding and building one job at a time keeps each
# job's parameter initialization reproducible.
_build_lock = threading.Lock()


@dataclasses.dataclass(eq=False)
class Job:
    """What `POST /runs` starts: a model and the arguments of its `fit_async`."""

    model: Any
    train: Any
    valid: Any
    callbacks: list[Any]
    eval_every: int
    uploader: Any = None
    """The `CheckpointUploader` among the callbacks, if the request asked for uploads."""


def build_job(request: RunRequest, directory: Path | None) -> Job:
    """Build the network, data sets and callbacks `request` asks for (slow: run it in a thread).

    `directory` receives checkpoints (None: the request saves none).
    """
    import cadence as ms
    from cadence import nn

    with _build_lock:
        ms.set_seed(request.seed)
        net = MODELS[request.model]()
        make = DATASETS[request.dataset]
        train = make("train", True).batch(request.batch_size)
        valid = make("test", False).batch(256) if request.eval_every else None
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(
        net.trainable_params(), learning_rate=request.learning_rate, momentum=0.9
    )
    model = ms.Model(
        net, loss, optimizer, metrics={"accuracy"} if valid is not None else None
    )
    job = Job(model, train, valid, [], request.eval_every)
    if request.checkpoint is not None and directory is not None:
        job.callbacks.append(
            _checkpointer(request, directory, train.get_dataset_size())
        )
        if request.upload is not None:
            from cadence.callbacks import CheckpointUploader

            # After ModelCheckpoint: local retention then waits for each upload.
            job.uploader = CheckpointUploader(request.upload, on_incomplete="ignore")
            job.callbacks.append(job.uploader)
    return job


def _checkpointer(request: RunRequest, directory: Path, steps_per_epoch: int) -> Any:
    from cadence.callbacks import CheckpointConfig, ModelCheckpoint

    ckpt = request.checkpoint
    assert ckpt is not None
    config = CheckpointConfig(
        save_checkpoint_steps=ckpt.every_steps or steps_per_epoch,
        keep_checkpoint_max=ckpt.keep,
        format=ckpt.format,
    )
    directory.mkdir(parents=True, exist_ok=True)
    return ModelCheckpoint(prefix=ckpt.prefix, directory=str(directory), config=config)
