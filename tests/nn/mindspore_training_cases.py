"""Losses, optimizers and loss scaling recorded on MindSpore 2.10 and replayed on cadence.

`cases(ms, nn, ops, Tensor)` builds the runs from either framework's modules, so
the same code runs on both (`test_training_against_mindspore.py` replays it).
MindSpore 2.10 cannot run `nn.Lamb` (no CPU kernel) nor
`TrainOneStepWithLossScaleCell` (its overflow check is an NPU operator) on the
CPU, so those are checked against their documented rules in the tests instead.
`python tests/nn/mindspore_training_cases.py out.json`, run with a MindSpore
interpreter, writes `mindspore_training.json`: MindSpore is the oracle, and the
file is regenerated, never edited by hand.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable

STEPS = 4


def _arrays(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_arrays(v) for v in value]
    return np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value).tolist()


def cases(ms: Any, nn: Any, ops: Any, Tensor: Any) -> dict[str, Callable[[], Any]]:  # noqa: N803
    """Return name -> zero-argument run, for the framework whose modules are given."""
    rng = np.random.default_rng(23)
    w0 = rng.normal(size=(3, 4)).astype(np.float32)
    b0 = rng.normal(size=(3,)).astype(np.float32)
    xs = [Tensor(rng.normal(size=(5, 4)).astype(np.float32)) for _ in range(STEPS)]
    ys = [Tensor(rng.normal(size=(5, 3)).astype(np.float32)) for _ in range(STEPS)]
    logits = Tensor(rng.normal(size=(4, 5)).astype(np.float32))
    probs = Tensor(rng.dirichlet(np.ones(5), size=4).astype(np.float32))
    classes = Tensor(np.array([1, 0, 4, 2], np.int32))
    ignored = Tensor(np.array([1, -100, 4, 2], np.int32))
    class_weight = Tensor(np.array([0.5, 1.0, 2.0, 1.5, 1.0], np.float32))
    binary = Tensor((rng.uniform(size=(4, 5)) > 0.5).astype(np.float32))
    pos_weight = Tensor(np.array([1.0, 2.0, 0.5, 1.0, 3.0], np.float32))
    log_probs = ops.log_softmax(logits, 1)
    images = Tensor(rng.normal(size=(2, 3, 2, 2)).astype(np.float32))
    pixels = Tensor(rng.integers(0, 3, (2, 2, 2)).astype(np.int32))

    def net() -> Any:
        dense = nn.Dense(4, 3)
        dense.weight.set_data(Tensor(w0))
        dense.bias.set_data(Tensor(b0))
        return dense

    def train(make_opt: Callable[[Any], Any]) -> Callable[[], Any]:
        def run() -> Any:
            dense = net()
            opt = make_opt(dense)
            step = nn.TrainOneStepCell(nn.WithLossCell(dense, nn.MSELoss()), opt)
            losses = [step(x, y) for x, y in zip(xs, ys, strict=True)]
            state = {p.name: p for p in opt.get_parameters()}
            return [losses, dense.weight, dense.bias] + [
                state[k] for k in sorted(state) if "." in k
            ]

        return run

    def groups(dense: Any) -> list[dict[str, Any]]:
        return [
            {"params": [dense.weight], "weight_decay": 0.01, "lr": 0.05},
            {"params": [dense.bias]},
        ]

    lr_list = [0.1, 0.05, 0.02, 0.01]
    return {
        # --- losses --------------------------------------------------------------
        "BCEWithLogitsLoss mean": lambda: nn.BCEWithLogitsLoss()(logits, binary),
        "BCEWithLogitsLoss weights none": lambda: nn.BCEWithLogitsLoss(
            "none", class_weight, pos_weight
        )(logits, binary),
        "binary_cross_entropy_with_logits sum": lambda: (
            ops.binary_cross_entropy_with_logits(
                logits, binary, class_weight, pos_weight, "sum"
            )
        ),
        "NLLLoss mean weighted ignore": lambda: nn.NLLLoss(class_weight)(
            log_probs, ignored
        ),
        "NLLLoss none": lambda: nn.NLLLoss(reduction="none")(log_probs, classes),
        "nll_loss sum": lambda: ops.nll_loss(log_probs, classes, reduction="sum"),
        "SmoothL1Loss default": lambda: nn.SmoothL1Loss()(logits, probs),
        "SmoothL1Loss beta mean": lambda: nn.SmoothL1Loss(0.5, "mean")(
            logits * 3, probs
        ),
        "smooth_l1_loss sum": lambda: ops.smooth_l1_loss(logits, probs, 2.0, "sum"),
        "KLDivLoss mean": lambda: nn.KLDivLoss()(log_probs, probs),
        "KLDivLoss batchmean": lambda: nn.KLDivLoss("batchmean")(log_probs, probs),
        "kl_div none": lambda: ops.kl_div(log_probs, probs, "none"),
        "CrossEntropyLoss smoothing": lambda: nn.CrossEntropyLoss(label_smoothing=0.1)(
            logits, classes
        ),
        "CrossEntropyLoss weighted ignore smoothing": lambda: nn.CrossEntropyLoss(
            class_weight, label_smoothing=0.2
        )(logits, ignored),
        "CrossEntropyLoss probabilities smoothing": lambda: nn.CrossEntropyLoss(
            label_smoothing=0.1
        )(logits, probs),
        "nll_loss smoothing weighted": lambda: ops.nll_loss(
            log_probs, ignored, class_weight, label_smoothing=0.3
        ),
        "cross_entropy spatial none": lambda: ops.cross_entropy(
            images, pixels, reduction="none"
        ),
        "cross_entropy spatial mean ignore": lambda: ops.cross_entropy(
            images, pixels, ignore_index=1
        ),
        "clip_by_norm list": lambda: ops.clip_by_norm([logits, probs], 2.0),
        "clip_by_global_norm": lambda: ops.clip_by_global_norm((logits, probs), 1.5),
        "cross_entropy sum": lambda: ops.cross_entropy(
            logits, classes, reduction="sum"
        ),
        # --- optimizers, four steps of a Dense(4, 3) under MSELoss ----------------------
        "AdamWeightDecay": train(
            lambda d: nn.AdamWeightDecay(d.trainable_params(), 0.01, weight_decay=0.1)
        ),
        "AdamWeightDecay groups": train(lambda d: nn.AdamWeightDecay(groups(d), 0.01)),
        "Adam amsgrad": train(
            lambda d: nn.Adam(
                d.trainable_params(), 0.01, use_amsgrad=True, weight_decay=0.01
            )
        ),
        "RMSProp": train(lambda d: nn.RMSProp(d.trainable_params(), 0.01)),
        "RMSProp centered momentum": train(
            lambda d: nn.RMSProp(
                d.trainable_params(),
                0.01,
                momentum=0.9,
                centered=True,
                weight_decay=0.01,
            )
        ),
        "RMSProp list lr": train(lambda d: nn.RMSProp(d.trainable_params(), lr_list)),
        "Adagrad": train(lambda d: nn.Adagrad(d.trainable_params(), learning_rate=0.1)),
        # MindSpore's CPU kernel ignores update_slots=False (docs/mindspore-differences.md).
        "Adagrad groups": train(
            lambda d: nn.Adagrad(groups(d), accum=0.5, learning_rate=0.1)
        ),
        "Adadelta": train(
            lambda d: nn.Adadelta(d.trainable_params(), 1.0, 0.8, weight_decay=0.01)
        ),
        "Adadelta groups list lr": train(lambda d: nn.Adadelta(groups(d), lr_list)),
        "ProximalAdagrad": train(
            lambda d: nn.ProximalAdagrad(d.trainable_params(), learning_rate=0.1)
        ),
        "ProximalAdagrad l1 l2 groups": train(
            lambda d: nn.ProximalAdagrad(groups(d), 0.5, 0.1, l1=0.05, l2=0.1)
        ),
        "Rprop": train(lambda d: nn.Rprop(d.trainable_params(), 0.05)),
        "Rprop groups clipped": train(
            lambda d: nn.Rprop(
                groups(d), 0.1, (0.4, 1.5), (0.02, 0.12), weight_decay=0.01
            )
        ),
        # t0 = 2: the average starts taking weights at the last step (mu = 1 / (4 - 2)).
        "ASGD": train(lambda d: nn.ASGD(d.trainable_params(), 0.1, 0.01, 0.75, 2.0)),
        "ASGD groups list lr": train(
            lambda d: nn.ASGD(groups(d), lr_list, weight_decay=0.01)
        ),
        # l1 = 0: MindSpore 2.10's CPU kernel moves weights of negative `linear` away from 0
        # by l1 (docs/mindspore-differences.md); the L1 rule is checked against `reference`.
        "FTRL": train(
            lambda d: nn.FTRL(
                d.trainable_params(), learning_rate=0.1, l2=0.02, weight_decay=0.01
            )
        ),
        "FTRL lr_power groups": train(
            lambda d: nn.FTRL(
                [{"params": [d.weight], "weight_decay": 0.05}, {"params": [d.bias]}],
                0.5,
                0.2,
                -0.7,
                0.0,
                0.3,
            )
        ),
    }


def record(path: str) -> None:
    """Run every case on MindSpore and write the results as JSON."""
    import mindspore as ms
    from mindspore import Tensor, nn, ops

    out = {name: _arrays(run()) for name, run in cases(ms, nn, ops, Tensor).items()}
    with open(path, "w") as f:
        json.dump(out, f, indent=0)


if __name__ == "__main__":
    record(sys.argv[1])
