"""The model zoo's sentiment LSTM: loads MindSpore's checkpoint, trains end to end, round-trips a .ckpt."""

import os
from pathlib import Path

import numpy as np
import pytest

import cadence as ms
from cadence import nn
from cadence.models import SentimentNet

FIXTURES = Path(__file__).parents[1] / "fixtures/mindspore"


def test_mindspore_checkpoint_loads_with_identical_outputs():
    recorded = np.load(FIXTURES / "sentiment_lstm.npz")
    net = SentimentNet(
        20, 6, 5, 2, True, 3
    )  # the sizes `mindspore_recurrent_cases.py` saved
    params = ms.load_checkpoint(str(FIXTURES / "sentiment_lstm.ckpt"))
    assert sorted(params) == sorted(p.name for p in net.get_parameters())
    not_loaded, _ = ms.load_param_into_net(net, params, strict_load=True)
    assert not_loaded == []
    logits = net(ms.Tensor(recorded["tokens"])).asnumpy()
    np.testing.assert_allclose(logits, recorded["logits"], rtol=1e-5, atol=1e-6)


def token_batches(batches, size=16, steps=10, vocab=24, seed=0):
    """Class 1 when a sequence holds one of the tokens 1-3, else class 0; other tokens are noise."""
    rng = np.random.default_rng(seed)
    data = []
    for _ in range(batches):
        tokens = rng.integers(4, vocab, (size, steps)).astype(np.int32)
        labels = rng.integers(0, 2, size).astype(np.int32)
        for row in np.flatnonzero(labels):
            tokens[row, rng.integers(0, steps, 2)] = rng.integers(1, 4, 2)
        data.append((tokens, labels))
    return data


def test_trains_with_the_standard_callbacks_and_round_trips_a_checkpoint(
    tmp_path, capsys
):
    ms.set_seed(1)
    net = SentimentNet(24, 8, 8, 1, True, 2)
    model = ms.Model(
        net,
        nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
        nn.Adam(net.trainable_params(), 0.02),
    )
    losses = []
    model.bus.subscribe(ms.TrainStepEnd, lambda e: losses.append(e.loss))
    config = ms.CheckpointConfig(save_checkpoint_steps=6, keep_checkpoint_max=1)
    data = token_batches(6)
    callbacks = [
        ms.LossMonitor(6),
        ms.TimeMonitor(),
        ms.ModelCheckpoint("lstm", str(tmp_path), config),
    ]
    model.train(8, data, callbacks=callbacks)
    first, last = np.mean(losses[:6]), np.mean(losses[-6:])
    assert last < 0.4 * first, (first, last)
    printed = capsys.readouterr().out
    assert printed.count("loss is") == 8 and printed.count("per step time") == 8

    (saved,) = os.listdir(tmp_path)
    fresh = SentimentNet(24, 8, 8, 1, True, 2)
    ms.load_param_into_net(
        fresh, ms.load_checkpoint(str(tmp_path / saved)), strict_load=True
    )
    net.set_train(False)
    probe = ms.Tensor(token_batches(1, seed=9)[0][0])
    np.testing.assert_array_equal(fresh(probe).asnumpy(), net(probe).asnumpy())


def test_a_given_embedding_table_is_frozen_as_in_the_model_zoo():
    table = np.random.default_rng(0).normal(size=(10, 4)).astype(np.float32)
    net = SentimentNet(10, 4, 3, 1, False, 2, weight=table)
    assert not net.embedding.embedding_table.requires_grad
    assert "embedding.embedding_table" not in [p.name for p in net.trainable_params()]
    np.testing.assert_array_equal(net.embedding.embedding_table.asnumpy(), table)
    assert net(ms.Tensor(np.zeros((2, 5), np.int32))).shape == (2, 2)


@pytest.mark.parametrize(
    ("sizes", "message"),
    [
        ((0, True, 2), "hidden_size"),
        ((3, "yes", 2), "bidirectional"),
        ((3, True, 0), "num_classes"),
    ],
)
def test_bad_sizes_raise_naming_the_argument(sizes, message):
    hiddens, bidirectional, classes = sizes
    with pytest.raises((TypeError, ValueError), match=message):
        SentimentNet(20, 6, hiddens, 1, bidirectional, classes)


def test_a_table_of_the_wrong_shape_or_a_bad_batch_size_raises():
    with pytest.raises(ValueError, match=r"\(3, 4\)"):
        SentimentNet(5, 4, 3, 1, False, 2, weight=np.zeros((3, 4), np.float32))
    with pytest.raises(ValueError, match="batch_size"):
        SentimentNet(5, 4, 3, 1, False, 2, batch_size=0)
