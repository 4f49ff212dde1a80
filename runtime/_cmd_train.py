"""`cadence train`: train a model on a real data set with the standard callbacks (the main job)."""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

from ._cli import UsageError

if TYPE_CHECKING:
    from argparse import _SubParsersAction

__all__ = ["register", "run"]


def register(subparsers: _SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `train` subcommand."""
    parser = subparsers.add_parser(
        "train",
        help="train a model on the handwritten digits scikit-learn ships and report its accuracy",
        description="Train an MLP on scikit-learn's handwritten digits with LossMonitor and TimeMonitor, "
        "then evaluate it on the held-out test split.",
    )
    parser.add_argument(
        "--epochs", type=_positive_int, default=30, help="epochs to train (default 30)"
    )
    parser.add_argument(
        "--batch-size",
        type=_positive_int,
        default=32,
        help="samples per step (default 32)",
    )
    parser.add_argument(
        "--lr", type=_positive_float, default=0.1, help="learning rate (default 0.1)"
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--print-every",
        type=_positive_int,
        default=20,
        help="print the loss every N steps (default 20)",
    )
    parser.set_defaults(func=run)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a positive whole number, got {text!r}"
        ) from None
    if value <= 0:
        raise argparse.ArgumentTypeError(
            f"expected a positive whole number, got {text!r}"
        )
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a positive number, got {text!r}"
        ) from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    """Train, evaluate, print the test accuracy; return the exit status."""
    import cadence as ms
    from cadence import dataset, nn
    from cadence.callbacks import LossMonitor, TimeMonitor

    ms.set_seed(args.seed)
    try:
        train = dataset.DigitsDataset(usage="train", shuffle=True).batch(
            args.batch_size
        )
        test = dataset.DigitsDataset(usage="test", shuffle=False).batch(256)
    except ImportError as exc:  # pragma: no cover - scikit-learn is a dependency
        raise UsageError(f"the digits data set needs scikit-learn: {exc}") from None
    net: Any = nn.SequentialCell(
        nn.Flatten(), nn.Dense(64, 128), nn.ReLU(), nn.Dense(128, 10)
    )
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=args.lr, momentum=0.9)
    model = ms.Model(net, loss, optimizer, metrics={"accuracy"})
    print(
        f"Training an MLP (64-128-10) on scikit-learn's handwritten digits: {train.get_dataset_size()} steps "
        f"per epoch, {args.epochs} epochs, batch {args.batch_size}, lr {args.lr}, seed {args.seed}",
        flush=True,
    )
    start = time.perf_counter()
    model.train(
        args.epochs, train, callbacks=[LossMonitor(args.print_every), TimeMonitor()]
    )
    elapsed = time.perf_counter() - start
    metrics = model.eval(test)
    print(f"Trained in {elapsed:.1f} s. Test accuracy: {metrics['accuracy']:.4f}")
    return 0
