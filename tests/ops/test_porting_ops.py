"""The porting ops against numpy on generated inputs, and their argument errors (MindSpore's classes, our messages).

MindSpore's own results for fixed inputs are in `mindspore_ops.json` (`test_against_mindspore.py`);
these cover what it cannot record: `Tensor.repeat` (Ascend-only in MindSpore 2.10),
`ClipByNorm` over one axis (see docs/mindspore-differences.md) and unsorted `TopK`.
"""

import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given, strategies as st

import cadence as ms
from cadence import Tensor, nn, ops
from cadence.ops.primitive import constexpr
from cadence.train.train_thor import ConvertModelUtils
from tests.helpers.strategies import small_float32_arrays

NOT_A_STR: Any = 2
NOT_A_BOOL: Any = 1
floats = small_float32_arrays(9)


@given(x=floats, data=st.data())
def test_topk_matches_a_stable_sort(x, data):
    dim = data.draw(st.integers(-x.ndim, x.ndim - 1))
    k = data.draw(st.integers(1, x.shape[dim]))
    largest, ordered = data.draw(st.booleans()), data.draw(st.booleans())
    values, indices = ops.topk(Tensor(x), k, dim, largest, ordered)
    order = np.argsort(-x if largest else x, axis=dim, kind="stable").take(
        range(k), axis=dim
    )
    if not ordered:
        order = np.sort(order, axis=dim)
    assert str(indices.dtype) == "Int32"
    np.testing.assert_array_equal(indices.asnumpy(), order)
    np.testing.assert_array_equal(values.asnumpy(), np.take_along_axis(x, order, dim))


@given(x=floats, reps=st.lists(st.integers(0, 3), min_size=3, max_size=4))
def test_tensor_repeat_is_numpys_tile(x, reps):
    np.testing.assert_array_equal(Tensor(x).repeat(*reps).asnumpy(), np.tile(x, reps))
    np.testing.assert_array_equal(Tensor(x).repeat(reps).asnumpy(), np.tile(x, reps))


@given(x=floats, reps=st.lists(st.integers(0, 3), min_size=1, max_size=4))
def test_tile_matches_numpy_and_sums_its_copies_in_the_gradient(x, reps):
    # Fewer dims than axes pad with leading 1s, as MindSpore and numpy do.
    np.testing.assert_array_equal(
        ops.tile(Tensor(x), tuple(reps)).asnumpy(), np.tile(x, reps)
    )
    weights = np.arange(np.tile(x, reps).size, dtype=np.float32).reshape(
        np.tile(x, reps).shape
    )
    grad = ms.grad(lambda t: (ops.tile(t, reps) * Tensor(weights)).sum())(Tensor(x))
    want = np.zeros_like(x)
    # Each output element adds its weight to the input element it copies.
    index = np.tile(np.arange(x.size).reshape(x.shape), reps)
    np.add.at(want.reshape(-1), index.reshape(-1), weights.reshape(-1))
    np.testing.assert_allclose(grad.asnumpy(), want)


@pytest.mark.parametrize(
    ("dims", "error", "says"),
    [
        ((-1, 2), ValueError, "'dims' must be an int >= 0, but got -1"),
        (3, TypeError, "'dims' must be a tuple or list of ints, but got int: 3"),
        ((1.5,), TypeError, "'dims' must be an int >= 0, but got 1.5"),
    ],
)
def test_tile_rejects_bad_dims(dims, error, says):
    with pytest.raises(error, match=re.escape(says)):
        ops.tile(Tensor(np.ones((2, 3), np.float32)), dims)


@given(x=floats, count=st.integers(0, 3))
def test_repeat_interleave_matches_numpy(x, count):
    np.testing.assert_array_equal(
        ops.repeat_interleave(Tensor(x), count).asnumpy(), np.repeat(x, count)
    )
    got = Tensor(x).repeat_interleave(count, -1).asnumpy()
    np.testing.assert_array_equal(got, np.repeat(x, count, axis=-1))


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), [1]])
def test_clip_by_norm_scales_each_slice_to_at_most_the_limit(axis):
    x = np.array([[3.0, 4.0, 0.0], [0.0, 0.0, 1.0]], np.float32)
    got = nn.ClipByNorm(axis)(Tensor(x), Tensor(2.0)).asnumpy()
    axes = (
        None
        if axis is None
        else tuple(axis)
        if isinstance(axis, list | tuple)
        else axis
    )
    norm = np.sqrt((x * x).sum(axis=axes, keepdims=True))
    np.testing.assert_allclose(got, x * 2.0 / np.maximum(norm, 2.0), rtol=1e-6)


ERRORS = {
    "broadcast_to unreachable": (lambda: ops.broadcast_to(Tensor(np.ones((3, 4))), (2, 4)), ValueError, r"'shape' must be reachable from the input's shape \(3, 4\).*\(2, 4\)"),
    "broadcast_to -1 on a new axis": (lambda: ops.broadcast_to(Tensor(np.ones(4)), (-1, 4)), ValueError, r"-1 to keep it\), but got \(-1, 4\)"),
    "broadcast_to shape type": (lambda: ops.broadcast_to(Tensor(np.ones(4)), 4), TypeError, r"'shape' must be of type 'tuple' or 'list'"),
    "repeat too few": (lambda: Tensor(np.ones((2, 2))).repeat(2), ValueError, r"at least as many entries as the tensor has axes \(2\), but got \(2,\)"),
    "repeat negative": (lambda: Tensor(np.ones(2)).repeat(-1), ValueError, r"'repeats' must be an int >= 0, but got -1"),
    "repeat_interleave counts": (lambda: ops.repeat_interleave(Tensor(np.ones((2, 3))), [1, 2], 1), ValueError, r"one such int per slice along axis 1 \(3\), but got \[1, 2\]"),
    "topk k": (lambda: ops.topk(Tensor(np.ones((2, 3))), 4), ValueError, r"'k' must be at most the size of axis 1 \(3\), but got 4"),
    "topk dim": (lambda: ops.topk(Tensor(np.ones((2, 3))), 1, dim=2), ValueError, r"'dim' must be in \[-2, 2\), but got 2"),
    "TopK sorted": (lambda: ops.TopK(sorted=1), TypeError, r"'TopK'.*sorted"),
    "argmax dim": (lambda: ops.argmax(Tensor(np.ones((2, 3))), dim=-3), ValueError, r"'argmax'.*'dim' must be in \[-2, 2\)"),
    "norm ord": (lambda: ops.norm(Tensor(np.ones((2, 3))), "fro", dim=1), ValueError, r"vector norm's 'ord' must be a number, but got 'fro'"),
    "norm matrix ord": (lambda: ops.norm(Tensor(np.ones((2, 3))), 3), ValueError, r"matrix norm's 'ord' must be one of .*but got 3"),
    "norm 3-D ord": (lambda: ops.norm(Tensor(np.ones((2, 2, 2))), 2), ValueError, r"needs a 1-D or 2-D input or a 'dim'.*3-D"),
    "norm dim": (lambda: ops.norm(Tensor(np.ones((2, 3))), dim=(0, 1, 1)), ValueError, r"'dim' must be None, an axis or a pair of axes of the 2-D input"),
    "norm int input": (lambda: ops.norm(Tensor(np.ones(3, np.int32))), TypeError, r"must be a float tensor, but got dtype Int32"),
    "cumsum axis": (lambda: ops.cumsum(Tensor(np.ones(3)), 1), ValueError, r"'cumsum'.*'axis' must be an int in \[-1, 1\), but got 1"),
    "AdaptiveMaxPool2D int size": (lambda: ops.AdaptiveMaxPool2D(2)(Tensor(np.ones((1, 1, 4, 4)))), TypeError, r"'AdaptiveMaxPool2D'.*'output_size' must be a tuple or list.*but got 2"),
    "AdaptiveMaxPool2d size": (lambda: nn.AdaptiveMaxPool2d((0, 2)), ValueError, r"'AdaptiveMaxPool2d'.*'output_size' must be a positive int"),
    "adaptive_max_pool2d rank": (lambda: ops.adaptive_max_pool2d(Tensor(np.ones((4, 4))), 2), ValueError, r"3-D or 4-D, but got shape \(4, 4\)"),
    "ClipByNorm axis": (lambda: nn.ClipByNorm(axis=1.5), TypeError, r"'ClipByNorm'.*'axis' must be None, an int or a tuple/list of ints, but got 1.5"),
    "ClipByNorm clip_norm": (lambda: nn.ClipByNorm()(Tensor(np.ones(2)), 1.0), TypeError, r"'ClipByNorm'.*'clip_norm' must be a Tensor, but got 1.0"),
    "GatherNd out of range": (lambda: ops.GatherNd()(Tensor(np.ones((2, 3))), Tensor(np.array([[2, 0]]))), ValueError, r"'GatherNd'.*inside the input's leading axes \(2, 3\), but got \[\[2, 0\]\]"),
    "GatherNd float indices": (lambda: ops.gather_nd(Tensor(np.ones((2, 3))), Tensor(np.array([[0.0]]))), ValueError, r"'GatherNd'.*integer tensor.*float"),
    "numpy.zeros shape": (lambda: ms.numpy.zeros((2, -1)), ValueError, r"'zeros'.*'shape' must be an int >= 0 or a tuple/list of them, but got \(2, -1\)"),
    "JitConfig level": (lambda: ms.JitConfig(jit_level=NOT_A_STR), TypeError, r"'JitConfig'.*'jit_level' must be of type 'str'"),
    "set_jit_config": (lambda: nn.Dense(2, 2).set_jit_config({"jit_level": "O2"}), TypeError, r"'set_jit_config'.*must be a JitConfig"),
    "set_algo_parameters option": (lambda: ms.parallel.set_algo_parameters(bogus=True), ValueError, r"'set_algo_parameters'.*'bogus' is not an option"),
    "set_algo_parameters bool": (lambda: ms.parallel.set_algo_parameters(fully_use_devices=1), TypeError, r"'fully_use_devices' must be a bool"),
    "THOR": (lambda: ConvertModelUtils().convert_to_thor_model(None, None), NotImplementedError, r"THOR optimizer is not available in cadence"),
    "Flatten order": (lambda: nn.Flatten(2, 1)(Tensor(np.ones((1, 3, 2, 2)))), ValueError, r"'flatten'.*'start_dim' \(2\) must not come after 'end_dim' \(1\)"),
    "Flatten range": (lambda: nn.Flatten()(Tensor(np.ones(3))), ValueError, r"'flatten'.*must lie in \[-1, 1\) for a 1-D input, but got start_dim=1, end_dim=-1"),
    "Flatten type": (lambda: nn.Flatten(1.0), TypeError, r"'Flatten'.*'start_dim' must be an int, but got 1.0"),  # type: ignore[arg-type]
    "flatten order": (lambda: ops.flatten(Tensor(np.ones((2, 2))), "F"), ValueError, r"'order' must be 'C' on cadence, but got 'F'"),
    "constexpr": (lambda: constexpr(3), TypeError, r"'constexpr'.*'fn' must be callable, but got 3"),
    "arange step 0": (lambda: ops.arange(0, 3, 0), ValueError, r"'arange'.*'step' must not be 0"),
    "arange direction": (lambda: ops.arange(3, 1), ValueError, r"'arange'.*'step' must be negative to go from start=3 to end=1, but got 1"),
    "arange type": (lambda: ops.arange("3"), TypeError, r"'arange'.*'end' must be an int, a float or a one-element Tensor, but got '3'"),
    "linspace steps": (lambda: ops.linspace(0, 1, 0), ValueError, r"'linspace'.*'steps'"),
    "eye n": (lambda: ops.eye(-1), ValueError, r"'eye'.*'n' must be an int >= 0, but got -1"),
    "full size": (lambda: ops.full((2, -1), 1), ValueError, r"'full'.*'size'"),
    "full value": (lambda: ops.full((2,), "a"), TypeError, r"'full'.*'fill_value' must be a bool, an int, a float or a 0-d Tensor, but got 'a'"),
    "clamp no bound": (lambda: ops.clamp(Tensor(np.ones(2))), ValueError, r"'clamp'.*at least one of the arguments 'min' and 'max'"),
    "tril rank": (lambda: ops.tril(Tensor(np.ones(3))), ValueError, r"'tril'.*at least 2 dimensions, but got shape \(3,\)"),
    "triu diagonal": (lambda: ops.triu(Tensor(np.ones((2, 2))), 1.0), TypeError, r"'triu'.*'diagonal' must be an int, but got 1.0"),  # type: ignore[arg-type]
    "gather_elements dim": (lambda: ops.gather_elements(Tensor(np.ones((2, 3))), 2, Tensor(np.zeros((2, 3), np.int32))), ValueError, r"'gather_elements'.*'dim' must be an int in \[-2, 1\], but got 2"),
    "gather_elements float index": (lambda: ops.GatherD()(Tensor(np.ones((2, 3))), 1, Tensor(np.zeros((2, 3)))), TypeError, r"'index' must be an Int32 or Int64 tensor, but got Float64"),
    "gather_elements index range": (lambda: ops.gather_elements(Tensor(np.ones((2, 3))), 1, Tensor(np.array([[0, 3]]))), ValueError, r"'index' must be in \[-3, 3\) \(axis 1 of the input\), but got 0 to 3"),
    "gather_elements index shape": (lambda: Tensor(np.ones((2, 3))).gather_elements(1, Tensor(np.zeros((3, 1), np.int32))), ValueError, r"no larger than its shape \(2, 3\) off the gathered axis, but got shape \(3, 1\)"),
    "max where without initial": (lambda: ops.max(Tensor(np.ones((2, 3))), 1, where=Tensor(np.ones(3, bool))), ValueError, r"'max'.*'initial' must be given with 'where'"),
    "min keepdims": (lambda: ops.min(Tensor(np.ones((2, 3))), 1, NOT_A_BOOL), TypeError, r"'min'.*'keepdims' must be a bool, but got 1"),
    "max input": (lambda: ops.max(np.ones(3)), TypeError, r"'max'.*'input' must be of type 'Tensor'"),
    "chunk chunks": (lambda: ops.chunk(Tensor(np.ones(3)), 0), ValueError, r"'chunk'.*'chunks' must be an int > 0, but got 0"),
    "chunk 0-D": (lambda: ops.chunk(Tensor(1.0), 1), ValueError, r"'chunk'.*at least one axis"),
    "tensor_dot sizes": (lambda: ops.tensor_dot(Tensor(np.ones((3, 4))), Tensor(np.ones((2, 3))), 1), ValueError, r"'tensor_dot'.*equal sizes, but got \(3, 4\) and \(2, 3\) contracted over \[1\] and \[0\]"),
    "tensor_dot axes": (lambda: ops.tensor_dot(Tensor(np.ones((3, 4))), Tensor(np.ones((4, 3))), ((1,), (0, 1))), ValueError, r"'tensor_dot'.*one length"),
    "tensor_dot negative axes": (lambda: ops.tensor_dot(Tensor(np.ones((3, 4))), Tensor(np.ones((4, 3))), -1), ValueError, r"'axes' must be in \[0, 2\], but got -1"),
    "tensor_dot dtypes": (lambda: ops.tensor_dot(Tensor(np.ones((3, 4), np.float32)), Tensor(np.ones((4, 3), np.float16)), 1), TypeError, r"one dtype, but got Float32 and Float16"),
    "isclose dtypes": (lambda: ops.isclose(Tensor(np.ones(2, np.float32)), Tensor(np.ones(2))), TypeError, r"'isclose'.*one dtype, but got Float32 and Float64"),
    "isclose other": (lambda: ops.isclose(Tensor(np.ones(2)), 1.0), TypeError, r"'isclose'.*'other' must be of type 'Tensor'"),
    "mse_loss reduction": (lambda: ops.mse_loss(Tensor(np.ones(2)), Tensor(np.ones(2)), "avg"), ValueError, r"'mse_loss'.*'reduction' must be one of 'mean', 'sum', 'none', but got 'avg'"),
    "addn empty": (lambda: ops.addn([]), ValueError, r"'AddN'.*at least one Tensor, but got \[\]"),
    "addn shapes": (lambda: ops.AddN()((Tensor(np.ones((2, 3))), Tensor(np.ones((3, 2))))), ValueError, r"'AddN'.*shape \(2, 3\).*but got shape \(3, 2\)"),
    "addn a tensor": (lambda: ops.addn(Tensor(np.ones(2))), TypeError, r"'AddN'.*'x' must be a tuple or list of Tensors"),
    "full_like input": (lambda: ops.full_like(np.ones(2), 1), TypeError, r"'full_like'.*'input' must be a Tensor, but got 'ndarray'"),
    "L2Loss int": (lambda: ops.L2Loss()(Tensor(np.ones(2, np.int32))), TypeError, r"'L2Loss'.*Float16, Float32 or Float64 tensor, but got Int32"),
    "BCELoss labels shape": (lambda: nn.BCELoss()(Tensor(np.ones((2, 3)) / 2), Tensor(np.ones(3))), ValueError, r"'binary_cross_entropy'.*'labels' must have the shape of the input \(2, 3\), but got \(3,\)"),
    "BCELoss int input": (lambda: ops.binary_cross_entropy(Tensor(np.ones(2, np.int32)), Tensor(np.ones(2, np.int32))), TypeError, r"'logits' must be a float tensor, but got Int32"),
    "BCELoss weight": (lambda: nn.BCELoss(weight=[1.0]), TypeError, r"'BCELoss'.*'weight' must be of type 'Tensor'"),
    "HuberLoss delta": (lambda: nn.HuberLoss(delta=0.0), ValueError, r"'HuberLoss'.*'delta' must be in \(0.0, inf\), but got 0.0"),
    "huber_loss reduction": (lambda: ops.huber_loss(Tensor(np.ones(2)), Tensor(np.ones(2)), "avg"), ValueError, r"'huber_loss'.*'reduction' must be one of"),
    "CosineEmbeddingLoss margin": (lambda: nn.CosineEmbeddingLoss(2.0), ValueError, r"'margin' must be in \[-1.0, 1.0\], but got 2.0"),
    "CosineEmbeddingLoss target": (lambda: nn.CosineEmbeddingLoss()(Tensor(np.ones((2, 3))), Tensor(np.ones((2, 3))), Tensor(np.ones((2, 3)))), ValueError, r"'target' their shape without it, but got \(2, 3\) and \(2, 3\)"),
    "FocalLoss labels rank": (lambda: nn.FocalLoss()(Tensor(np.ones((2, 3))), Tensor(np.zeros(2, np.int32))), ValueError, r"'FocalLoss'.*one rank in \[2, 4\], but got shapes \(2, 3\) and \(2,\)"),
    "FocalLoss classes": (lambda: nn.FocalLoss()(Tensor(np.ones((2, 3))), Tensor(np.zeros((2, 2), np.int32))), ValueError, r"'labels' 1 or as many, but got shapes \(2, 3\) and \(2, 2\)"),
    "FocalLoss weight": (lambda: nn.FocalLoss(Tensor(np.ones((2, 3)))), ValueError, r"'FocalLoss'.*'weight' must be 1-D, but got shape \(2, 3\)"),
    "AvgPool1d kernel": (lambda: nn.AvgPool1d(0), ValueError, r"'AvgPool1d'.*'kernel_size' must be an int >= 1, but got 0"),
    "AvgPool1d pad_mode": (lambda: nn.AvgPool1d(2, pad_mode="full"), ValueError, r"'AvgPool1d'.*'pad_mode' must be one of 'valid', 'same', 'pad', but got 'full'"),
    "AvgPool1d padding mode": (lambda: nn.AvgPool1d(3, padding=1), ValueError, r"'padding' must be 0 unless pad_mode is 'pad', but got 1"),
    "avg_pool1d padding": (lambda: ops.avg_pool1d(Tensor(np.ones((1, 1, 5))), 2, 1, 2), ValueError, r"'avg_pool1d'.*at most half the kernel \(1\), but got 2"),
    "AvgPool1d rank": (lambda: nn.AvgPool1d(2)(Tensor(np.ones((1, 1, 2, 5)))), ValueError, r"2-D \(C, L\) or 3-D \(N, C, L\), but got shape \(1, 1, 2, 5\)"),
    "MaxPool1d too short": (lambda: nn.MaxPool1d(4)(Tensor(np.ones((1, 1, 3)))), ValueError, r"'MaxPool1d'.*input length 3 is shorter than the window \(4"),
    "MaxPool1d return_indices mode": (lambda: nn.MaxPool1d(2, return_indices=True), ValueError, r"'MaxPool1d'.*need pad_mode 'pad', but got pad_mode 'valid'"),
    "PixelShuffle factor": (lambda: nn.PixelShuffle(0), ValueError, r"'PixelShuffle'.*'upscale_factor' must be an int >= 1, but got 0"),
    "pixel_shuffle channels": (lambda: ops.pixel_shuffle(Tensor(np.ones((1, 8, 2, 2))), 3), ValueError, r"divisible by upscale_factor\*\*2 = 9, but got shape \(1, 8, 2, 2\)"),
    "Upsample nothing": (lambda: nn.Upsample(), ValueError, r"'Upsample'.*one of the arguments 'size' and 'scale_factor'"),
    "Upsample mode": (lambda: nn.Upsample(2, mode="cubic"), ValueError, r"'Upsample'.*'mode' must be one of"),
    "sum dim": (lambda: ops.sum(Tensor(np.ones((2, 3))), dim=2), TypeError, r"'sum'.*'dim' must be None, an int or a tuple of ints in \[-2, 2\), but got 2"),
    "sum keepdim": (lambda: ops.sum(Tensor(np.ones(2)), keepdim=1), TypeError, r"'sum'.*'keepdim' must be a bool"),  # type: ignore[arg-type]
    "pad odd widths": (lambda: ops.pad(Tensor(np.ones((2, 3))), (1,)), ValueError, r"'pad'.*even number of ints, at most 4 for a 2-d input, but got 1"),
    "pad width type": (lambda: ops.pad(Tensor(np.ones(3)), (1.0, 1)), TypeError, r"'pad'.*'padding' must be a tuple or list of ints, but got \(1.0, 1\)"),
    "pad mode": (lambda: ops.pad(Tensor(np.ones(3)), (1, 1), mode="edge"), ValueError, r"'pad'.*'mode' must be one of \['circular', 'constant', 'reflect', 'replicate'\], but got 'edge'"),
    "pad reflect width": (lambda: ops.pad(Tensor(np.ones(3)), (3, 0), mode="reflect"), ValueError, r"'pad'.*'reflect' mode needs each width less than the axis length 3, but got \(3, 0\)"),
    "pad value with reflect": (lambda: ops.pad(Tensor(np.ones(3)), (1, 1), mode="reflect", value=1.0), ValueError, r"'pad'.*'value' applies to mode 'constant' only"),
    "MaxPool2d padding without pad mode": (lambda: nn.MaxPool2d(3, 2, padding=1), ValueError, r"'MaxPool2d'.*'padding' must be 0 \(other values are not supported\), but got 1"),
    "MaxPool2d padding over half the kernel": (lambda: nn.MaxPool2d(3, 2, pad_mode="pad", padding=2), ValueError, r"'MaxPool2d'.*'padding'.*from 0 to half the kernel size \(3, 3\), but got 2"),
    "AvgPool2d padding": (lambda: nn.AvgPool2d(3, 2, padding=1), ValueError, r"'AvgPool2d'.*'padding' must be 0"),
    "Softmax axes": (lambda: ops.Softmax(axis=(0, 1))(Tensor(np.ones((2, 2)))), ValueError, r"'Softmax'.*'axis' must be an int or a tuple of one int, but got \(0, 1\)"),
}  # fmt: skip


def test_model_zoo_idioms_run_eagerly():
    @constexpr
    def doubled(n):
        return (n, 2 * n)

    @constexpr(reuse_result=False)
    def shifted(n):
        return n + 1

    assert (doubled(3), shifted(3)) == ((3, 6), 4)
    dense = nn.Dense(2, 3)
    assert dense.init_parameters_data() == {p: p for p in dense.get_parameters()}
    dense.set_jit_config(ms.JitConfig(jit_level="O2"))
    ms.parallel.set_algo_parameters(elementwise_op_strategy_follow=True)
    assert ms.parallel.get_algo_parameters("elementwise_op_strategy_follow") is True
    ms.parallel.set_algo_parameters(elementwise_op_strategy_follow=False)
    assert getattr(dense, "jit_config_dict")["jit_level"] == "O2"  # noqa: B009 (recorded only)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_bad_arguments_are_named(name):
    call, kind, message = ERRORS[name]
    with pytest.raises(kind, match=message):
        call()
