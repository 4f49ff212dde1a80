"""`cadence eval CKPT`: evaluate a checkpoint of `cadence train` on its data set's test split."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ._command import CHECKPOINT, Command, UsageError, data_args
from ._data import DATA_HELP, load_test_split, pipeline
from ._presets import RunSpec, build_network, parameter_count

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
        _check_size(path, spec, entries)
        net = build_network(spec.model, spec.input_shape, spec.num_classes)
        missing, _ = load_param_into_net(net, entries)
    except (
        ValueError,
        RuntimeError,
    ) as exc:  # RuntimeError: a shape or dtype that does not fit
        raise UsageError(str(exc)) from None
    if missing:
        raise UsageError(
            f"the checkpoint {path!r} lacks the parameters {missing!r} of its {spec.model} network; "
            "the file is damaged or was edited."
        )
    _check_finite(path, net)
    return spec, net


def _check_size(path: str, spec: RunSpec, entries: dict[str, Any]) -> None:
    """Refuse a run description whose network needs more numbers than the file holds."""
    import numpy as np

    held = sum(np.size(v) for v in entries.values() if not isinstance(v, str))
    needed = parameter_count(spec.model, spec.input_shape, spec.num_classes)
    if needed > held or min(spec.input_shape, default=0) < 1 or spec.num_classes < 1:
        raise UsageError(
            f"the checkpoint {path!r} does not fit its own run description: a {spec.model} network for "
            f"inputs of shape {spec.input_shape} and {spec.num_classes} classes needs {needed} numbers, "
            f"the file holds {held}; the file is damaged or was edited."
        )


def _check_finite(path: str, net: Any) -> None:
    """Refuse weights that hold NaN or infinity: what a diverged run leaves."""
    import numpy as np

    for name, param in net.parameters_and_names():
        values = param.asnumpy()
        if not np.isfinite(values).all():
            raise UsageError(
                f"the checkpoint {path!r} holds non-finite weights ({param.name or name} has NaN or "
                "infinity: the training diverged); use a checkpoint saved before that, or train again "
                "with a smaller --lr."
            )


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
