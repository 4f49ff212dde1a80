import copy
import pickle

import numpy as np
import pytest

import cadence as ms
from tests.helpers.processes import run_python


def test_scalar_repr_matches_mindspore():
    assert repr(ms.Tensor(0.35758)) == "Tensor(shape=[], dtype=Float32, value= 0.35758)"
    assert (
        repr(ms.Tensor(np.float32(0.663754)))
        == "Tensor(shape=[], dtype=Float32, value= 0.663754)"
    )
    assert repr(ms.Tensor(2, ms.int32)) == "Tensor(shape=[], dtype=Int32, value= 2)"
    assert repr(ms.Tensor(True)) == "Tensor(shape=[], dtype=Bool, value= True)"


def test_array_repr_matches_mindspore():
    assert (
        repr(ms.Tensor([1.0, 2.0]))
        == "Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00])"
    )
    two = ms.Tensor(np.ones((2, 3), np.float32))
    assert repr(two) == (
        "Tensor(shape=[2, 3], dtype=Float32, value=\n"
        "[[ 1.00000000e+00,  1.00000000e+00,  1.00000000e+00],\n"
        " [ 1.00000000e+00,  1.00000000e+00,  1.00000000e+00]])"
    )
    assert (
        repr(ms.Tensor([-1.5, 2.0]))
        == "Tensor(shape=[2], dtype=Float32, value= [-1.50000000e+00,  2.00000000e+00])"
    )
    assert (
        repr(ms.Tensor([1, 2, 3], ms.int32))
        == "Tensor(shape=[3], dtype=Int32, value= [1, 2, 3])"
    )
    # float16 with four decimals, as MindSpore 2.10 prints it
    assert (
        repr(ms.Tensor(np.array([0.1, 2.5], np.float16)))
        == "Tensor(shape=[2], dtype=Float16, value= [ 9.9976e-02,  2.5000e+00])"
    )


def test_default_dtypes_follow_mindspore():
    assert ms.Tensor(1.5).dtype == ms.float32
    assert ms.Tensor([1, 2]).dtype == ms.int64
    assert ms.Tensor(np.zeros(2, np.float64)).dtype == ms.float64
    assert ms.Tensor([1, 2], ms.float16).dtype == ms.float16
    assert repr(ms.float32) == "Float32"
    assert repr(ms.uint8) == "UInt8"
    assert repr(ms.bool_) == "Bool"


def test_rejects_unsupported_data():
    with pytest.raises(TypeError, match="no cadence type"):
        ms.Tensor(np.array(["a"]))
    with pytest.raises(TypeError, match="dtype"):
        ms.Tensor([1.0], dtype="float32x")  # type: ignore[arg-type]


def test_properties_and_conversions():
    t = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert t.shape == (2, 3)
    assert t.ndim == 2
    assert t.size == 6
    assert isinstance(t.asnumpy(), np.ndarray)
    assert float(ms.Tensor(2.5)) == 2.5
    assert ms.Tensor(3).item() == 3
    assert t.reshape(3, 2).shape == (3, 2)
    assert t.reshape((6,)).shape == (6,)
    assert t[1].asnumpy().tolist() == [3.0, 4.0, 5.0]
    assert t[:, 1:].shape == (2, 2)
    assert t.astype(ms.int32).dtype == ms.int32
    assert float(t.sum()) == 15.0
    assert float(t.mean()) == 2.5
    assert t.sum(axis=0).asnumpy().tolist() == [3.0, 5.0, 7.0]
    assert t.mean(axis=1, keep_dims=True).shape == (2, 1)
    assert t.T.shape == (3, 2)
    assert np.asarray(t).shape == (2, 3)


def test_arithmetic_keeps_float32():
    t = ms.Tensor([1.0, 2.0])
    for out in (t + 1, 1 + t, t - 1.5, 2 * t, t / 2, 2 / t, t**2, -t, abs(t)):
        assert out.dtype == ms.float32
    assert (t * t).asnumpy().tolist() == [1.0, 4.0]
    mixed: ms.Tensor = np.ones(2, np.float32) + t  # type: ignore[assignment]
    assert mixed.asnumpy().tolist() == [2.0, 3.0]


def test_comparisons_return_bool_tensors():
    t = ms.Tensor([1.0, 2.0])
    assert (t > 1).asnumpy().tolist() == [False, True]
    assert (t == 2.0).dtype == ms.bool_
    assert (t <= 1).asnumpy().tolist() == [True, False]
    assert hash(t) == hash(t)


def test_setitem_writes_in_place():
    t = ms.Tensor(np.zeros(3, np.float32))
    t[1] = 5.0
    assert t.asnumpy().tolist() == [0.0, 5.0, 0.0]


def test_parameter_repr_and_set_data():
    p = ms.Parameter(np.zeros((16, 784), np.float32), name="1.weight")
    assert (
        repr(p)
        == "Parameter (name=1.weight, shape=(16, 784), dtype=Float32, requires_grad=True)"
    )
    assert str(p) == repr(p)
    buf = p.asnumpy()
    assert p.set_data(ms.Tensor(np.ones((16, 784), np.float32))) is p
    assert p.asnumpy() is buf
    assert float(p.asnumpy()[0, 0]) == 1.0
    p.set_data(np.ones((2, 2), np.float32))
    assert p.shape == (2, 2)
    assert ms.Parameter(1.0).name == "Parameter"


def test_parameter_validates_arguments():
    with pytest.raises(TypeError, match="requires_grad"):
        ms.Parameter(np.zeros(2), requires_grad=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="name"):
        ms.Parameter(np.zeros(2), name=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="data"):
        ms.Parameter(np.zeros(2)).set_data("x")


def test_parameter_tuple_clone_prefixes_names():
    params = ms.ParameterTuple([ms.Parameter(np.ones(2, np.float32), name="w")])
    clones = params.clone(prefix="accum", init="zeros")
    assert clones[0].name == "accum.w"
    assert clones[0].asnumpy().tolist() == [0.0, 0.0]
    with pytest.raises(TypeError, match="element 0"):
        ms.ParameterTuple([1])  # type: ignore[list-item]


def test_copy_and_pickle_round_trip():
    t = ms.Tensor([1.0, 2.0])
    assert copy.deepcopy(t).asnumpy().tolist() == [1.0, 2.0]
    p = ms.Parameter(np.ones(2, np.float32), name="w", requires_grad=False)
    q = pickle.loads(pickle.dumps(p))
    assert (q.name, q.requires_grad) == ("w", False)
    assert pickle.loads(pickle.dumps(ms.float32)) is ms.float32


def test_tensor_from_initializer():
    ms.set_seed(1)
    t = ms.Tensor(shape=(2, 3), dtype=ms.float32, init="normal")
    assert t.shape == (2, 3)
    with pytest.raises(TypeError, match="input_data"):
        ms.Tensor()


def test_importing_cadence_does_not_import_numba():
    code = "import sys, cadence, cadence.nn; print('numba' in sys.modules)"
    out = run_python(code, check=True)
    assert out.stdout.strip() == "False"


def test_dtype_conversions_of_mindspore_common_dtype():
    from cadence.common import dtype as mstype

    assert (
        ms.dtype_to_nptype(ms.int32) is np.int32
        and mstype.dtype_to_nptype(ms.float16) is np.float16
    )
    assert [ms.dtype_to_pytype(t) for t in (ms.bool_, ms.uint8, ms.float32)] == [
        bool,
        int,
        float,
    ]
    assert [ms.pytype_to_dtype(t) for t in (bool, int, float, ms.int8)] == [
        ms.bool_,
        ms.int64,
        ms.float64,
        ms.int8,
    ]
    with pytest.raises(
        TypeError,
        match=r"'dtype_to_nptype'.*'type_' must be a cadence dtype.*but got 'float32'",
    ):
        ms.dtype_to_nptype("float32")  # type: ignore[arg-type]
    with pytest.raises(
        TypeError,
        match=r"'pytype_to_dtype'.*'obj' must be bool, int, float or a dtype, but got <class 'str'>",
    ):
        ms.pytype_to_dtype(str)


def test_parameter_copy_is_a_parameter_with_its_own_data():
    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), "q", requires_grad=False)
    c = p.copy()
    assert type(c).__name__ == "Parameter"  # a Tensor's copy is a Tensor
    assert (c.name, c.requires_grad) == ("q", False) and c is not p
    c.set_data(ms.Tensor(np.zeros(2, np.float32)))
    assert p.asnumpy().tolist() == [1.0, 1.0]
