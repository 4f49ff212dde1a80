"""The CUDA recurrent and embedding kernels against `reference` (float32 and float64), on small shapes."""

import numpy as np
import pytest

from cadence.kernels import cpu_kernels, cuda_kernels, reference as ref
from cadence.kernels.cuda import _device, _recurrent as cr
from tests.helpers.tolerance import Tolerance

pytestmark = pytest.mark.cudasim
k = cuda_kernels()
TOL: dict[type, Tolerance] = {
    np.float32: {"rtol": 2e-4, "atol": 2e-5},
    np.float64: {"rtol": 1e-9, "atol": 1e-11},
}


def same(got, want, dtype):
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(k.to_host(g), w, **TOL[dtype])


def direction_cases(mode, gates, reverse, dtype, steps, rows, units, lengths):
    """The forward and backward calls of one layer direction, as argument tuples."""
    rng = np.random.default_rng(mode)
    xw, w_hh, b_hh = (
        rng.normal(size=s).astype(dtype)
        for s in (
            (steps, rows, gates * units),
            (gates * units, units),
            (gates * units,),
        )
    )
    h0, c0, dh_n, dc_n = (
        rng.normal(size=(rows, units)).astype(dtype) for _ in range(4)
    )
    dy = rng.normal(size=(steps, rows, units)).astype(dtype)
    forward = (mode, xw, h0, c0, w_hh, b_hh, lengths, reverse)
    saved = ref.recurrent_forward(*forward)[1:]
    return forward, (mode, dy, dh_n, dc_n, w_hh, *saved, lengths, reverse)


MODES = [(0, 1), (1, 1), (2, 4), (3, 3)]


class CountedLaunches:
    """Stands in for a kernel and counts its launches (`kernel[grid](...)`)."""

    def __init__(self, kernel):
        self.kernel, self.count = kernel, 0

    def __getitem__(self, grid):
        self.count += 1
        return self.kernel[grid]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize(("mode", "gates"), MODES)
def test_one_layer_direction_forward_and_backward(mode, gates, reverse, dtype):
    lengths = np.array([3, 1])
    forward, backward = direction_cases(mode, gates, reverse, dtype, 3, 2, 3, lengths)
    same(k.recurrent_forward(*forward), ref.recurrent_forward(*forward), dtype)
    same(k.recurrent_backward(*backward), ref.recurrent_backward(*backward), dtype)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize(("mode", "gates"), MODES)
def test_more_units_than_threads_and_rows_than_blocks_in_one_launch_each_way(
    mode, gates, reverse, monkeypatch
):
    # 10 hidden units over a block of THREADS (8 here), 3 batch rows over MAX_BLOCKS (2) blocks.
    assert _device.THREADS < 10 and _device.MAX_BLOCKS < 3
    launches = {
        way: CountedLaunches(getattr(cr, f"_{way}_loop"))
        for way in ("forward", "backward")
    }
    for way, counted in launches.items():
        monkeypatch.setattr(cr, f"_{way}_loop", counted)
    lengths = np.array([4, 2, 3])
    forward, backward = direction_cases(
        mode, gates, reverse, np.float64, 4, 3, 10, lengths
    )
    cpu = cpu_kernels()
    for name, args in (
        ("recurrent_forward", forward),
        ("recurrent_backward", backward),
    ):
        got = getattr(k, name)(*args)
        same(got, getattr(ref, name)(*args), np.float64)
        same(got, getattr(cpu, name)(*args), np.float64)
    # The time loop runs inside each: one launch per call, whatever the number of steps.
    assert {way: c.count for way, c in launches.items()} == {
        "forward": 1,
        "backward": 1,
    }


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_embedding_lookup_and_scatter_add(dtype):
    table = np.arange(12, dtype=dtype).reshape(4, 3)
    ids = np.array([3, 0, 3, 1])
    same([k.embedding_forward(table, ids)], [ref.embedding_forward(table, ids)], dtype)
    dy = np.ones((4, 3), dtype) * np.arange(1, 5, dtype=dtype)[:, None]
    same(
        [k.embedding_backward(dy, ids, 5)], [ref.embedding_backward(dy, ids, 5)], dtype
    )


def sentiment_steps(target, steps=2):
    import cadence as ms
    from cadence import nn
    from cadence.models import SentimentNet

    ms.set_context(device_target=target)
    try:
        ms.set_seed(0)
        net = SentimentNet(12, 4, 3, 2, True, 2)
        loss_net = nn.WithLossCell(
            net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        )
        step = nn.TrainOneStepCell(
            loss_net, nn.Momentum(net.trainable_params(), 0.1, 0.9)
        )
        tokens = ms.Tensor(
            np.random.default_rng(2).integers(0, 12, (3, 5)).astype(np.int32)
        )
        labels = ms.Tensor(np.array([0, 1, 1], np.int32))
        losses = [float(step(tokens, labels).asnumpy()) for _ in range(steps)]
        return losses, [p.asnumpy() for p in net.trainable_params()]
    finally:
        ms.set_context(device_target="CPU")


def test_sentiment_lstm_steps_on_the_gpu_target_match_the_cpu():
    cpu_losses, cpu_params = sentiment_steps("CPU")
    gpu_losses, gpu_params = sentiment_steps("GPU")
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-4, atol=1e-5)
    for g, c in zip(gpu_params, cpu_params, strict=True):
        np.testing.assert_allclose(g, c, rtol=1e-4, atol=1e-5)
