"""MindSpore 2.10 checkpoints of optimizer state, and the step MindSpore takes after them.

`runs(nn, Tensor)` builds, from either framework's modules, a Dense(4, 3) under MSELoss
trained by `TrainOneStepCell` with each optimizer. Run under MindSpore,
`python tests/nn/mindspore_optimizer_checkpoints.py tests/fixtures/mindspore/optimizers`
trains two steps, saves the whole `TrainOneStepCell` (weights and optimizer state) as
`<name>.ckpt`, takes a third step and writes the weights after it to `third_step.json`.
`test_optimizer_checkpoints.py` loads each file into cadence's cell and checks that the
third step gives the same weights. The files are regenerated, never edited by hand.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

OPTIMIZERS = {
    "adam_weight_decay": lambda nn, p: nn.AdamWeightDecay(p, 0.01, weight_decay=0.1),
    "rmsprop_centered": lambda nn, p: nn.RMSProp(p, 0.01, momentum=0.9, centered=True),
    "adagrad": lambda nn, p: nn.Adagrad(p, learning_rate=0.1),
}


def batches(tensor: Any) -> list[tuple[Any, Any]]:
    rng = np.random.default_rng(7)
    return [
        (
            tensor(rng.normal(size=(5, 4)).astype(np.float32)),
            tensor(rng.normal(size=(5, 3)).astype(np.float32)),
        )
        for _ in range(3)
    ]


def train_step(nn: Any, tensor: Any, name: str) -> tuple[Any, Any]:
    """The network (fixed initial weights) and its training step with optimizer `name`."""
    rng = np.random.default_rng(3)
    net = nn.Dense(4, 3)
    net.weight.set_data(tensor(rng.normal(size=(3, 4)).astype(np.float32)))
    net.bias.set_data(tensor(rng.normal(size=(3,)).astype(np.float32)))
    step = nn.TrainOneStepCell(
        nn.WithLossCell(net, nn.MSELoss()), OPTIMIZERS[name](nn, net.trainable_params())
    )
    return net, step


def record(folder: str) -> None:
    """Write `<name>.ckpt` after two MindSpore steps and `third_step.json`."""
    import mindspore as ms
    from mindspore import Tensor, nn

    out = {}
    for name in OPTIMIZERS:
        net, step = train_step(nn, Tensor, name)
        data = batches(Tensor)
        for x, y in data[:2]:
            step(x, y)
        ms.save_checkpoint(step, str(Path(folder) / f"{name}.ckpt"))
        step(*data[2])
        out[name] = {
            "weight": net.weight.asnumpy().tolist(),
            "bias": net.bias.asnumpy().tolist(),
        }
    (Path(folder) / "third_step.json").write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    record(sys.argv[1])
