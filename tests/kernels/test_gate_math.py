"""The recurrent gates' tanh and sigmoid (`kernels/_gate_math.py`): accuracy, the float64 path, vectorization."""

import re

import numba
import numpy as np
import pytest

from cadence.kernels import _gate_math, _recurrent_steps
from cadence.kernels._gate_math import gate_sigmoid, gate_tanh


@numba.jit(error_model="numpy")
def _both(x, tanh_out, sigmoid_out):
    for i in range(x.shape[0]):
        tanh_out[i] = gate_tanh(x[i])
        sigmoid_out[i] = gate_sigmoid(x[i])


def _compiled(x):
    tanh_out, sigmoid_out = np.empty_like(x), np.empty_like(x)
    _both(x, tanh_out, sigmoid_out)
    return tanh_out, sigmoid_out


# Every float32 step near 0, then a dense grid out past where tanh rounds to +-1.
_GRID = np.concatenate(
    [
        np.linspace(-1e-3, 1e-3, 20_001, dtype=np.float32),
        np.linspace(-40, 40, 400_001, dtype=np.float32),
    ]
)


def test_float32_tanh_is_within_the_documented_bound_and_never_past_one():
    got, _ = _compiled(_GRID)
    want = np.tanh(_GRID.astype(np.float64))
    rel = np.abs(got - want) / np.maximum(np.abs(want), np.finfo(np.float32).tiny)
    assert rel.max() <= 4e-7
    assert np.abs(got).max() <= 1.0
    assert np.all(got[_GRID > _gate_math.TANH_LIMIT] == 1.0)
    assert np.all(np.sign(got) == np.sign(_GRID))  # odd, and exactly 0 at 0


def test_float32_sigmoid_is_within_the_documented_bound_and_in_zero_one():
    _, got = _compiled(_GRID)
    want = 1.0 / (1.0 + np.exp(-_GRID.astype(np.float64)))
    assert np.abs(got - want).max() <= 3e-7
    assert got.min() >= 0.0 and got.max() <= 1.0


def test_float64_keeps_the_exact_formulas():
    x = np.linspace(-40, 40, 10_001)
    tanh, sigmoid = _compiled(x)
    np.testing.assert_allclose(tanh, np.tanh(x), rtol=1e-15, atol=1e-16)
    np.testing.assert_allclose(sigmoid, 1.0 / (1.0 + np.exp(-x)), rtol=1e-15)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_plain_python_computes_what_the_compiled_code_does(dtype):
    # The CUDA simulator runs the step bodies as Python: same formula, same precision.
    x = np.linspace(-12, 12, 241).astype(dtype)
    tanh, sigmoid = _compiled(x)
    py_tanh = np.array([gate_tanh(v) for v in x])
    py_sigmoid = np.array([gate_sigmoid(v) for v in x])
    assert py_tanh.dtype == dtype and py_sigmoid.dtype == dtype
    np.testing.assert_array_max_ulp(py_tanh, tanh, 1)
    np.testing.assert_array_max_ulp(py_sigmoid, sigmoid, 1)


def _lstm_step_ir(dtype):
    vec, mat = numba.types.Array(dtype, 1, "C"), numba.types.Array(dtype, 2, "C")
    state = numba.types.Tuple((vec, vec, mat, vec))
    body = numba.jit(error_model="numpy")(_recurrent_steps.recurrent_step_forward)
    sig = (numba.int64, mat, mat, mat, numba.types.UniTuple(vec, 2), state)
    body.compile(sig)
    return body.inspect_llvm(sig)


def test_the_cpu_lstm_unit_loop_is_vectorized_in_float32():
    # The point of the rational gates: no libm call keeps the unit loop scalar. A
    # regression (a call, a branch or an aliasing store in the loop) shows as no vector type.
    ir = _lstm_step_ir(numba.float32)
    assert re.search(r"<(4|8|16) x float>", ir), (
        "the float32 step body has no vector code"
    )
    assert not re.search(_EXP_CALL, ir), "the float32 step body calls exp or tanh"


_EXP_CALL = r"call [^\n]*@(llvm\.)?(exp|tanh)(f|\.f32|\.f64)?\b"


def test_the_float64_step_body_still_calls_exp():
    # The check above can fail: the float64 body (exact gates) does call exp.
    assert re.search(_EXP_CALL, _lstm_step_ir(numba.float64))
