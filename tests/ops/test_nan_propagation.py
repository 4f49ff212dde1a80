"""cadence's max/min/clip ops on the CPU target propagate NaN as numpy does (the CUDA suite checks the device)."""

import numpy as np
import pytest
from hypothesis import given, settings

from cadence import Tensor, ops
from tests.helpers.nan_cases import NAN_CALLS, nan_pairs

# The same calls as `NAN_CALLS`, spelled with cadence's ops.
CADENCE_CALLS = {
    "maximum": lambda a, b: ops.maximum(a, b),
    "minimum": lambda a, b: ops.minimum(a, b),
    "clip": lambda a, b: ops.clip(a, -1.0, 1.0),
    "max axis 1": lambda a, b: a.max(axis=1),
    "min axis 0": lambda a, b: ops.amin(a, axis=0),
    "max all": lambda a, b: ops.amax(a),
    "min all": lambda a, b: a.min(),
}


def test_the_cpu_table_covers_every_nan_call():
    assert CADENCE_CALLS.keys() == NAN_CALLS.keys()


@pytest.mark.parametrize("name", sorted(CADENCE_CALLS))
@settings(max_examples=20)
@given(pair=nan_pairs())
def test_max_min_clip_propagate_nan_as_numpy_does(name, pair):
    a, b = pair
    got = CADENCE_CALLS[name](Tensor(a), Tensor(b)).asnumpy()
    np.testing.assert_array_equal(got, NAN_CALLS[name](a, b))


@pytest.mark.parametrize(
    "relu", [ops.relu, lambda x: ops.ReLU()(x)], ids=["ops.relu", "ops.ReLU"]
)
def test_relu_gives_positive_zero_and_keeps_nan(relu):
    # MindSpore 2.10 gives +0.0 for -1, -0.0 and -inf (cadence gave -0.0, printed "-0.");
    # for NaN it gives 0 where cadence, as its max/min above, keeps the NaN.
    x = np.array([-1.0, 6.0, -0.0, -np.inf, np.nan, np.inf], np.float32)
    got = relu(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(got, [0.0, 6.0, 0.0, 0.0, np.nan, np.inf])
    assert not np.signbit(got[[0, 2, 3]]).any()
