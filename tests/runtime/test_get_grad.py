"""`grad(..., return_ids=True)` pairs each gradient with its id; `get_grad` reads one back."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

import cadence as ms
from cadence import nn


def _product(x, y):
    return (x * y).sum()


X = ms.Tensor([1.0, 2.0])
Y = ms.Tensor([3.0, 4.0])


def test_input_gradients_are_paired_with_their_positions():
    grads = ms.grad(_product, (0, 1), return_ids=True)(X, Y)
    assert [i for i, _ in grads] == [0, 1]
    assert ms.get_grad(grads, 0).tolist() == [3.0, 4.0]
    assert ms.get_grad(grads, 1).tolist() == [1.0, 2.0]


def test_an_int_position_gives_one_pair():
    pair = ms.grad(_product, 1, return_ids=True)(X, Y)
    assert pair[0] == 1
    assert ms.get_grad(pair, 1).tolist() == [1.0, 2.0]


def test_weights_are_paired_with_their_names_and_found_by_parameter():
    ms.set_seed(0)
    net = nn.Dense(2, 1)
    x = ms.Tensor([[1.0, 2.0]])
    inputs, weights = ms.grad(
        lambda v: net(v).sum(), 0, net.trainable_params(), return_ids=True
    )(x)
    assert inputs[0] == 0
    assert [name for name, _ in weights] == [p.name for p in net.trainable_params()]
    both = (inputs, weights)
    assert ms.get_grad(both, net.weight).tolist() == [[1.0, 2.0]]
    assert ms.get_grad(both, net.bias).tolist() == [1.0]
    assert np.allclose(ms.get_grad(both, 0).asnumpy(), net.weight.asnumpy())


def test_value_and_grad_and_has_aux_keep_the_ids():
    def loss_and_aux(x, y):
        return _product(x, y), x

    (loss, aux), grads = ms.value_and_grad(
        loss_and_aux, (0, 1), has_aux=True, return_ids=True
    )(X, Y)
    assert float(loss) == 11.0
    assert aux.tolist() == [1.0, 2.0]
    assert ms.get_grad(grads, 0).tolist() == [3.0, 4.0]


def test_without_return_ids_gradients_are_plain():
    grads = ms.grad(_product, (0, 1))(X, Y)
    assert all(isinstance(g, ms.Tensor) for g in grads)


@pytest.mark.parametrize(
    ("identifier", "error", "words"),
    [
        (2, ValueError, "no gradient for 2 in 'gradients' (its ids: [0, 1])"),
        (ms.Parameter(ms.Tensor(1.0), name="absent"), ValueError, "its ids: [0, 1]"),
        ("weight", TypeError, "'identifier' must be an int"),
        (True, TypeError, "'identifier' must be an int"),
    ],
    ids=["position", "parameter", "name", "bool"],
)
def test_get_grad_refuses_what_it_cannot_find(identifier, error, words):
    grads = ms.grad(_product, (0, 1), return_ids=True)(X, Y)
    with pytest.raises(error, match=re.escape(words)):
        ms.get_grad(grads, identifier)


def test_return_ids_must_be_a_bool():
    unchecked: Any = ms  # the argument is wrong on purpose
    with pytest.raises(TypeError, match="`return_ids` must be a bool, but got 1"):
        unchecked.grad(_product, 0, return_ids=1)
