"""Models without compute that the loop, run-handle and callback tests share."""

from __future__ import annotations

from typing import Any

from cadence import Model, TrainStepEnd
from cadence.testing import BatchCounter, ListDataset, constant_network

__all__ = ["counting_model", "train_one_step", "watch_steps"]


def counting_model(network: Any = None, *, eval_loss: float = 0.5) -> Model:
    """A Model that can train, fit and evaluate with no tensors at all.

    `network` defaults to `constant_network()` (loss 1.0); the evaluation network returns
    `(eval_loss, x, y)` for each batch, and the one metric, "n", counts the batches seen.
    """
    return Model(
        network or constant_network(),
        eval_network=lambda x, y: (eval_loss, x, y),
        eval_indexes=[0, 1, 2],
        metrics={"n": BatchCounter()},
    )


def train_one_step(callbacks: Any) -> Model:
    """Train `constant_network()` for one epoch of one step with `callbacks`; return the Model."""
    model = Model(constant_network())
    model.train(1, ListDataset.of_steps(1), callbacks=callbacks)
    return model


def watch_steps(model: Model) -> list[int]:
    """Subscribe an async worker to `model`'s `TrainStepEnd`; return the list it appends each step to."""
    seen: list[int] = []

    async def watcher(event: TrainStepEnd) -> None:
        seen.append(event.step)

    model.bus.subscribe(TrainStepEnd, watcher, mode="worker")
    return seen
