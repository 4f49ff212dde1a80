"""The Transformer encoder classifier end to end.

It trains through `Model.train`, round-trips `.ckpt`, and loads a checkpoint
MindSpore saved of the same network with the same outputs.
"""

from pathlib import Path

import numpy as np
import pytest

import cadence as ms
from cadence import Model, nn
from cadence.callbacks import (
    CheckpointConfig,
    History,
    LossMonitor,
    ModelCheckpoint,
    TimeMonitor,
)
from cadence.dataset import NumpySlicesDataset
from cadence.models import TransformerClassifier

FIXTURES = Path(__file__).parent.parent / "fixtures" / "mindspore"
VOCAB, CLASSES, SEQ = 24, 3, 8


def token_data(n, seed=0):
    """Random filler ids >= CLASSES with the class's own id (0, 1 or 2) at two random places."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, CLASSES, n).astype(np.int32)
    tokens = rng.integers(CLASSES, VOCAB, (n, SEQ)).astype(np.int32)
    for i, label in enumerate(labels):
        tokens[i, rng.choice(SEQ, 2, replace=False)] = label
    return tokens, labels


def small_net():
    return TransformerClassifier(
        VOCAB,
        CLASSES,
        max_len=SEQ,
        d_model=16,
        nhead=2,
        num_layers=1,
        dim_feedforward=32,
        dropout=0.0,
    )


def mean_loss(net, tokens, labels):
    net.set_train(False)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return float(loss(net(ms.Tensor(tokens)), ms.Tensor(labels)).asnumpy())


def test_trains_with_the_standard_callbacks_and_round_trips_through_ckpt(
    tmp_path, capsys
):
    ms.set_seed(1)
    net = small_net()
    tokens, labels = token_data(96)
    before = mean_loss(net, tokens, labels)
    data = NumpySlicesDataset({"tokens": tokens, "label": labels}, shuffle=False).batch(
        16
    )
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(net, loss_fn, nn.Adam(net.trainable_params(), learning_rate=0.01))
    ckpt = ModelCheckpoint(
        prefix="tfm",
        directory=str(tmp_path),
        config=CheckpointConfig(save_checkpoint_steps=6),
    )
    history = History()
    model.train(8, data, callbacks=[LossMonitor(6), TimeMonitor(), ckpt, history])
    after = mean_loss(net, tokens, labels)
    assert before > 0.9  # about log(3) before training
    assert after < 0.25 * before, (before, after, history.history)
    assert "loss" in capsys.readouterr().out  # LossMonitor printed
    logits = net(ms.Tensor(tokens)).asnumpy()
    assert (logits.argmax(1) == labels).mean() > 0.9

    restored = small_net()
    ms.load_checkpoint(ckpt.latest_ckpt_file_name, restored, strict_load=True)
    restored.set_train(False)
    np.testing.assert_array_equal(restored(ms.Tensor(tokens)).asnumpy(), logits)


def test_loads_the_checkpoint_mindspore_saved_with_the_same_outputs():
    ref = np.load(FIXTURES / "transformer_outputs.npz")
    net = TransformerClassifier(
        50, 3, max_len=12, d_model=16, nhead=2, num_layers=2, dim_feedforward=32
    )
    not_loaded, unused = ms.load_param_into_net(
        net,
        ms.load_checkpoint(str(FIXTURES / "transformer_classifier.ckpt")),
        strict_load=True,
    )
    assert not_loaded == [] and unused == []
    net.set_train(False)
    logits = net(ms.Tensor(ref["classifier_tokens"])).asnumpy()
    np.testing.assert_allclose(logits, ref["classifier_logits"], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    ("tokens", "match"),
    [
        (np.zeros((2, 9), np.int32), "0 < S <= max_len=8, but got shape \\(2, 9\\)"),
        (np.zeros((8,), np.int32), "shape \\(N, S\\).*but got shape \\(8,\\)"),
    ],
)
def test_rejects_inputs_of_the_wrong_shape(tokens, match):
    with pytest.raises(ValueError, match=match):
        small_net()(ms.Tensor(tokens))


def test_rejects_bad_sizes():
    with pytest.raises(ValueError, match="'num_classes' must be an int > 0, but got 0"):
        TransformerClassifier(10, 0)
