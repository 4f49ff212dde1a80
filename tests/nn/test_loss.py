import numpy as np
import pytest

import cadence as ms
import cadence.nn as nn


def logsoftmax(x):
    s = x - x.max(-1, keepdims=True)
    return s - np.log(np.exp(s).sum(-1, keepdims=True))


rng = np.random.default_rng(0)
LOGITS = rng.standard_normal((6, 4)).astype(np.float32)
LABELS = np.array([0, 3, 1, 2, 3, 0], np.int32)


def test_softmax_cross_entropy_sparse_and_dense():
    expected = -logsoftmax(LOGITS)[np.arange(6), LABELS]
    out = nn.SoftmaxCrossEntropyWithLogits(sparse=True)(
        ms.Tensor(LOGITS), ms.Tensor(LABELS)
    )
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5)
    onehot = np.eye(4, dtype=np.float32)[LABELS]
    mean = nn.SoftmaxCrossEntropyWithLogits(reduction="mean")(
        ms.Tensor(LOGITS), ms.Tensor(onehot)
    )
    assert mean.shape == ()
    assert float(mean) == pytest.approx(expected.mean(), rel=1e-5)
    with pytest.raises(ValueError, match="reduction"):
        nn.SoftmaxCrossEntropyWithLogits(reduction="avg")
    with pytest.raises(ValueError, match="labels"):
        nn.SoftmaxCrossEntropyWithLogits(sparse=True)(
            ms.Tensor(LOGITS), ms.Tensor(onehot)
        )


def test_cross_entropy_loss_variants():
    ls = logsoftmax(LOGITS.astype(np.float64))
    plain = nn.CrossEntropyLoss()(ms.Tensor(LOGITS), ms.Tensor(LABELS))
    assert float(plain) == pytest.approx(-ls[np.arange(6), LABELS].mean(), rel=1e-5)
    w = np.array([1.0, 2.0, 0.5, 1.5], np.float32)
    weighted = nn.CrossEntropyLoss(weight=ms.Tensor(w))(
        ms.Tensor(LOGITS), ms.Tensor(LABELS)
    )
    per = -ls[np.arange(6), LABELS] * w[LABELS]
    assert float(weighted) == pytest.approx(per.sum() / w[LABELS].sum(), rel=1e-5)
    ignored = LABELS.copy()
    ignored[0] = -100
    ign = nn.CrossEntropyLoss()(ms.Tensor(LOGITS), ms.Tensor(ignored))
    assert float(ign) == pytest.approx(
        -ls[np.arange(1, 6), LABELS[1:]].mean(), rel=1e-5
    )
    smooth = nn.CrossEntropyLoss(label_smoothing=0.1, reduction="sum")(
        ms.Tensor(LOGITS), ms.Tensor(LABELS)
    )
    target = np.eye(4)[LABELS] * 0.9 + 0.025
    assert float(smooth) == pytest.approx(-(target * ls).sum(), rel=1e-5)
    probs = nn.CrossEntropyLoss(reduction="none")(
        ms.Tensor(LOGITS), ms.Tensor(np.eye(4, dtype=np.float32)[LABELS])
    )
    np.testing.assert_allclose(probs.asnumpy(), -ls[np.arange(6), LABELS], rtol=1e-5)


def test_regression_losses():
    a = rng.standard_normal((3, 2)).astype(np.float32)
    b = rng.standard_normal((3, 2)).astype(np.float32)
    assert float(nn.MSELoss()(ms.Tensor(a), ms.Tensor(b))) == pytest.approx(
        ((a - b) ** 2).mean(), rel=1e-5
    )
    assert float(
        nn.L1Loss(reduction="sum")(ms.Tensor(a), ms.Tensor(b))
    ) == pytest.approx(np.abs(a - b).sum(), rel=1e-5)
    assert nn.MSELoss(reduction="none")(ms.Tensor(a), ms.Tensor(b)).shape == (3, 2)


def test_softmax_cross_entropy_accepts_the_old_is_grad_argument():
    logits = ms.Tensor(np.array([[1.0, 2.0, 0.5]], np.float32))
    labels = ms.Tensor(np.array([1], np.int32))
    old = nn.SoftmaxCrossEntropyWithLogits(is_grad=False, sparse=True, reduction="mean")
    new = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    assert old(logits, labels).asnumpy() == new(logits, labels).asnumpy()
    with pytest.raises(TypeError, match="is_grad"):
        nn.SoftmaxCrossEntropyWithLogits(is_grad="no")  # type: ignore[arg-type]
