"""The attention-era cells: gradients against finite differences, argument checks, modes.

Gradients are checked in float64 on small cells: every parameter and the input
get d(sum(output * probe)) / d(value) from the tape and from central differences.
"""

import numpy as np
import pytest

import cadence as ms
from cadence import nn, ops


def _numeric(loss, param, h=1e-6):
    """Central differences of `loss()` wrt every element of `param` (a Parameter or Tensor, in place)."""
    data = param._data
    grad = np.zeros_like(data)
    for i in np.ndindex(data.shape):
        old = data[i]
        data[i] = old + h
        up = loss()
        data[i] = old - h
        down = loss()
        data[i] = old
        grad[i] = (up - down) / (2 * h)
    return grad


def _check_gradients(net, x, *extra):
    net.set_train(False)  # no dropout: the function is deterministic
    out = net(x, *extra)
    out = out[0] if isinstance(out, tuple) else out
    probe = np.random.default_rng(3).normal(size=out.shape)

    def loss_of(*args):
        y = net(*args, *extra)
        y = y[0] if isinstance(y, tuple) else y
        return (y * ms.Tensor(probe)).sum()

    params = net.trainable_params()
    grads = ms.grad(loss_of, grad_position=0, weights=params)(x)
    dx, dparams = grads

    def scalar():
        return float(loss_of(x).asnumpy())

    np.testing.assert_allclose(dx.asnumpy(), _numeric(scalar, x), rtol=1e-5, atol=1e-7)
    for p, g in zip(params, dparams, strict=True):
        np.testing.assert_allclose(
            g.asnumpy(), _numeric(scalar, p), rtol=1e-5, atol=1e-7, err_msg=p.name
        )


def _x(shape, seed=0):
    return ms.Tensor(np.random.default_rng(seed).normal(size=shape))


F64 = ms.float64


class _PReLU64(nn.Cell):
    """ops.prelu with float64 slopes (nn.PReLU's are float32, too coarse for finite differences)."""

    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.array([0.1, -0.3, 0.7])))

    def construct(self, x):
        return ops.prelu(x, self.w)


CELLS = {
    "layer_norm": lambda: (nn.LayerNorm((4,), gamma_init="normal", beta_init="normal", dtype=F64), (3, 4)),
    "layer_norm two axes": lambda: (nn.LayerNorm((3, 4), 1, 1, "normal", "normal", dtype=F64), (2, 3, 4)),
    "group_norm": lambda: (nn.GroupNorm(2, 4, gamma_init="normal", beta_init="normal", dtype=F64), (2, 4, 3)),
    "prelu": lambda: (_PReLU64(), (2, 3, 2)),
    "attention (self, packed)": lambda: (nn.MultiheadAttention(4, 2, dtype=F64), (3, 2, 4)),
    "encoder layer (post-norm, relu)": lambda: (nn.TransformerEncoderLayer(4, 2, 6, 0.0, dtype=F64), (3, 2, 4)),
    "encoder layer (pre-norm, gelu, batch-first)": lambda: (
        nn.TransformerEncoderLayer(4, 2, 6, 0.0, "gelu", batch_first=True, norm_first=True, dtype=F64),
        (2, 3, 4),
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CELLS))
def test_cell_gradients_match_finite_differences(name):
    net, shape = CELLS[name]()
    x = _x(shape)
    if name.startswith("attention"):
        mha = net
        net = _SelfAttention(mha)
    _check_gradients(net, x)


class _SelfAttention(nn.Cell):
    def __init__(self, mha):
        super().__init__()
        self.mha = mha

    def construct(self, x):
        return self.mha(x, x, x)[0]


def test_attention_with_separate_key_value_gradients_match_finite_differences():
    mha = nn.MultiheadAttention(4, 2, kdim=3, vdim=5, add_bias_kv=True, dtype=F64)
    k, v = _x((2, 2, 3), 1), _x((2, 2, 5), 2)
    pad = ms.Tensor(np.array([[False, True], [False, False]]))

    class Cross(nn.Cell):
        def __init__(self):
            super().__init__()
            self.mha = mha

        def construct(self, q):
            return self.mha(q, k, v, key_padding_mask=pad)[0]

    _check_gradients(Cross(), _x((3, 2, 4)))


def test_padding_mask_hides_the_padded_keys():
    mha = nn.MultiheadAttention(4, 2, batch_first=True)
    x = _x((1, 3, 4)).astype(ms.float32)
    pad = ms.Tensor(np.array([[False, False, True]]))
    _, w = mha(x, x, x, key_padding_mask=pad)
    assert w.shape == (1, 3, 3)
    np.testing.assert_array_equal(w.asnumpy()[0, :, 2], 0.0)
    np.testing.assert_allclose(w.asnumpy().sum(-1), 1.0, rtol=1e-6)
    # Changing the padded position's values changes nothing.
    x2 = x.asnumpy().copy()
    x2[0, 2] += 10
    y1 = mha(x, x, x, key_padding_mask=pad)[0].asnumpy()[:, :2]
    x2t = ms.Tensor(x2)
    q = x
    y2 = mha(q, x2t, x2t, key_padding_mask=pad)[0].asnumpy()[:, :2]
    np.testing.assert_allclose(y1, y2, rtol=1e-5, atol=1e-6)


def test_attention_weights_per_head_unbatched_and_need_weights_false():
    mha = nn.MultiheadAttention(6, 3)
    q = _x((4, 6)).astype(ms.float32)  # unbatched (L, E)
    out, w = mha(q, q, q, average_attn_weights=False)
    assert out.shape == (4, 6) and w.shape == (3, 4, 4)
    only = mha(q, q, q, need_weights=False)
    assert isinstance(only, tuple) and len(only) == 1
    np.testing.assert_allclose(only[0].asnumpy(), out.asnumpy(), rtol=1e-6)


def test_dropout_acts_only_while_training():
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    x = _x((5, 2, 8)).astype(ms.float32)
    layer.set_train(False)
    a, b = layer(x).asnumpy(), layer(x).asnumpy()
    np.testing.assert_array_equal(a, b)
    layer.set_train(True)
    assert not np.allclose(layer(x).asnumpy(), a)


def test_encoder_layers_are_independent_copies_of_the_configuration():
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    enc = nn.TransformerEncoder(layer, 3)
    assert len(enc.layers) == 3
    w = [enc.layers[i].dense1.weight.asnumpy() for i in range(3)]  # type: ignore[attr-defined]
    assert not np.array_equal(w[0], w[1]) and not np.array_equal(w[1], w[2])


@pytest.mark.parametrize(
    ("build", "error", "match"),
    [
        (lambda: nn.MultiheadAttention(10, 3), ValueError, "'embed_dim' must be divisible by 'num_heads' \\(3\\), but got 10"),
        (lambda: nn.MultiheadAttention(8, 2, dropout=1.5), ValueError, "'dropout' must be in \\[0.0, 1.0\\], but got 1.5"),
        (lambda: nn.GroupNorm(3, 4), ValueError, "'num_channels' must be divisible by 'num_groups' \\(3\\), but got 4"),
        (lambda: nn.LayerNorm(4),  # type: ignore[arg-type]
         TypeError, "'normalized_shape' must be a tuple or list of positive ints, but got 4"),
        (lambda: nn.LayerNorm((4,), epsilon=0), ValueError, "'epsilon' must be in \\(0.0, inf\\), but got 0"),
        (lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh"), ValueError, "'activation' must be 'relu' or 'gelu', but got 'tanh'"),
        (lambda: nn.TransformerEncoderLayer(8, 2, activation=nn.Tanh()), ValueError, "must be nn.ReLU or nn.GELU"),
        (lambda: nn.TransformerEncoder(nn.Dense(2, 2), 2),  # type: ignore[arg-type]
         TypeError, "'encoder_layer' must be a TransformerEncoderLayer, but got Dense"),
        (lambda: nn.PReLU(3, np.ones(2)), ValueError, "'w' must be a number or 3 values, but got shape \\(2,\\)"),
        (lambda: nn.GELU(approximate="tanh"),  # type: ignore[arg-type]
         TypeError, "'approximate' must be a bool"),
        (lambda: nn.LeakyReLU("x"),  # type: ignore[arg-type]
         TypeError, "'alpha' must be a number"),
    ],
)  # fmt: skip
def test_constructors_reject_bad_arguments(build, error, match):
    with pytest.raises(error, match=match):
        build()


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: nn.LayerNorm((4,))(_x((2, 3))), ValueError, "must have shape normalized_shape=\\(4,\\).*got input shape \\(2, 3\\)"),
        (lambda: nn.GroupNorm(2, 4)(_x((2, 3, 5))), ValueError, "must be \\(N, 4, ...\\), but got shape \\(2, 3, 5\\)"),
        (lambda: nn.MultiheadAttention(4, 2)(_x((3, 2, 4)), _x((3, 2, 4)), _x((3, 2, 5))), ValueError, "last axes of query, key and value must be \\(4, 4, 4\\)"),
        (lambda: nn.MultiheadAttention(4, 2)(_x((3, 2, 4)), _x((3, 2, 4)), _x((3, 2, 4)), attn_mask=ms.Tensor(np.zeros((2, 2)))), ValueError, "'attn_mask' must have shape \\(3, 3\\), but got \\(2, 2\\)"),
        (lambda: nn.MultiheadAttention(4, 2)(_x((3, 2, 4)), _x((3, 2, 4)), _x((3, 2, 4)), key_padding_mask=ms.Tensor(np.zeros((2, 3), np.int32))), ValueError, "'key_padding_mask' must be a bool or float tensor, but got int32"),
        (lambda: ops.bmm(_x((2, 3)), _x((3, 2))), ValueError, "both inputs must have 3 or more dimensions"),
        (lambda: ops.bmm(_x((2, 3, 4)), _x((3, 4, 2))), ValueError, "batch dimensions of shapes \\(2, 3, 4\\) and \\(3, 4, 2\\) cannot be broadcast"),
        (lambda: ops.split(_x((4,)), [1, 2]), ValueError, "must be >= 0 and add up to 4 \\(axis 0\\), but got \\[1, 2\\]"),
        (lambda: ops.split(_x((4,)), 0), ValueError, "'split_size_or_sections' must be an int > 0, but got 0"),
        (lambda: ops.masked_fill(_x((2,)), _x((2,)), 1.0), TypeError, "'mask' must be a bool tensor, but got Float64"),
        (lambda: ops.prelu(_x((2, 3)), _x((2,))), ValueError, "'weight' must be 1-D of size 1 or 3"),
        (lambda: ops.gelu(_x((2,)), "fast"), ValueError, "'approximate' must be one of 'none', 'tanh', but got 'fast'"),
    ],
)  # fmt: skip
def test_calls_reject_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_bmm_broadcasts_batch_axes_like_numpy():
    a, b = _x((2, 1, 3, 4)), _x((1, 5, 4, 2), 1)
    got = ops.bmm(a, b).asnumpy()
    np.testing.assert_allclose(got, a.asnumpy() @ b.asnumpy(), rtol=1e-12)
    np.testing.assert_allclose(
        (a @ b).asnumpy(), got, rtol=1e-12
    )  # matmul on stacks: the same kernel
    da, db = ms.grad(lambda p, q: ops.bmm(p, q).sum(), grad_position=(0, 1))(a, b)
    ones = np.ones(got.shape)
    np.testing.assert_allclose(
        da.asnumpy(), (ones @ np.swapaxes(b.asnumpy(), -1, -2)).sum(1, keepdims=True)
    )
    np.testing.assert_allclose(
        db.asnumpy(), (np.swapaxes(a.asnumpy(), -1, -2) @ ones).sum(0, keepdims=True)
    )


def test_get_activation_knows_the_new_names():
    for name, cls in {
        "gelu": nn.GELU,
        "silu": nn.SiLU,
        "leakyrelu": nn.LeakyReLU,
        "prelu": nn.PReLU,
    }.items():
        assert isinstance(nn.get_activation(name), cls)
