"""The attention cells against real MindSpore 2.10: same checkpoints, same inputs, same outputs.

`tests/fixtures/mindspore/make_transformer_fixtures.py` wrote the checkpoints and
`transformer_outputs.npz` with MindSpore (eval mode, dropout 0); here cadence
builds the same cells, loads the checkpoints by MindSpore's parameter names
(strictly: every name must match) and recomputes.
"""

from pathlib import Path

import numpy as np
import pytest

import cadence as ms
from cadence import nn, ops

FIXTURES = Path(__file__).parent.parent / "fixtures" / "mindspore"
REF = np.load(FIXTURES / "transformer_outputs.npz")


def close(got, want):
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=2e-5)


def load(net, name):
    params = ms.load_checkpoint(str(FIXTURES / name))
    not_loaded, unused = ms.load_param_into_net(net, params, strict_load=True)
    assert not_loaded == [] and unused == []
    net.set_train(False)
    return net


def encoder():
    layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0)
    return load(
        nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm((16,))),
        "transformer_encoder.ckpt",
    )


def test_post_norm_encoder_matches_mindspore():
    net = encoder()
    x = ms.Tensor(REF["encoder_x"])
    close(net(x).asnumpy(), REF["encoder_plain"])


def test_post_norm_encoder_with_causal_and_padding_masks_matches_mindspore():
    net = encoder()
    y = net(
        ms.Tensor(REF["encoder_x"]),
        src_mask=ms.Tensor(REF["encoder_causal"]),
        src_key_padding_mask=ms.Tensor(REF["encoder_pad"]),
    )
    close(y.asnumpy(), REF["encoder_masked"])
    # The masks change the result: the comparison above is not the unmasked one again.
    assert not np.allclose(REF["encoder_masked"], REF["encoder_plain"], atol=1e-3)


def test_pre_norm_gelu_batch_first_layer_matches_mindspore():
    layer = nn.TransformerEncoderLayer(
        8, 2, 16, dropout=0.0, activation="gelu", batch_first=True, norm_first=True
    )
    load(layer, "transformer_prenorm.ckpt")
    close(layer(ms.Tensor(REF["prenorm_x"])).asnumpy(), REF["prenorm_y"])


def test_attention_with_own_key_widths_bias_kv_and_zero_key_matches_mindspore():
    mha = nn.MultiheadAttention(
        8, 2, kdim=6, vdim=5, add_bias_kv=True, add_zero_attn=True
    )
    load(mha, "multihead_attention.ckpt")
    out, weights = mha(
        ms.Tensor(REF["mha_q"]),
        ms.Tensor(REF["mha_k"]),
        ms.Tensor(REF["mha_v"]),
        attn_mask=ms.Tensor(REF["mha_mask"]),
        average_attn_weights=False,
    )
    close(out.asnumpy(), REF["mha_out"])
    close(weights.asnumpy(), REF["mha_weights"])


ACTIVATIONS = {
    "gelu_tanh": lambda: nn.GELU(),
    "gelu_erf": lambda: nn.GELU(approximate=False),
    "silu": lambda: nn.SiLU(),
    "leaky_relu": lambda: nn.LeakyReLU(0.3),
    "prelu": lambda: nn.PReLU(4, ms.Tensor(REF["prelu_w"])),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_cells_match_mindspore(name):
    y = ACTIVATIONS[name]()(ms.Tensor(REF["act_x"]))
    close(y.asnumpy(), REF[name])


def test_group_norm_and_two_axis_layer_norm_match_mindspore():
    gn = nn.GroupNorm(2, 4)
    gn.gamma.set_data(ms.Tensor(np.array([1.0, 2.0, 0.5, -1.0], np.float32)))
    gn.beta.set_data(ms.Tensor(np.array([0.0, 0.1, -0.2, 0.3], np.float32)))
    x = ms.Tensor(REF["act_x"])
    close(gn(x).asnumpy(), REF["group_norm"])
    ln = nn.LayerNorm((4, 3), begin_norm_axis=1, begin_params_axis=1)
    close(ln(x).asnumpy(), REF["layer_norm_2d"])
    assert [t.shape[0] for t in ops.split(x, [1, 1], 0)] == list(REF["split_sizes"])
