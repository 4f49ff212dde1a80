"""The CUDA recurrent and embedding kernels against `reference` (float32 and float64), on small shapes."""

import numpy as np
import pytest

from cadence.kernels import cuda_kernels, reference as ref

pytestmark = pytest.mark.cudasim
k = cuda_kernels()
TOL = {
    np.float32: {"rtol": 2e-4, "atol": 2e-5},
    np.float64: {"rtol": 1e-9, "atol": 1e-11},
}


def same(got, want, dtype):
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(k.to_host(g), w, **TOL[dtype])  # type: ignore[call-overload]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize(("mode", "gates"), [(0, 1), (1, 1), (2, 4), (3, 3)])
def test_one_layer_direction_forward_and_backward(mode, gates, reverse, dtype):
    rng = np.random.default_rng(mode)
    steps, rows, units = 3, 2, 3
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
    lengths = np.array([3, 1])
    want = ref.recurrent_forward(mode, xw, h0, c0, w_hh, b_hh, lengths, reverse)
    same(
        k.recurrent_forward(mode, xw, h0, c0, w_hh, b_hh, lengths, reverse), want, dtype
    )
    grads = (mode, dy, dh_n, dc_n, w_hh, *want[1:], lengths, reverse)
    same(k.recurrent_backward(*grads), ref.recurrent_backward(*grads), dtype)


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
