"""`cadence eval CKPT`: evaluate a checkpoint of `cadence train` on its data set's test split."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ._command import CHECKPOINT, Command, UsageError, data_args
from ._data import DATA_HELP, load_test_split, pipeline
from ._presets import RunSpec, build_network

if TYPE_CHECKING:
    import argparse

__all__ = ["COMMAND", "load_trained_network", "run"]


def run(args: argparse.Namespace) -> int:
    """Evaluate and print the metrics; return the exit status."""
    import cadence as ms
    from cadence import nn

    spec, net = load_trained_network(args.checkpoint)
    name, test = load_test_split(spec, args.data, args.data_dir)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = ms.Model(net, loss, metrics={"accuracy", "loss"})
    metrics = model.eval(pipeline(test, spec, 256, shuffle=False))
    print(
        f"Test accuracy: {metrics['accuracy']:.4f} (loss {metrics['loss']:.4f}, {len(test)} test samples "
        f"of {name}; {spec.model} from {args.checkpoint})"
    )
    return 0


def load_trained_network(path: str) -> tuple[RunSpec, Any]:
    """Rebuild the network of a `cadence train` checkpoint and load its parameters into it.

    Raises:
        UsageError: The file is missing, not a checkpoint, not from `cadence train`,
            or its parameters do not fit the network.
    """
    from cadence import load_checkpoint, load_param_into_net

    if not os.path.isfile(path):
        what = "is not a file" if os.path.exists(path) else "does not exist"
        raise UsageError(
            f"the checkpoint {path!r} {what}; pass a .ckpt file from a `cadence train` output directory "
            "(model.ckpt or checkpoints/*.ckpt)."
        )
    fmt = "safetensors" if path.endswith(".safetensors") else "ckpt"
    try:
        entries = load_checkpoint(path, format=fmt)
        spec = RunSpec.from_checkpoint(entries, path)
        net = build_network(spec.model, spec.input_shape, spec.num_classes)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    missing, _ = load_param_into_net(net, entries)
    if missing:
        raise UsageError(
            f"the checkpoint {path!r} lacks the parameters {missing!r} of its {spec.model} network; "
            "the file is damaged or was edited."
        )
    return spec, net


COMMAND = Command(
    name="eval",
    help="evaluate a checkpoint of `cadence train` on the test split",
    description="Rebuild the network a `cadence train` checkpoint was saved from, load its parameters "
    "and print its accuracy and loss on the test split of the data set it was trained on "
    "(or of --data).",
    args=(
        CHECKPOINT,
        *data_args(f"evaluate on this data set instead: {DATA_HELP}"),
    ),
    run=run,
)
