"""Issue 23's convolutional cells on the GPU target: training steps equal the CPU's.

A small network strings every new cell together (depthwise and grouped Conv2d,
Conv1d, Conv2dTranspose (depthwise and group 1), mirror Pad, uneven AdaptiveAvgPool2d, ReLU6, HSwish,
Dropout2d with p=0 so both targets compute the same thing); a short stack of
MobileNetV2's blocks (the whole network at a simulator-sized width ends in 1x1
maps whose batch norm over 4 values makes float32 rounding diverge within a step).
"""

import numpy as np
import pytest

from cadence import nn, ops
from cadence.models._mobilenet_v2 import ConvBNReLU, InvertedResidual

from .test_cuda_training import OPTIMIZERS, on_target, train_steps  # noqa: F401 (fixture)

pytestmark = pytest.mark.cudasim


class ConvZoo(nn.Cell):
    def __init__(self):
        super().__init__()
        self.pad = nn.Pad(((0, 0), (0, 0), (1, 1), (2, 1)), mode="REFLECT")
        self.stem = nn.Conv2d(1, 4, 3, pad_mode="valid", has_bias=True)
        self.depthwise = nn.Conv2d(
            4, 8, 3, stride=2, pad_mode="pad", padding=1, group=4
        )
        self.grouped = nn.Conv2d(8, 4, 1, group=2)
        # A depthwise transposed convolution, then a plain one (group 1) to 3 channels.
        self.up = nn.SequentialCell(
            [
                nn.Conv2dTranspose(4, 4, 3, stride=2, group=4, has_bias=True),
                nn.Conv2dTranspose(4, 3, 1, has_bias=True),
            ]
        )
        self.drop = nn.Dropout2d(p=0.0)
        self.pool = nn.AdaptiveAvgPool2d((3, 2))
        self.line = nn.Conv1d(3, 3, 2, pad_mode="valid", group=3)
        self.relu6, self.hswish = nn.ReLU6(), nn.HSwish()
        self.flatten, self.fc = nn.Flatten(), nn.Dense(15, 3)

    def construct(self, x):
        x = self.relu6(self.stem(self.pad(x)))
        x = self.hswish(self.grouped(self.depthwise(x)))
        x = self.pool(self.drop(self.up(x)))  # (N, 3, 3, 2)
        x = self.line(ops.reshape(x, (x.shape[0], 3, 6)))  # (N, 3, 5)
        return self.fc(self.flatten(x))


class MobileBlocks(nn.Cell):
    def __init__(self):
        super().__init__()
        self.features = nn.SequentialCell(
            [
                ConvBNReLU(3, 8),
                InvertedResidual(8, 8, 1, 2),
                InvertedResidual(8, 16, 2, 3),
            ]
        )
        self.mean = ops.ReduceMean(keep_dims=False)
        self.fc = nn.Dense(16, 3)

    def construct(self, x):
        return self.fc(self.mean(self.features(x), (2, 3)))


NETWORKS = {
    "conv_zoo": lambda: (ConvZoo(), (1, 7, 6)),
    "mobilenet_blocks": lambda: (MobileBlocks(), (3, 6, 6)),
}


@pytest.mark.parametrize("make", sorted(NETWORKS))
def test_gpu_steps_match_cpu(on_target, make):  # noqa: F811 (the fixture)
    results = {}
    for target in ("CPU", "GPU"):
        on_target(target)
        net, *_, losses = train_steps(NETWORKS[make], OPTIMIZERS["momentum"], 2)
        results[target] = (losses, [p.asnumpy() for p in net.trainable_params()])
    np.testing.assert_allclose(
        results["GPU"][0], results["CPU"][0], rtol=1e-4, atol=1e-5
    )
    for g, c in zip(results["GPU"][1], results["CPU"][1], strict=True):
        np.testing.assert_allclose(g, c, rtol=1e-4, atol=1e-5)
