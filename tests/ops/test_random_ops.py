"""Random ops: seeding as MindSpore's (`set_seed`, an op's `seed`/`seed2`), ranges, distributions, errors.

Shapes and dtypes against MindSpore 2.10 are in `mindspore_cases.py` ("random ops
shapes and dtypes"); values cannot match MindSpore's generator.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cadence as ms
from cadence import Tensor, ops

NOT_AN_INT: Any = 1.5
NOT_A_TUPLE: Any = [2]

DRAWS = {
    "rand": lambda seed=None: ops.rand(4, 3, seed=seed),
    "randn": lambda seed=None: ops.randn((5,), seed=seed),
    "randint": lambda seed=None: ops.randint(-4, 9, (6,), seed),
    "uniform": lambda seed=None: ops.uniform((3, 2), Tensor(-1.0), Tensor(2.0), seed),
    "uniform int": lambda seed=None: ops.uniform(
        (7,), Tensor(3, ms.int32), Tensor(40, ms.int32), seed, ms.int32
    ),
    "normal": lambda seed=None: ops.normal((2, 3), Tensor(1.0), Tensor(3.0), seed),
}

OPERATORS = {
    "StandardNormal": lambda *s: ops.StandardNormal(*s)((4, 2)),
    "UniformReal": lambda *s: ops.UniformReal(*s)((3, 3)),
    "UniformInt": lambda *s: ops.UniformInt(*s)(
        (9,), Tensor(0, ms.int32), Tensor(1000, ms.int32)
    ),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_set_seed_repeats_the_sequence_and_calls_continue_it(name):
    draw = DRAWS[name]
    ms.set_seed(11)
    first, second = draw().asnumpy(), draw().asnumpy()
    ms.set_seed(11)
    np.testing.assert_array_equal(draw().asnumpy(), first)
    np.testing.assert_array_equal(draw().asnumpy(), second)
    assert not np.array_equal(first, second)


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_an_explicit_seed_decides_alone(name):
    draw = DRAWS[name]
    ms.set_seed(1)
    seeded, unseeded = draw(5).asnumpy(), draw().asnumpy()
    ms.set_seed(2)
    np.testing.assert_array_equal(draw(5).asnumpy(), seeded)
    assert not np.array_equal(draw().asnumpy(), unseeded)
    assert not np.array_equal(draw(6).asnumpy(), seeded)


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_operator_seeds_give_each_object_its_own_sequence(name):
    make = OPERATORS[name]
    op = getattr(ops, name)(seed=2, seed2=7)
    assert (op.seed, op.seed2, op.attrs) == (2, 7, {"seed": 2, "seed2": 7})
    ms.set_seed(3)
    first = make(2, 7).asnumpy()
    np.testing.assert_array_equal(make(2, 7).asnumpy(), first)  # a new object repeats
    assert not np.array_equal(make(2, 8).asnumpy(), first)
    ms.set_seed(4)
    np.testing.assert_array_equal(
        make(2, 7).asnumpy(), first
    )  # the global seed plays no part
    ms.set_seed(3)
    global_first = make().asnumpy()
    ms.set_seed(3)
    np.testing.assert_array_equal(
        make().asnumpy(), global_first
    )  # seeds 0: set_seed's stream


def test_one_operator_object_continues_its_sequence():
    normal = ops.StandardNormal(seed=9)
    assert not np.array_equal(normal((3,)).asnumpy(), normal((3,)).asnumpy())


def test_ranges_and_dtypes():
    ms.set_seed(5)
    unit = ops.rand(4000, dtype=ms.float16).asnumpy()
    assert unit.dtype == np.float16 and unit.min() >= 0 and unit.max() < 1
    ints = ops.randint(-2, 3, (4000,), dtype=ms.int8).asnumpy()
    assert ints.dtype == np.int8 and set(ints.tolist()) == {-2, -1, 0, 1, 2}
    wide = ops.uniform(
        (4000,), Tensor(np.array(-3.0, np.float32)), Tensor(5.0)
    ).asnumpy()
    assert (
        wide.min() >= -3 and wide.max() < 5 and wide.min() < -2.9 and wide.max() > 4.9
    )
    picks = ops.UniformInt()(
        (4000,), Tensor(7, ms.int32), Tensor(9, ms.int32)
    ).asnumpy()
    assert picks.dtype == np.int32 and set(picks.tolist()) == {7, 8}
    assert ops.randn(3, dtype=ms.float64).dtype == ms.float64


def test_normal_follows_its_mean_and_stddev_per_broadcast_row():
    ms.set_seed(6)
    mean = Tensor(np.array([[-10.0], [10.0]], np.float32))
    out = ops.normal(
        (2, 20000), mean, Tensor(np.array([0.5, 3.0], np.float32)[:, None])
    ).asnumpy()
    np.testing.assert_allclose(out.mean(axis=1), [-10, 10], atol=0.1)
    np.testing.assert_allclose(out.std(axis=1), [0.5, 3.0], rtol=0.05)
    standard = ops.randn(20000).asnumpy()
    assert abs(standard.mean()) < 0.05 and abs(standard.std() - 1) < 0.05


ERRORS = {
    "rand int dtype": (
        lambda: ops.rand(2, dtype=ms.int32),
        ValueError,
        "'dtype' must be a float",
    ),
    "rand negative size": (
        lambda: ops.rand(-2, 3),
        ValueError,
        "'size' must hold sizes >= 0",
    ),
    "rand float size": (
        lambda: ops.rand(2.5),
        TypeError,
        "'size' must be a tuple of ints",
    ),
    "rand negative seed": (
        lambda: ops.rand(2, seed=-1),
        ValueError,
        "'seed' must be an int >= 0",
    ),
    "randn float seed": (
        lambda: ops.randn(2, seed=NOT_AN_INT),
        TypeError,
        "'seed' must be an int",
    ),
    "randint float dtype": (
        lambda: ops.randint(0, 5, (2,), dtype=ms.float32),
        ValueError,
        "'dtype' must be an int type",
    ),
    "randint empty range": (
        lambda: ops.randint(5, 5, (2,)),
        ValueError,
        "but got 5 and 5",
    ),
    "randint float low": (
        lambda: ops.randint(NOT_AN_INT, 5, (2,)),
        TypeError,
        "'low' must be an int",
    ),
    "randint list size": (
        lambda: ops.randint(0, 5, NOT_A_TUPLE),
        ValueError,
        "'size' must be a tuple",
    ),
    "uniform float16": (
        lambda: ops.uniform((2,), Tensor(0.0), Tensor(1.0), dtype=ms.float16),
        TypeError,
        "must be Int32 or Float32",
    ),
    "uniform number bound": (
        lambda: ops.uniform((2,), 0.0, Tensor(1.0)),
        TypeError,
        "'minval' must be a Tensor",
    ),
    "uniform bound dtype": (
        lambda: ops.uniform((2,), Tensor(0.0), Tensor(1.0), dtype=ms.int32),
        TypeError,
        "must have the dtype Int32",
    ),
    "uniform int vector bound": (
        lambda: ops.uniform(
            (2,), Tensor(np.zeros(2, np.int32)), Tensor(3, ms.int32), dtype=ms.int32
        ),
        ValueError,
        "must be scalar tensors",
    ),
    "normal no broadcast": (
        lambda: ops.normal((2,), Tensor(np.zeros(3, np.float32)), Tensor(1.0)),
        ValueError,
        "must broadcast together",
    ),
    "normal string mean": (
        lambda: ops.normal((2,), "0", 1.0),
        TypeError,
        "'mean' must be a Tensor or a number",
    ),
    "StandardNormal list shape": (
        lambda: ops.StandardNormal()([2, 3]),
        TypeError,
        "'shape' must be a tuple of ints",
    ),
    "StandardNormal negative seed": (
        lambda: ops.StandardNormal(seed=-1),
        ValueError,
        "'seed' must be an int >= 0",
    ),
    "UniformReal float seed2": (
        lambda: ops.UniformReal(0, NOT_AN_INT),
        TypeError,
        "'seed2' must be an int",
    ),
    "UniformInt int64 bounds": (
        lambda: ops.UniformInt()((2,), Tensor(0, ms.int64), Tensor(3, ms.int64)),
        TypeError,
        "must be Int32 tensors",
    ),
    "UniformInt number bound": (
        lambda: ops.UniformInt()((2,), 0, Tensor(3, ms.int32)),
        TypeError,
        "'minval' must be a Tensor",
    ),
    "UniformInt empty range": (
        lambda: ops.UniformInt()((2,), Tensor(3, ms.int32), Tensor(3, ms.int32)),
        ValueError,
        "lower bound must be less",
    ),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_bad_arguments_are_named(name):
    call, error, words = ERRORS[name]
    with pytest.raises(error, match=words.replace("(", r"\(")):
        call()
