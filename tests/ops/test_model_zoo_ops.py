"""The model zoo's remaining operators against numpy on generated inputs, their gradients, and their argument errors.

MindSpore's own results for fixed inputs are in `mindspore_ops.json` (`test_against_mindspore.py`);
these cover what it cannot record: einsum (MindSpore 2.10 has no CPU kernel for it),
`Tensor.unique`'s options (no CPU kernel either), the parameter-server settings, and
inputs drawn by Hypothesis.
"""

import math
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import cadence as ms
from cadence import Tensor, nn, ops
from tests.helpers.gradients import numeric_gradient

NOT_AN_INT: Any = 1.0
NOT_A_BOOL: Any = 1
matrices = hnp.arrays(
    np.float64,
    hnp.array_shapes(min_dims=2, max_dims=3, max_side=4),
    elements=st.floats(-5, 5, width=32),
)
small_ints = hnp.arrays(
    np.int32,
    hnp.array_shapes(min_dims=1, max_dims=3, max_side=5),
    elements=st.integers(-3, 3),
)


@given(x=small_ints, data=st.data())
def test_sort_is_a_stable_sort(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    descending = data.draw(st.booleans())
    values, indices = ops.sort(Tensor(x), axis, descending)
    order = np.argsort(-x if descending else x, axis=axis, kind="stable")
    assert (str(values.dtype), str(indices.dtype)) == ("Int32", "Int32")
    np.testing.assert_array_equal(indices.asnumpy(), order)
    np.testing.assert_array_equal(values.asnumpy(), np.take_along_axis(x, order, axis))


@given(x=small_ints)
def test_unique_numbers_by_first_appearance_and_tensor_unique_sorts(x):
    values, positions = ops.unique(Tensor(x))
    first = sorted(np.unique(x, return_index=True)[1])
    np.testing.assert_array_equal(values.asnumpy(), x.ravel()[first])
    np.testing.assert_array_equal(values.asnumpy()[positions.asnumpy()], x)
    got, inverse, counts = Tensor(x).unique(return_inverse=True, return_counts=True)
    want = np.unique(x, return_inverse=True, return_counts=True)
    for g, w in zip((got, inverse, counts), want, strict=True):
        np.testing.assert_array_equal(g.asnumpy(), w.reshape(g.shape))


@given(x=matrices, data=st.data())
def test_scans_tril_triu_and_spread_match_numpy(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    diagonal = data.draw(st.integers(-3, 3))
    ddof = data.draw(st.integers(0, 1))
    t = Tensor(x)
    np.testing.assert_allclose(ops.cumprod(t, axis).asnumpy(), np.cumprod(x, axis))
    np.testing.assert_array_equal(ops.tril(t, diagonal).asnumpy(), np.tril(x, diagonal))
    np.testing.assert_array_equal(t.triu(diagonal).asnumpy(), np.triu(x, diagonal))
    with warnings.catch_warnings():  # n - ddof = 0 gives NaN: numpy warns too
        warnings.simplefilter("ignore", RuntimeWarning)
        want_var, want_std = np.var(x, axis, ddof=ddof), np.std(x, ddof=ddof)
    np.testing.assert_allclose(ops.var(t, axis, ddof).asnumpy(), want_var)
    np.testing.assert_allclose(t.std(None, ddof).asnumpy(), want_std)
    rows = np.moveaxis(x, axis, 0)
    for got, want in zip(ops.unstack(t, axis), rows, strict=True):
        np.testing.assert_array_equal(got.asnumpy(), want)


@given(x=small_ints, data=st.data())
def test_reordering_and_selection_match_numpy(x, data):
    axes = data.draw(
        st.lists(st.integers(0, x.ndim - 1), min_size=1, max_size=x.ndim, unique=True)
    )
    shifts = data.draw(
        st.lists(st.integers(-7, 7), min_size=len(axes), max_size=len(axes))
    )
    t = Tensor(x)
    np.testing.assert_array_equal(ops.flip(t, axes).asnumpy(), np.flip(x, axes))
    np.testing.assert_array_equal(
        t.roll(shifts, axes).asnumpy(), np.roll(x, shifts, axes)
    )
    np.testing.assert_array_equal(
        ops.roll(t, shifts[0]).asnumpy(), np.roll(x, shifts[0])
    )
    np.testing.assert_array_equal(
        t.argsort(axes[0]).asnumpy(), np.argsort(x, axes[0], kind="stable")
    )
    np.testing.assert_array_equal(t.masked_select(t > 0).asnumpy(), x[x > 0])
    np.testing.assert_array_equal(ops.nonzero(t).asnumpy(), np.argwhere(x))
    for got, want in zip(t.nonzero(as_tuple=True), np.nonzero(x), strict=True):
        np.testing.assert_array_equal(got.asnumpy(), want)


@pytest.mark.parametrize(
    ("exclusive", "reverse"), [(False, True), (True, False), (True, True)]
)
def test_cumprod_exclusive_and_reverse(exclusive, reverse):
    x = np.array([[2.0, 3.0, 0.5, 4.0], [1.0, -2.0, 0.0, 3.0]])
    scan = x[:, ::-1] if reverse else x
    want = np.cumprod(
        np.concatenate([np.ones((2, 1)), scan[:, :-1]], 1) if exclusive else scan, 1
    )
    got = ops.CumProd(exclusive, reverse)(Tensor(x), 1).asnumpy()
    np.testing.assert_allclose(got, want[:, ::-1] if reverse else want)


@given(x=matrices, data=st.data())
def test_index_select_and_scatter_match_numpy(x, data):
    axis = data.draw(st.integers(0, x.ndim - 1))
    picks = data.draw(
        hnp.arrays(
            np.int64, st.integers(0, 5), elements=st.integers(0, x.shape[axis] - 1)
        )
    )
    np.testing.assert_array_equal(
        ops.index_select(Tensor(x), axis, Tensor(picks)).asnumpy(),
        np.take(x, picks, axis),
    )
    # One distinct position per (other axes) line, so which write wins is defined.
    shape = tuple(data.draw(st.integers(1, n)) for n in x.shape)
    perm = np.argsort(np.random.default_rng(shape).random(x.shape), axis=axis)
    index = perm[tuple(slice(0, n) for n in shape)]
    src = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    want = x.copy()
    # The definition: out[i with i[axis] replaced by index[i]] = src[i].
    for i in np.ndindex(shape):
        want[(*i[:axis], index[i], *i[axis + 1 :])] = src[i]
    got = ops.scatter(Tensor(x), axis, Tensor(index), Tensor(src)).asnumpy()
    np.testing.assert_array_equal(got, want)


@given(x=matrices, p=st.sampled_from([0.0, 1.0, 2.0, 3.0, math.inf]))
def test_cdist_is_the_p_norm_of_row_differences(x, p):
    y = x[..., ::-1, :] * 0.5
    diff = np.abs(x[..., :, None, :] - y[..., None, :, :])
    want = (
        (diff != 0).sum(-1) if p == 0 else diff.max(-1) if p == math.inf
        else (diff**p).sum(-1) ** (1 / p)
    )  # fmt: skip
    np.testing.assert_allclose(
        ops.cdist(Tensor(x), Tensor(y), p).asnumpy(), want, atol=1e-12
    )


EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 2)]), ("ij,jk", [(3, 4), (4, 2)]), ("ii", [(3, 3)]), ("ii->i", [(3, 3)]),
    ("...j,j", [(2, 3, 4), (4,)]), ("ij->", [(3, 4)]), ("ij->ji", [(3, 4)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
    ("...ij,jk->...ik", [(2, 1, 3, 4), (4, 2)]), ("i,j->ij", [(3,), (2,)]), ("...i,...i->...", [(2, 3), (1, 3)]),
    ("bhqd,bhkd->bhqk", [(1, 2, 3, 2), (1, 2, 4, 2)]), ("iij->j", [(2, 2, 3)]),
]  # fmt: skip


@pytest.mark.parametrize(("equation", "shapes"), EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum_values_and_gradients(equation, shapes):
    rng = np.random.default_rng(len(equation))
    arrays = [rng.normal(size=s) for s in shapes]
    want = np.einsum(equation, *arrays)
    np.testing.assert_allclose(
        ops.einsum(equation, *map(Tensor, arrays)).asnumpy(), want
    )
    weights = Tensor(rng.normal(size=want.shape))
    for k, a in enumerate(arrays):

        def loss(t, k=k):
            operands = [t if i == k else Tensor(b) for i, b in enumerate(arrays)]
            return (ops.einsum(equation, *operands) * weights).sum()

        got = ms.grad(loss)(Tensor(a)).asnumpy()
        np.testing.assert_allclose(got, numeric_gradient(loss, a), rtol=1e-5, atol=1e-7)


def _image(t):
    return ops.reshape(t, (1, 1, 3, 4))


# Each loss takes a float64 (3, 4) input; the tape's gradient must equal finite differences.
X = np.array([[0.5, -1.5, 2.0, 1.2], [1.0, 0.25, -0.75, 3.0], [-2.0, 0.8, 1.7, -0.3]])
W = np.random.default_rng(7).normal(size=(3, 4))
SPREAD = np.repeat(np.linspace(1.0, 2.0, 10), 3)[:, None]
W30 = np.random.default_rng(8).normal(size=(30, 3))
ZEROS = np.array([[0.5, 0.0, 2.0, 1.2], [0.0, 0.0, -0.75, 3.0], [-2.0, 0.8, 1.7, 0.0]])
GRADIENTS = {
    "sort": (lambda t: (ops.sort(t, 1, True)[0] * Tensor(W)).sum(), X),
    "cumprod": (lambda t: (ops.cumprod(t, 1) * Tensor(W)).sum(), X),
    "cumprod with zeros": (lambda t: (ops.cumprod(t, 1) * Tensor(W)).sum(), ZEROS),
    "CumProd exclusive reverse": (lambda t: (ops.CumProd(True, True)(t, 0) * Tensor(W)).sum(), ZEROS),
    "std var": (lambda t: ops.std(t, 1, 1).sum() + ops.var(t, (0, 1)) * 2, X),
    "tril triu": (lambda t: (ops.tril(t, 1) * Tensor(W)).sum() + (t.triu(-1) ** 2).sum(), X),
    "index_select": (lambda t: (ops.index_select(t, 1, Tensor(np.array([3, 0, 3]))) ** 2).sum(), X),
    "scatter input and src": (lambda t: (ops.scatter(t, 1, Tensor(np.array([[0, 2], [1, 3], [3, 0]])), t[:, 1:3] ** 2) * Tensor(W)).sum(), X),
    "cdist p2 p1 p3 inf": (lambda t: sum((ops.cdist(t, t[::-1] * 0.5, p) * Tensor(W[:, :3])).sum() for p in (2.0, 1.0, 3.0, math.inf)), X),
    "cdist zero distance": (lambda t: ops.cdist(t, t).sum(), X),
    # 30 rows: the 2-norm by matrix products; the first 3 rows are t's own (zero distances).
    "cdist by products": (lambda t: (ops.cdist(ops.tile(t, (10, 1)) * Tensor(SPREAD), t) * Tensor(W30)).sum(), X),
    "L2Normalize": (lambda t: (ops.L2Normalize(1)(t) * Tensor(W)).sum(), X),
    "unstack": (lambda t: (ops.unstack(t, 1)[2] * Tensor(W[:, 0])).sum(), X),
    "interpolate nearest": (lambda t: (ops.interpolate(_image(t), size=(5, 7)) ** 2).sum(), X),
    "interpolate bilinear": (lambda t: (ops.interpolate(_image(t), size=(5, 3), mode="bilinear") ** 2).sum(), X),
    "interpolate bilinear align_corners": (lambda t: (ops.interpolate(_image(t), size=(4, 6), mode="bilinear", align_corners=True) ** 2).sum(), X),
    "interpolate bicubic": (lambda t: (ops.interpolate(_image(t), size=(5, 3), mode="bicubic") ** 2).sum(), X),
    "interpolate bicubic align_corners": (lambda t: (ops.interpolate(_image(t), size=(4, 6), mode="bicubic", align_corners=True) ** 2).sum(), X),
    "ResizeNearestNeighbor align_corners": (lambda t: (ops.ResizeNearestNeighbor((5, 7), True)(_image(t)) ** 2).sum(), X),
    "ResizeBilinearV2 asymmetric": (lambda t: (ops.ResizeBilinearV2()(_image(t), (5, 3)) ** 2).sum(), X),
    "flip roll": (lambda t: (ops.flip(t, (0, 1)) * Tensor(W)).sum() + (ops.roll(t, (1, -2), (0, 1)) * Tensor(W)).sum() + (ops.roll(t, 5) ** 2).sum(), X),
    "masked_select trace meshgrid": (lambda t: (t.masked_select(t > 0.6) ** 2).sum() + ops.trace(t * t) + (ops.meshgrid(t[0], t[1, :3])[0] * Tensor(W[:3])).sum(), X),
    "ScatterNd TensorScatterUpdate TensorScatterElements": (lambda t: (ops.ScatterNd()(Tensor(np.array([[1], [0], [1]])), t[:, :2], (2, 2)) ** 2).sum()
        + (ops.TensorScatterUpdate()(t, Tensor(np.array([[0, 1], [2, 3]])), t[1, :2] ** 2) * Tensor(W)).sum()
        + (ops.TensorScatterElements(1, "add")(t, Tensor(np.array([[0], [0], [3]])), t[:, 1:2]) ** 2).sum(), X),
    "interpolate area": (lambda t: (ops.interpolate(_image(t), size=(2, 3), mode="area") ** 2).sum(), X),
    "gather_elements repeats": (lambda t: (ops.gather_elements(t, 1, Tensor(np.array([[0, 0, 3], [2, 1, 1], [-1, 0, 2]]))) * Tensor(W[:, :3])).sum(), X),
    "max min values": (lambda t: (ops.max(t, 1)[0] * Tensor(W[:, 0])).sum() + (ops.min(t, 0, True)[0] ** 2).sum() + ops.max(t, initial=0.0)[0], X),
    "tensor_dot chunk": (lambda t: (ops.tensor_dot(t, Tensor(W), ((0,), (0,))) ** 2).sum() + (ops.chunk(t, 3, 1)[1] * Tensor(W[:, 2:])).sum(), X),
    "mse_loss L2Loss": (lambda t: ops.mse_loss(t, Tensor(W)) + ops.mse_loss(t, Tensor(W[0]), "sum") + ops.L2Loss()(t * 2), X),
    "BCELoss HuberLoss CosineEmbeddingLoss FocalLoss": (lambda t: nn.BCELoss(Tensor(W))(ops.sigmoid(t), Tensor((W > 0).astype(np.float64))) + nn.HuberLoss(delta=0.7)(t, Tensor(W))
        + nn.CosineEmbeddingLoss(0.1)(t, Tensor(W), Tensor(np.array([1, -1, 1]))) + nn.FocalLoss(gamma=1.5)(t, Tensor(np.array([[0], [3], [1]]))), X),
    "interpolate trilinear": (lambda t: (ops.interpolate(ops.reshape(t, (1, 1, 2, 2, 3)), size=(3, 3, 2), mode="trilinear") ** 2).sum(), X),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradient_matches_finite_differences(name):
    loss, x = GRADIENTS[name]
    got = ms.grad(loss)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, numeric_gradient(loss, x), rtol=1e-5, atol=1e-7)


@given(
    n=st.integers(0, 4),
    m=st.one_of(st.none(), st.integers(0, 4)),
    start=st.integers(-5, 5),
    step=st.sampled_from([-2, -1, 1, 3]),
)
def test_eye_and_arange_match_numpy(n, m, start, step):
    np.testing.assert_array_equal(
        ops.eye(n, m).asnumpy(), np.eye(n, m, dtype=np.float32)
    )
    end = start + step * n
    got = ops.arange(start, end, step)
    assert str(got.dtype) == "Int64"
    np.testing.assert_array_equal(got.asnumpy(), np.arange(start, end, step))
    half = start - 0.5 * step  # a float start: Float32, same direction
    np.testing.assert_allclose(
        ops.arange(half, end, step).asnumpy(),
        np.arange(half, end, step, dtype=np.float32),
    )


@given(
    image=hnp.arrays(np.float64, (1, 2, 3, 4), elements=st.floats(-5, 5, width=32)),
    factor=st.integers(1, 3),
)
def test_interpolate_keeps_its_invariants(image, factor):
    t = Tensor(image)
    big = (3 * factor, 4 * factor)
    # Whole-number scales: nearest repeats each pixel; linear modes keep a same-size input.
    np.testing.assert_array_equal(
        ops.interpolate(t, size=big).asnumpy(),
        image.repeat(factor, 2).repeat(factor, 3),
    )
    for mode in ("bilinear", "bicubic"):
        np.testing.assert_allclose(
            ops.interpolate(t, size=(3, 4), mode=mode).asnumpy(), image
        )
        corners = ops.interpolate(t, size=big, mode=mode, align_corners=True).asnumpy()
        np.testing.assert_allclose(
            corners[..., :: big[0] - 1 or 1, :: big[1] - 1], image[..., ::2, ::3]
        )
    # Averages of pixels stay within the input's range.
    area = ops.interpolate(t, size=(2, 3), mode="area").asnumpy()
    assert image.min() - 1e-12 <= area.min() and area.max() <= image.max() + 1e-12


def test_interpolate_area_of_whole_windows_is_average_pooling():
    x = np.arange(48, dtype=np.float32).reshape(1, 2, 4, 6)
    got = ops.interpolate(Tensor(x), size=(2, 3), mode="area").asnumpy()
    np.testing.assert_allclose(got, x.reshape(1, 2, 2, 2, 3, 2).mean((3, 5)))


def test_parameter_server_is_refused_with_the_reason_and_settings_are_recorded():
    ms.set_ps_context(enable_ps=False, worker_num=2, scheduler_ip="127.0.0.1")
    assert (
        ms.get_ps_context("worker_num"),
        ms.context.get_ps_context("enable_ps"),
    ) == (2, False)
    ms.reset_ps_context()
    assert ms.get_ps_context("worker_num") == 0
    with pytest.raises(
        NotImplementedError, match="no parameter server: it trains data-parallel"
    ):
        ms.set_ps_context(enable_ps=True)
    with pytest.raises(
        NotImplementedError, match=r"'Cell.set_param_ps'.*no parameter server"
    ):
        nn.Dense(2, 2).set_param_ps()
    assert ms.get_ps_context("enable_ps") is False


def test_recompute_is_recorded_and_the_wrap_paths_hold_nn_cells():
    from cadence.nn.wrap.cell_wrapper import TrainOneStepCell
    from cadence.nn.wrap.grad_reducer import DistributedGradReducer
    from cadence.nn.wrap.loss_scale import TrainOneStepWithLossScaleCell

    assert (DistributedGradReducer, TrainOneStepCell, TrainOneStepWithLossScaleCell) == (
        nn.DistributedGradReducer, nn.TrainOneStepCell, nn.TrainOneStepWithLossScaleCell,
    )  # fmt: skip
    dense = nn.Dense(2, 2)
    dense.recompute(output_recompute=True)
    assert getattr(dense, "recompute_config")["output_recompute"] is True  # noqa: B009 (recorded only)


IM = Tensor(np.ones((1, 1, 2, 2), np.float32))
X32 = Tensor(X.astype(np.float32))
ERRORS = {
    "arange step 0": (lambda: ops.arange(0, 5, 0), ValueError, r"'arange'.*'step' must not be 0, but got 0"),
    "arange direction": (lambda: ops.arange(5, 0, 1), ValueError, r"'step' must be negative to go from start=5 to end=0, but got 1"),
    "arange type": (lambda: ops.arange("a"), TypeError, r"'arange'.*'end' must be an int, a float or a one-element Tensor, but got 'a'"),
    "Range kinds": (lambda: ops.Range()(0, 5.0, 1), TypeError, r"'Range'.*all integers or all floats, but got \(0, 5.0, 1\)"),
    "Range maxlen": (lambda: ops.Range(maxlen=0)(0, 5, 1), ValueError, r"'Range'.*'maxlen' must be an int > 0, but got 0"),
    "eye n": (lambda: ops.eye(-1), ValueError, r"'eye'.*'n' must be an int >= 0, but got -1"),
    "eye float": (lambda: ops.eye(NOT_AN_INT), TypeError, r"'eye'.*'n' must be an int >= 0, but got 1.0"),
    "Eye dtype": (lambda: ops.Eye()(2, 2, None), TypeError, r"'Eye'.*'dtype' must be a cadence type.*but got None"),
    "tril rank": (lambda: ops.tril(Tensor(np.ones(3))), ValueError, r"'tril'.*at least 2 dimensions, but got shape \(3,\)"),
    "triu diagonal": (lambda: ops.triu(X32, NOT_AN_INT), TypeError, r"'triu'.*'diagonal' must be an int, but got 1.0"),
    "sort axis": (lambda: ops.sort(X32, 2), ValueError, r"'sort'.*'dim' must be in \[-2, 2\), but got 2"),
    "sort descending": (lambda: ops.sort(X32, -1, NOT_A_BOOL), TypeError, r"'sort'.*'descending' must be a bool, but got 1"),
    "Unstack num": (lambda: ops.Unstack(0, 0)(X32), ValueError, r"'Unstack'.*'num' must be an int > 0, but got 0"),
    "unstack axis": (lambda: ops.unstack(X32, 2), ValueError, r"'unstack'.*'axis' must be an int in \[-2, 2\), but got 2"),
    "cumprod dim": (lambda: ops.cumprod(X32, 2), ValueError, r"'cumprod'.*'axis' must be an int in \[-2, 2\), but got 2"),
    "CumProd exclusive": (lambda: ops.CumProd(exclusive=1), TypeError, r"'CumProd'.*'exclusive' must be bool"),
    "L2Normalize axis": (lambda: ops.L2Normalize(axis=3)(X32), ValueError, r"'L2Normalize'.*'axis' must be an int or a tuple/list of ints in \[-2, 2\), but got 3"),
    "L2Normalize epsilon": (lambda: ops.L2Normalize(0, 0.0)(X32), ValueError, r"'L2Normalize'.*'epsilon' must be a number > 0, but got 0.0"),
    "einsum operands": (lambda: ops.einsum("ij,jk", X32), ValueError, r"'einsum'.*'equation' must name one term per operand \(1\), but got 'ij,jk'"),
    "einsum shapes": (lambda: ops.einsum("ij,ij", X32, X32.T), ValueError, r"'einsum'.*match the operands' shapes \[\(3, 4\), \(4, 3\)\]"),
    "einsum letters": (lambda: ops.einsum("i1", X32), ValueError, r"use only letters"),
    "Einsum input": (lambda: ops.Einsum("ij")(X32), TypeError, r"'Einsum'.*tuple or list of tensors, but got Tensor"),
    "index_select index": (lambda: ops.index_select(X32, 0, [1]), TypeError, r"'index_select'.*'index' must be a Tensor, but got list"),
    "index_select 2-D": (lambda: ops.index_select(X32, 0, Tensor(np.array([[1]]))), TypeError, r"'index' must be a 1-D Int32 or Int64 tensor, but got dtype Int64 and shape \(1, 1\)"),
    "index_select range": (lambda: ops.index_select(X32, 0, Tensor(np.array([5], np.int32))), ValueError, r"'index' must be in \[0, 3\), but got 5 to 5"),
    "scatter shapes": (lambda: ops.scatter(X32, 0, Tensor(np.array([[0, 1, 2]])), X32[:1, :2]), ValueError, r"'scatter'.*same shape.*but got \(1, 3\) and \(1, 2\)"),
    "scatter axis": (lambda: ops.scatter(X32, 2, Tensor(np.array([[0]])), X32[:1, :1]), ValueError, r"'scatter'.*'axis' must be an int in \[-2, 2\), but got 2"),
    "std int": (lambda: ops.std(Tensor(np.array([1, 2], np.int32))), TypeError, r"'std'.*float tensor, but got dtype Int32"),
    "var ddof": (lambda: ops.var(X32, ddof=NOT_AN_INT * 1.5), TypeError, r"'var'.*'ddof' must be an int or a bool, but got 1.5"),
    "var axis list": (lambda: ops.var(X32, [0, 1]), TypeError, r"'var'.*'axis' must be None, an int or a tuple of ints.*but got \[0, 1\]"),
    "cdist p": (lambda: ops.cdist(X32, X32, -1.0), ValueError, r"'cdist'.*'p' must be in \[0, inf\], but got -1.0"),
    "cdist columns": (lambda: ops.cdist(X32, X32[:, :2]), ValueError, r"'cdist'.*same rank, batch size and number of columns, but got shapes \(3, 4\) and \(3, 2\)"),
    "cdist int": (lambda: ops.cdist(Tensor(np.ones((2, 2), np.int32)), X32), TypeError, r"'x1' must be a 2-D or 3-D float tensor, but got dtype Int32"),
    "interpolate both": (lambda: ops.interpolate(IM, size=(2, 2), scale_factor=2.0), ValueError, r"exactly one of the arguments 'size' and 'scale_factor'"),
    "interpolate mode": (lambda: ops.interpolate(IM, size=2, mode="foo"), ValueError, r"'mode' must be one of \['bicubic', .*\], but got 'foo'"),
    "interpolate rank": (lambda: ops.interpolate(IM, size=3, mode="linear"), ValueError, r"mode 'linear' takes 3-D input, but got shape \(1, 1, 2, 2\)"),
    "interpolate size": (lambda: ops.interpolate(IM, size=(2, 0)), ValueError, r"'size' must be a positive int or 2 of them .*but got \(2, 0\)"),
    "interpolate align_corners": (lambda: ops.interpolate(IM, size=3, align_corners=True), ValueError, r"'align_corners' applies to the modes .* but got align_corners=True with mode 'nearest'"),
    "ResizeNearestNeighbor size": (lambda: ops.ResizeNearestNeighbor(5)(IM), TypeError, r"'ResizeNearestNeighbor'.*'size' must be a tuple, list or Tensor of two positive ints.*but got 5"),
    "ResizeBilinearV2 flags": (lambda: ops.ResizeBilinearV2(True, True)(IM, (3, 3)), ValueError, r"'align_corners' and 'half_pixel_centers' cannot both be True"),
    "ResizeBilinearV2 rank": (lambda: ops.ResizeBilinearV2()(X32, (3, 3)), ValueError, r"4-D \(N, C, H, W\) float tensor, but got dtype Float32 and shape \(3, 4\)"),
    "flip dims": (lambda: ops.flip(X32, (0, 2)), ValueError, r"'flip'.*'dims' must be an int or a tuple/list of ints in \[-2, 2\), but got \(0, 2\)"),
    "flip twice": (lambda: ops.flip(X32, (0, -2)), ValueError, r"'dims' must not name an axis twice, but got \(0, -2\)"),
    "roll lengths": (lambda: ops.roll(X32, (1, 2), 0), ValueError, r"'shifts' and 'dims' must have the same length, but got \(1, 2\) and 0"),
    "roll shifts": (lambda: ops.roll(X32, NOT_AN_INT), TypeError, r"'roll'.*'shifts' must be an int or a tuple/list of ints, but got 1.0"),
    "masked_select mask": (lambda: ops.masked_select(X32, X32), TypeError, r"'masked_select'.*'mask' must be a Bool tensor, but got dtype Float32"),
    "masked_select shapes": (lambda: ops.masked_select(X32, X32[:2] > 0), ValueError, r"must broadcast together, but got shapes \(3, 4\) and \(2, 4\)"),
    "meshgrid indexing": (lambda: ops.meshgrid(X32[0], indexing="yx"), ValueError, r"'meshgrid'.*'indexing' must be 'xy' or 'ij', but got 'yx'"),
    "meshgrid rank": (lambda: ops.meshgrid(X32), ValueError, r"'meshgrid'.*one or more 1-D tensors, but got shapes \[\(3, 4\)\]"),
    "linspace steps": (lambda: ops.linspace(0, 1, 0), ValueError, r"'linspace'.*'steps' must be an int > 0, but got 0"),
    "trace rank": (lambda: ops.trace(X32[0]), ValueError, r"'trace'.*2-D, but got shape \(4,\)"),
    "ScatterNd indices": (lambda: ops.ScatterNd()(Tensor(np.array([[4]])), X32[0, :1], (4,)), ValueError, r"'ScatterNd'.*inside the leading axes \(4,\), but got \[\[4\]\]"),
    "ScatterNd updates": (lambda: ops.ScatterNd()(Tensor(np.array([[1]])), X32[0], (4,)), ValueError, r"'ScatterNd'.*'updates' must have shape \(1,\).*but got \(4,\)"),
    "ScatterNd shape": (lambda: ops.ScatterNd()(Tensor(np.array([[1]])), X32[0, :1], 4), TypeError, r"'ScatterNd'.*'shape' must be a tuple or list of positive ints, but got 4"),
    "TensorScatterUpdate float indices": (lambda: ops.TensorScatterUpdate()(X32, Tensor(np.array([[0.0]])), X32[:1]), ValueError, r"'TensorScatterUpdate'.*integer tensor"),
    "TensorScatterElements reduction": (lambda: ops.TensorScatterElements(0, "mul")(X32, Tensor(np.array([[0]])), X32[:1, :1]), ValueError, r"'TensorScatterElements'.*'reduction' must be one of 'none', 'add', but got 'mul'"),
    "set_ps_context key": (lambda: ms.set_ps_context(bogus=1), ValueError, r"'set_ps_context'.*'bogus' is not a parameter-server setting"),
    "set_ps_context type": (lambda: ms.set_ps_context(worker_num="2"), TypeError, r"'worker_num' must be of type 'int', but got '2'"),
    "get_ps_context key": (lambda: ms.get_ps_context("bogus"), ValueError, r"'get_ps_context'.*'attr_key' must be one of"),
    "recompute flag": (lambda: nn.Dense(2, 2).recompute(early_stop=1), TypeError, r"'Cell.recompute'.*'early_stop' must be a bool, but got 1"),
    "Tensor.unique dim": (lambda: X32.unique(dim=2), ValueError, r"'Tensor.unique'.*'dim' must be in \[-2, 2\), but got 2"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_bad_arguments_are_named(name):
    call, kind, message = ERRORS[name]
    with pytest.raises(kind, match=message):
        call()
