"""The normalization, smooth-activation and batched-matmul CUDA kernels against `reference`."""

import numpy as np
import pytest

import cadence as ms
from cadence import nn
from cadence.kernels import reference as ref
from cadence.models import TransformerClassifier

from ...kernels.attention_cases import kernel_cases
from .test_cuda_kernels import close, k

pytestmark = pytest.mark.cudasim


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("rows", "width", "groups"), [(3, 5, 2), (1, 1, 1)])
def test_cuda_kernels_match_the_reference(dtype, rows, width, groups):
    for name, args in kernel_cases(dtype, 5, rows, width, groups):
        close(getattr(k, name)(*args), getattr(ref, name)(*args), dtype)


@pytest.fixture
def on_target():
    yield lambda name: ms.set_context(device_target=name)
    ms.set_context(device_target="CPU")


def _classifier_steps(steps):
    ms.set_seed(0)
    net = TransformerClassifier(
        12,
        3,
        max_len=5,
        d_model=8,
        nhead=2,
        num_layers=1,
        dim_feedforward=8,
        dropout=0.0,
    )
    step = nn.TrainOneStepCell(
        nn.WithLossCell(
            net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        ),
        nn.Adam(net.trainable_params(), 0.01),
    )
    step.set_train()
    rng = np.random.default_rng(2)
    tokens = ms.Tensor(rng.integers(0, 12, (3, 5)).astype(np.int32))
    labels = ms.Tensor(rng.integers(0, 3, 3).astype(np.int32))
    return net, [float(step(tokens, labels).asnumpy()) for _ in range(steps)]


def test_transformer_classifier_steps_on_gpu_match_cpu(on_target):
    on_target("CPU")
    cpu_net, cpu_losses = _classifier_steps(2)
    on_target("GPU")
    k.reset_statistics()
    gpu_net, gpu_losses = _classifier_steps(2)
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-4, atol=1e-5)
    for c, g in zip(
        cpu_net.trainable_params(), gpu_net.trainable_params(), strict=True
    ):
        np.testing.assert_allclose(
            g.asnumpy(), c.asnumpy(), rtol=1e-4, atol=1e-5, err_msg=g.name
        )
    print(sorted(k.statistics().items()))
