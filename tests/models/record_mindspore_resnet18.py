"""Record the ResNet-18 fixture with real MindSpore: `resnet18_w4.ckpt` and `resnet18_w4_io.npz`.

Run with a MindSpore interpreter (`/work/msvenv/bin/python tests/models/record_mindspore_resnet18.py`).
The network is the model zoo's ResNet-18 structure and names (`ResidualBlockBase` with
`conv1`/`bn1d`/`conv2`/`bn2d`/`down_sample_layer`, stages `layer1`..`layer4`, `end_point`)
with the CIFAR stem (3x3 convolution, no max-pool) and stage widths 4, 8, 16, 32 to keep
the file small. Two Momentum steps in training mode move the batch-norm statistics off
their initial values; the recorded outputs are the evaluation-mode logits of a fixed
input, which `test_mindspore_checkpoints.py` compares with cadence's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore"
WIDTHS = [4, 8, 16, 32]


def build(nn: Any, ops: Any) -> Any:
    """The network, with MindSpore's cells."""

    def conv3x3(cin: int, cout: int, stride: int = 1) -> Any:
        return nn.Conv2d(cin, cout, 3, stride=stride, pad_mode="pad", padding=1)

    def bn(c: int) -> Any:
        return nn.BatchNorm2d(c, eps=1e-4, momentum=0.9)

    class ResidualBlockBase(nn.Cell):
        def __init__(self, cin: int, cout: int, stride: int) -> None:
            super().__init__()
            self.conv1, self.bn1d = conv3x3(cin, cout, stride), bn(cout)
            self.conv2, self.bn2d = conv3x3(cout, cout), bn(cout)
            self.relu = nn.ReLU()
            self.down_sample = stride != 1 or cin != cout
            self.down_sample_layer = (
                nn.SequentialCell([nn.Conv2d(cin, cout, 1, stride=stride), bn(cout)])
                if self.down_sample
                else None
            )

        def construct(self, x: Any) -> Any:
            out = self.bn2d(self.conv2(self.relu(self.bn1d(self.conv1(x)))))
            if self.down_sample_layer is not None:
                x = self.down_sample_layer(x)
            return self.relu(out + x)

    class ResNet(nn.Cell):
        def __init__(self) -> None:
            super().__init__()
            self.conv1, self.bn1, self.relu = (
                conv3x3(3, WIDTHS[0]),
                bn(WIDTHS[0]),
                nn.ReLU(),
            )
            cins = [WIDTHS[0], *WIDTHS[:3]]
            self.layer1, self.layer2, self.layer3, self.layer4 = (
                nn.SequentialCell(
                    [ResidualBlockBase(cin, cout, s), ResidualBlockBase(cout, cout, 1)]
                )
                for cin, cout, s in zip(cins, WIDTHS, [1, 2, 2, 2], strict=True)
            )
            self.mean = ops.ReduceMean(keep_dims=True)
            self.flatten = nn.Flatten()
            self.end_point = nn.Dense(WIDTHS[3], 10)

        def construct(self, x: Any) -> Any:
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.layer4(self.layer3(self.layer2(self.layer1(out))))
            return self.end_point(self.flatten(self.mean(out, (2, 3))))

    return ResNet()


def main() -> None:
    """Build, train two steps, save the checkpoint and the evaluation-mode input/output pair."""
    import mindspore as ms
    from mindspore import nn, ops

    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    net = build(nn, ops)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(
        nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.05, 0.9)
    )
    step.set_train(True)
    for _ in range(2):
        images = rng.normal(size=(8, 3, 32, 32)).astype(np.float32)
        labels = rng.integers(0, 10, 8).astype(np.int32)
        step(ms.Tensor(images), ms.Tensor(labels))
    net.set_train(False)
    probe = rng.normal(size=(4, 3, 32, 32)).astype(np.float32)
    logits = net(ms.Tensor(probe)).asnumpy()
    ms.save_checkpoint(net, str(OUT / "resnet18_w4.ckpt"))
    np.savez(OUT / "resnet18_w4_io.npz", images=probe, logits=logits)
    print(f"saved {len(net.parameters_dict())} parameters; logits[0] = {logits[0]}")


if __name__ == "__main__":
    main()
