import numpy as np
import pytest

import cadence as ms
import cadence.nn as nn

LOGITS = np.array(
    [[0.9, 0.1, 0.0], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4], [0.6, 0.3, 0.1]], np.float32
)
LABELS = np.array([0, 1, 1, 2], np.int32)


def test_accuracy_with_indices_and_one_hot():
    acc = nn.Accuracy()
    acc.update(ms.Tensor(LOGITS), ms.Tensor(LABELS))
    assert acc.eval() == 0.5
    acc.update(LOGITS, np.eye(3)[LABELS])
    assert acc.eval() == 0.5
    acc.clear()
    with pytest.raises(RuntimeError, match="number of samples is 0"):
        acc.eval()
    with pytest.raises(ValueError, match="needs 2 inputs"):
        acc.update(LOGITS)


def test_loss_metric_averages_batch_means():
    loss = nn.Loss()
    loss.update(ms.Tensor(1.0))
    loss.update(ms.Tensor([2.0, 4.0]))
    assert loss.eval() == pytest.approx(2.0)
    with pytest.raises(ValueError, match="1 input"):
        loss.update(1.0, 2.0)


def test_precision_recall_f1():
    p, r, f = nn.Precision(), nn.Recall(), nn.F1()
    for m in (p, r, f):
        m.update(ms.Tensor(LOGITS), ms.Tensor(LABELS))
    np.testing.assert_allclose(p.eval(), [0.5, 1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(r.eval(), [1.0, 0.5, 0.0], atol=1e-12)
    np.testing.assert_allclose(f.eval(), [2 / 3, 2 / 3, 0.0], atol=1e-12)
    assert p.eval(average=True) == pytest.approx(0.5)


def test_top_k():
    top2 = nn.TopKCategoricalAccuracy(2)
    top2.update(ms.Tensor(LOGITS), ms.Tensor(LABELS))
    assert top2.eval() == 0.5
    with pytest.raises(ValueError, match="at least 1"):
        nn.TopKCategoricalAccuracy(0)


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("accuracy", nn.Accuracy),
        ("acc", nn.Accuracy),
        ("loss", nn.Loss),
        ("precision", nn.Precision),
        ("recall", nn.Recall),
        ("f1", nn.F1),
        ("top_1_accuracy", nn.Top1CategoricalAccuracy),
        ("top_5_accuracy", nn.Top5CategoricalAccuracy),
    ],
)
def test_get_metric_fn(name, cls):
    assert type(nn.get_metric_fn(name)) is cls


def test_get_metric_fn_unknown():
    with pytest.raises(
        KeyError, match=r"'name' must be one of .*'mae'.*but got 'nope'"
    ):
        nn.get_metric_fn("nope")
