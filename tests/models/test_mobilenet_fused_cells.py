"""SequentialCell runs BatchNorm + ReLU / ReLU6 as one fused kernel (MobileNetV2's ConvBNReLU): same results as the cells one by one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

import cadence as ms
from cadence import nn
from cadence.models._mobilenet_v2 import ConvBNReLU

if TYPE_CHECKING:
    from collections.abc import Callable


def _one_by_one(cells: nn.SequentialCell) -> Callable[[Any], Any]:
    """The cells applied in turn, each on its own (no fusion)."""

    def run(x: Any) -> Any:
        for cell in cells:
            x = cell(x)
        return x

    return run


def _run(cell: nn.Cell, call: Callable[[Any], Any], x: ms.Tensor) -> list[np.ndarray]:
    """Output, input gradient, parameter gradients and moving statistics of one training call."""
    params = cell.trainable_params()
    out = call(x).asnumpy()
    dx, dparams = ms.grad(lambda a: (call(a) * call(a)).sum(), 0, params)(x)
    stats = [p.asnumpy().copy() for p in cell.get_parameters() if not p.requires_grad]
    return [out, dx.asnumpy(), *(g.asnumpy() for g in dparams), *stats]


@pytest.mark.parametrize(("groups", "kernel_size"), [(1, 1), (8, 3)])
@pytest.mark.parametrize(
    "beta", [0.0, 5.5]
)  # 5.5: many values above 6, clipped by ReLU6
def test_fused_conv_bn_relu6_matches_its_cells(groups, kernel_size, beta):
    x = ms.Tensor(
        np.random.default_rng(0).standard_normal((3, 8, 6, 6)).astype(np.float32)
    )
    results = []
    for fused in (True, False):
        ms.set_seed(0)
        cell = ConvBNReLU(8, 8, kernel_size, groups=groups)
        cell.features[1].beta.set_data(ms.Tensor(np.full(8, beta, np.float32)))
        cell.set_train()
        results.append(_run(cell, cell if fused else _one_by_one(cell.features), x))
    fused_results, cells_results = results
    assert len(fused_results) == len(cells_results) == 2 + 3 + 2
    assert (fused_results[0] == 6.0).any() == (beta > 0)
    for got, want in zip(fused_results, cells_results, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_fused_cell_uses_the_moving_statistics_when_not_training():
    ms.set_seed(0)
    cell = ConvBNReLU(4, 4)
    cell.features[1].moving_mean.set_data(ms.Tensor(np.full(4, 0.5, np.float32)))
    cell.set_train(False)
    x = ms.Tensor(
        np.random.default_rng(1).standard_normal((2, 4, 5, 5)).astype(np.float32)
    )
    np.testing.assert_array_equal(
        cell(x).asnumpy(), _one_by_one(cell.features)(x).asnumpy()
    )


@pytest.mark.parametrize(
    ("cells", "shape", "fused_name"),
    [
        (lambda: [nn.BatchNorm1d(6), nn.ReLU()], (5, 6), "relu"),
        (lambda: [nn.BatchNorm2d(6), nn.ReLU()], (3, 6, 4, 4), "relu"),
        (lambda: [nn.BatchNorm2d(6), nn.ReLU6()], (3, 6, 4, 4), "relu6"),
        (lambda: [nn.BatchNorm2d(6), nn.Sigmoid()], (3, 6, 4, 4), None),  # not fused
    ],
)
def test_sequential_cell_fuses_batch_norm_and_relu(cells, shape, fused_name):
    x = ms.Tensor(
        3 * np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    )
    results = []
    for fused in (True, False):
        seq = nn.SequentialCell(cells())
        seq[0].beta.set_data(ms.Tensor(np.linspace(-1, 6, 6).astype(np.float32)))
        seq.set_train()
        results.append(_run(seq, seq if fused else _one_by_one(seq), x))
    step = seq._build_plan()[0]
    assert (step[1] if isinstance(step, tuple) else None) == fused_name
    assert results[0][0].max() > 0
    for got, want in zip(*results, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


class _UnfusedReLU(nn.ReLU):
    """A ReLU the fusion does not recognise (it matches the exact cell type)."""


@pytest.mark.parametrize(
    ("in_channel", "stride", "convs"),
    [(4, 2, 3), (8, 1, 2)],  # with the down-sampling branch, and the identity shortcut
)
def test_resnet_block_fuses_batch_norm_and_relu_with_the_cells_results(
    in_channel, stride, convs
):
    # ResidualBlockBase (and ResNet's stem) run bn1d + relu and bn2d + shortcut + relu fused;
    # a ReLU subclass keeps them apart.
    from cadence.models._resnet import ResidualBlockBase

    x = ms.Tensor(
        np.random.default_rng(2).normal(size=(2, in_channel, 6, 6)).astype(np.float32)
    )
    results = []
    for relu in (nn.ReLU, _UnfusedReLU):
        ms.set_seed(0)
        block = ResidualBlockBase(in_channel, 8, stride)
        block.relu = relu()
        results.append(_run(block, block, x))
    # out, dx, the convolution weights, the BNs' gamma and beta, then their moving statistics
    assert len(results[0]) == 2 + convs + convs * 2 + convs * 2
    for got, want in zip(*results, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("activation", [nn.ReLU, nn.ReLU6])
def test_fused_batch_norm_and_activation_keep_a_nan_as_the_cells_do(activation):
    # A NaN in one channel makes that channel's statistics NaN: the fused clip must not
    # turn them into 0 (a diverged network would go on training on zeros).
    x = np.random.default_rng(1).standard_normal((2, 3, 4, 4)).astype(np.float32)
    x[0, 1, 2, 2] = np.nan
    outputs = []
    for fused in (True, False):
        cells = nn.SequentialCell([nn.BatchNorm2d(3), activation()])
        cells.set_train()
        outputs.append((cells if fused else _one_by_one(cells))(ms.Tensor(x)).asnumpy())
    fused_out, cells_out = outputs
    assert np.isnan(cells_out[:, 1]).all() and np.isnan(fused_out[:, 1]).all()
    np.testing.assert_allclose(fused_out, cells_out, rtol=1e-5, atol=1e-6)
