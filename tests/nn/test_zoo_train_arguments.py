"""Bad arguments to the issue-23 losses and optimizers raise MindSpore's exception class with a message naming them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cadence as ms
from cadence import Tensor, nn, ops


def _params():
    return nn.Dense(2, 2).trainable_params()


_X = Tensor(np.zeros((2, 3), np.float32))
_ONE: Any = 1
_A_LIST: Any = [0.5, 1.2]
_THREE: Any = (0.5, 1.2, 2.0)
CASES = {
    "AdamWeightDecay beta1 out of range": (
        lambda: nn.AdamWeightDecay(_params(), beta1=1.0),
        ValueError,
        r"'beta1' must be in \(0.0, 1.0\)",
    ),
    "AdamWeightDecay eps an int": (
        lambda: nn.AdamWeightDecay(_params(), eps=1),
        TypeError,
        "'eps' must be of type 'float'",
    ),
    "Lamb without a learning rate": (
        lambda: nn.Lamb(_params()),  # type: ignore[call-arg]
        TypeError,
        "learning_rate",
    ),
    "Lamb negative weight decay": (
        lambda: nn.Lamb(_params(), 0.1, weight_decay=-1.0),
        ValueError,
        "weight_decay",
    ),
    "RMSProp decay negative": (
        lambda: nn.RMSProp(_params(), decay=-0.1),
        ValueError,
        "'decay' must be in",
    ),
    "RMSProp epsilon zero": (
        lambda: nn.RMSProp(_params(), epsilon=0.0),
        ValueError,
        "'epsilon' must be in",
    ),
    "RMSProp centered not a bool": (
        lambda: nn.RMSProp(_params(), centered=1),  # type: ignore[arg-type]
        TypeError,
        "'centered' must be a bool",
    ),
    "Adagrad accum an int": (
        lambda: nn.Adagrad(_params(), accum=1),
        TypeError,
        "'accum' must be of type 'float'",
    ),
    "Adagrad bad learning rate": (
        lambda: nn.Adagrad(_params(), learning_rate="x"),
        TypeError,
        "learning_rate",
    ),
    "Adadelta rho above 1": (lambda: nn.Adadelta(_params(), rho=1.5), ValueError, "'rho' must be in"),
    "Adadelta epsilon an int": (lambda: nn.Adadelta(_params(), epsilon=0), TypeError, "'epsilon' must be of type 'float'"),
    "ProximalAdagrad negative l1": (lambda: nn.ProximalAdagrad(_params(), l1=-0.1), ValueError, "'l1' must be in"),
    "ProximalAdagrad use_locking": (lambda: nn.ProximalAdagrad(_params(), use_locking=_ONE), TypeError, "'use_locking' must be a bool"),
    "Rprop etas a list": (lambda: nn.Rprop(_params(), etas=_A_LIST), TypeError, "'etas' must be of type 'tuple'"),
    "Rprop eta_plus at most 1": (lambda: nn.Rprop(_params(), etas=(0.5, 1.0)), ValueError, r"eta_plus > 1\), but got \(0.5, 1.0\)"),
    "Rprop step sizes reversed": (lambda: nn.Rprop(_params(), step_sizes=(1.0, 0.1)), ValueError, "minimum <= maximum, but got"),
    "Rprop three etas": (lambda: nn.Rprop(_params(), etas=_THREE), ValueError, "'etas' must be a tuple of 2 floats"),
    "ASGD t0 an int": (lambda: nn.ASGD(_params(), t0=10), TypeError, "'t0' must be of type 'float'"),
    "ASGD negative weight decay": (lambda: nn.ASGD(_params(), weight_decay=-1.0), ValueError, "weight_decay"),
    "FTRL int learning rate": (lambda: nn.FTRL(_params(), learning_rate=1), TypeError, "'learning_rate' must be of type 'float'"),
    "FTRL group lr": (lambda: nn.FTRL([{"params": _params(), "lr": 0.1}]), ValueError, "must not set 'lr'"),
    "FTRL positive lr_power": (lambda: nn.FTRL(_params(), lr_power=0.5), ValueError, "'lr_power' must be in"),
    "Adam unknown keyword": (
        lambda: nn.Adam(_params(), use_fast=True),
        KeyError,
        "use_lazy",
    ),
    "Adam amsgrad with use_lazy": (
        lambda: nn.Adam(_params(), use_amsgrad=True, use_lazy=True),
        ValueError,
        "use_amsgrad",
    ),
    "Adam use_offload not a bool": (
        lambda: nn.Adam(_params(), use_offload=1),
        TypeError,
        "'use_offload' must be a bool",
    ),
    "BCEWithLogitsLoss weight not a Tensor": (
        lambda: nn.BCEWithLogitsLoss(weight=[1.0]),
        TypeError,
        "'weight'",
    ),
    "NLLLoss bad reduction": (
        lambda: nn.NLLLoss(reduction="avg"),
        ValueError,
        "'reduction' must be one of",
    ),
    "NLLLoss ignore_index a float": (
        lambda: nn.NLLLoss(ignore_index=1.5),  # type: ignore[arg-type]
        TypeError,
        "'ignore_index'",
    ),
    "SmoothL1Loss beta zero": (
        lambda: nn.SmoothL1Loss(beta=0.0),
        ValueError,
        "'beta' must be in",
    ),
    "cross_entropy label out of range": (
        lambda: ops.cross_entropy(_X, Tensor(np.array([0, 3], np.int32))),
        ValueError,
        r"must be in \[0, 3\)",
    ),
    "cross_entropy smoothing above 1": (
        lambda: ops.cross_entropy(
            _X, Tensor(np.array([0, 1], np.int32)), label_smoothing=1.5
        ),
        ValueError,
        "'label_smoothing' must be in",
    ),
    "cross_entropy probabilities of another shape": (
        lambda: ops.cross_entropy(_X, Tensor(np.zeros((2, 2), np.float32))),
        ValueError,
        "probability 'target'",
    ),
    "nll_loss weight of the wrong length": (
        lambda: ops.nll_loss(
            _X, Tensor(np.array([0, 1], np.int32)), Tensor(np.ones(2, np.float32))
        ),
        ValueError,
        "'weight' must have shape",
    ),
    "kl_div shapes differ": (
        lambda: ops.kl_div(_X, Tensor(np.zeros(3, np.float32))),
        ValueError,
        "'labels'",
    ),
    "binary_cross_entropy_with_logits input not a Tensor": (
        lambda: ops.binary_cross_entropy_with_logits([0.0], _X),
        TypeError,
        "'input'",
    ),
    "clip_by_norm empty": (lambda: ops.clip_by_norm([], 1.0), TypeError, "'x'"),
    "clip_by_norm non-finite": (
        lambda: ops.clip_by_norm(
            Tensor(np.array([np.inf], np.float32)), 1.0, error_if_nonfinite=True
        ),
        RuntimeError,
        "non-finite",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_argument(name):
    build, error, match = CASES[name]
    with pytest.raises(error, match=match):
        build()


def test_adam_amsgrad_keeps_the_running_maximum():
    w = nn.Dense(2, 1).weight
    opt = nn.Adam([w], 0.1, use_amsgrad=True, use_nesterov=True)
    assert [p.name for p in opt.get_parameters()][-1] == "vhat.weight"
    opt([np.full((1, 2), 3.0, np.float32)])
    first = opt.vhat[0].asnumpy().copy()
    opt([np.zeros((1, 2), np.float32)])  # v decays; vhat keeps the larger value
    np.testing.assert_array_equal(opt.vhat[0].asnumpy(), first)
    assert (opt.moment2[0].asnumpy() < first).all()


def test_ftrl_l1_shrinks_both_signs_toward_zero_and_zeroes_small_weights():
    w = ms.Parameter(Tensor(np.array([[1.0, -1.0, 0.2]], np.float32)), name="w")
    opt = nn.FTRL([w], learning_rate=0.5, l1=0.05)
    opt([np.array([[0.3, -0.3, 0.01]], np.float32)])
    plain = nn.FTRL(
        [ms.Parameter(Tensor(np.array([[1.0, -1.0, 0.2]], np.float32)), name="v")],
        0.1,
        0.5,
    )
    plain([np.array([[0.3, -0.3, 0.01]], np.float32)])
    got, free = w.asnumpy()[0], plain.parameters[0].asnumpy()[0]
    # Mirror images, each pulled toward 0 by the L1 term (FTRL's weights come from `linear`).
    assert got[0] == pytest.approx(-got[1]) and np.sign(got[0]) == np.sign(free[0])
    assert 0 < abs(got[0]) < abs(free[0])
    linear = opt.linear[0].asnumpy()[0]
    assert abs(linear[2]) <= 0.05 and got[2] == 0.0  # |linear| <= l1: exactly zero
