"""`backward(..., on_ready=...)` reports each gradient once, final, as soon as backward has it."""

from __future__ import annotations

import numpy as np

import cadence as ms
from cadence import nn
from cadence.compute._autograd import backward, enable_grad


def test_each_gradient_is_reported_once_final_and_last_layer_first():
    ms.set_seed(0)
    net = nn.SequentialCell(
        nn.Dense(5, 4), nn.ReLU(), nn.Dense(4, 4), nn.ReLU(), nn.Dense(4, 2)
    )
    unused = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="unused")
    weights = [*net.trainable_params(), unused]
    x = ms.Tensor(np.random.default_rng(0).standard_normal((6, 5)).astype(np.float32))
    with enable_grad():
        loss = (
            net(x) * net(x)
        ).mean()  # each parameter used twice: final only after both uses
    seen: list[tuple[int, np.ndarray]] = []
    grads = backward(loss, weights, None, lambda i, g: seen.append((i, g.copy())))
    indices = [i for i, _ in seen]
    assert sorted(indices) == list(
        range(len(weights) - 1)
    )  # all but the unused one, once each
    for i, g in seen:
        np.testing.assert_array_equal(g, grads[i])
    # The last Dense's gradients come before the first Dense's.
    assert indices.index(4) < indices.index(0)
    assert indices.index(5) < indices.index(1)
    np.testing.assert_array_equal(grads[-1], np.zeros(3, np.float32))


def test_without_on_ready_gradients_are_unchanged():
    net = nn.Dense(3, 2)
    x = ms.Tensor(np.ones((2, 3), np.float32))
    with enable_grad():
        loss = net(x).sum()
    reported: dict[int, np.ndarray] = {}
    with enable_grad():
        loss2 = net(x).sum()
    plain = backward(loss, net.trainable_params())
    hooked = backward(
        loss2, net.trainable_params(), None, lambda i, g: reported.__setitem__(i, g)
    )
    for a, b in zip(plain, hooked, strict=True):
        np.testing.assert_array_equal(a, b)
    assert sorted(reported) == [0, 1]
