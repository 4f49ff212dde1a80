from __future__ import annotations

import math

import numpy as np
import pytest

import cadence
import cadence.dataset as ds
from cadence.dataset import transforms, vision

RNG = np.random.default_rng(0)


def reference_resize(
    image: np.ndarray, out_h: int, out_w: int, mode: vision.Inter
) -> np.ndarray:
    """Per-pixel OpenCV-style resize, written out loop by loop."""
    h, w = image.shape[:2]
    out = np.zeros((out_h, out_w, *image.shape[2:]), dtype=np.float64)
    for i in range(out_h):
        for j in range(out_w):
            if mode == vision.Inter.NEAREST:
                out[i, j] = image[
                    min(math.floor(i * h / out_h), h - 1),
                    min(math.floor(j * w / out_w), w - 1),
                ]
                continue
            sy = min(max((i + 0.5) * h / out_h - 0.5, 0.0), h - 1)
            sx = min(max((j + 0.5) * w / out_w - 0.5, 0.0), w - 1)
            y0, x0 = int(sy), int(sx)
            y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
            fy, fx = sy - y0, sx - x0
            top = image[y0, x0] * (1 - fx) + image[y0, x1] * fx
            bottom = image[y1, x0] * (1 - fx) + image[y1, x1] * fx
            out[i, j] = top * (1 - fy) + bottom * fy
    return out


# --- Rescale ---------------------------------------------------------------------------
def test_rescale():
    out = vision.Rescale(1.0 / 255.0, -0.5)(np.array([0, 255], np.uint8))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [-0.5, 0.5])


def test_rescale_accepts_tensors():
    np.testing.assert_allclose(
        vision.Rescale(2.0, 0)(cadence.Tensor(np.ones(2, np.float32))), [2.0, 2.0]
    )


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (("1", 0), "'rescale' must be a number"),
        ((1.0, None), "'shift' must be a number"),
    ],
)
def test_rescale_errors(args, match):
    with pytest.raises(TypeError, match=match):
        vision.Rescale(*args)


# --- Normalize -------------------------------------------------------------------------
def test_normalize_per_channel_hwc_and_chw():
    image = RNG.random((4, 5, 3)).astype(np.float32)
    mean, std = (0.1, 0.2, 0.3), (0.5, 0.25, 2.0)
    expected = (image - np.array(mean)) / np.array(std)
    np.testing.assert_allclose(
        vision.Normalize(mean, std)(image), expected, rtol=1e-6, atol=1e-6
    )
    chw = vision.Normalize(list(mean), list(std), is_hwc=False)(
        image.transpose(2, 0, 1)
    )
    np.testing.assert_allclose(chw, expected.transpose(2, 0, 1), rtol=1e-6, atol=1e-6)


def test_normalize_gray_images_and_one_value_for_all_channels():
    assert vision.Normalize((1.0,), (2.0,))(np.full((2, 2), 5, np.uint8)).tolist() == [
        [2.0, 2.0],
        [2.0, 2.0],
    ]
    out = vision.Normalize((1.0,), (2.0,))(np.full((2, 2, 3), 5.0))
    assert out.dtype == np.float32
    assert (out == 2.0).all()


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (
            ((0.5,), (0.5, 0.5)),
            {},
            ValueError,
            "'mean' and 'std' must have the same length, but got 1 and 2",
        ),
        (
            ((300.0,), (1.0,)),
            {},
            ValueError,
            r"every value of 'mean' must be in \[0, 255\]",
        ),
        (
            ((0.5,), (0.0,)),
            {},
            ValueError,
            r"every value of 'std' must be in \(0, 255\]",
        ),
        (
            (0.5, (0.5,)),
            {},
            TypeError,
            "'mean' must be a non-empty list or tuple of numbers, but got 0.5",
        ),
        (((0.5,), ("a",)), {}, TypeError, "'std' must be a number, but got 'a'"),
        (((0.5,), (0.5,)), {"is_hwc": "yes"}, TypeError, "'is_hwc' must be a bool"),
    ],
)
def test_normalize_argument_errors(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        vision.Normalize(*args, **kwargs)


def test_normalize_channel_mismatch_and_bad_rank_fail_when_applied():
    with pytest.raises(
        RuntimeError,
        match="the image has 3 channels, but 'mean' and 'std' have 2 values",
    ):
        vision.Normalize((0.1, 0.2), (1.0, 1.0))(np.zeros((2, 2, 3)))
    with pytest.raises(
        RuntimeError,
        match=r"Normalize: the image must have shape <H, W> or <H, W, C>, but got shape \(4,\)",
    ):
        vision.Normalize((0.1,), (1.0,))(np.zeros(4))


# --- HWC2CHW ---------------------------------------------------------------------------
def test_hwc2chw():
    image = np.arange(24).reshape(2, 3, 4)
    out = vision.HWC2CHW()(image)
    assert out.shape == (4, 2, 3)
    assert np.array_equal(out, image.transpose(2, 0, 1))
    assert out.flags.c_contiguous
    gray = np.zeros((5, 6))
    assert vision.HWC2CHW()(gray).shape == (5, 6)
    with pytest.raises(
        RuntimeError,
        match=r"HWC2CHW: the image must have shape <H, W> or <H, W, C>, but got shape \(1, 2, 3, 4\)",
    ):
        vision.HWC2CHW()(np.zeros((1, 2, 3, 4)))
    assert repr(vision.HWC2CHW()) == "HWC2CHW()"


# --- Resize ----------------------------------------------------------------------------
@pytest.mark.parametrize("mode", [vision.Inter.LINEAR, vision.Inter.NEAREST])
@pytest.mark.parametrize(
    ("shape", "size"), [((7, 9, 3), (4, 5)), ((5, 6), (11, 3)), ((8, 8, 1), (8, 16))]
)
def test_resize_matches_the_per_pixel_reference(mode, shape, size):
    image = RNG.random(shape) * 100
    out = vision.Resize(size, mode)(image)
    assert out.dtype == image.dtype
    np.testing.assert_allclose(
        out, reference_resize(image, size[0], size[1], mode), rtol=1e-10, atol=1e-10
    )


def test_resize_uint8_rounds_and_keeps_dtype():
    image = RNG.integers(0, 256, (9, 7, 3), dtype=np.uint8)
    out = vision.Resize((5, 4))(image)
    assert out.dtype == np.uint8
    expected = np.clip(
        np.rint(reference_resize(image.astype(np.float64), 5, 4, vision.Inter.LINEAR)),
        0,
        255,
    )
    assert np.abs(out.astype(int) - expected).max() <= 1


def test_resize_one_int_resizes_the_shorter_side():
    assert vision.Resize(14)(np.zeros((28, 56, 1), np.uint8)).shape == (14, 28, 1)
    assert vision.Resize([7])(np.zeros((21, 14))).shape == (10, 7)
    assert vision.Resize(4, vision.Inter.BILINEAR)(np.zeros((8, 8))).shape == (4, 4)


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((0,), ValueError, "every value of 'size' must be positive"),
        (((1, 2, 3),), TypeError, "'size' must be an int or a sequence of 1 or 2 ints"),
        ((2.5,), TypeError, "'size' must be an int"),
        (
            (4, 2),
            TypeError,
            "'interpolation' must be of type 'Inter', but got 2 of type 'int'",
        ),
        (
            (4, vision.Inter.AREA),
            NotImplementedError,
            r"Inter.AREA.* is not supported by cadence yet; use one of \['NEAREST', 'LINEAR', 'CUBIC'\]",
        ),
    ],
)
def test_resize_argument_errors(args, error, match):
    with pytest.raises(error, match=match):
        vision.Resize(*args)


# --- TypeCast, OneHot, Compose -----------------------------------------------------------
@pytest.mark.parametrize(
    ("dtype", "expected"),
    [
        (cadence.int32, np.int32),
        (np.float16, np.float16),
        ("int16", np.int16),
        (bool, np.bool_),
    ],
)
def test_typecast_accepts_cadence_and_numpy_dtypes(dtype, expected):
    assert transforms.TypeCast(dtype)(np.array([0, 1, 2], np.uint32)).dtype == expected


@pytest.mark.parametrize("bad", ["text", None, 3, object])
def test_typecast_rejects_non_numeric_dtypes(bad):
    with pytest.raises(
        TypeError, match=r"'data_type' must be a numeric dtype such as cadence\.int32"
    ):
        transforms.TypeCast(bad)


def test_onehot():
    assert transforms.OneHot(3)(np.array([2, 0])).tolist() == [[0, 0, 1], [1, 0, 0]]
    smoothed = transforms.OneHot(4, smoothing_rate=0.2)(np.array(1))
    np.testing.assert_allclose(smoothed, [0.05, 0.85, 0.05, 0.05], rtol=1e-6)
    with pytest.raises(
        RuntimeError, match=r"labels must be in \[0, 3\), but got values from 0 to 3"
    ):
        transforms.OneHot(3)(np.array([0, 3]))
    with pytest.raises(
        ValueError, match=r"'smoothing_rate' must be in \[0.0, 1.0\], but got 2"
    ):
        transforms.OneHot(3, 2)
    with pytest.raises(RuntimeError, match="labels must be integers"):
        transforms.OneHot(3)(np.array([0.5]))


def test_compose_chains_operations_and_python_callables():
    op = transforms.Compose([vision.Rescale(0.5, 0), lambda x: x + 1, vision.HWC2CHW()])
    assert op(np.full((2, 2, 1), 4, np.uint8)).tolist() == [[[3.0, 3.0], [3.0, 3.0]]]
    with pytest.raises(
        TypeError, match="'transforms' must be a non-empty list of callables"
    ):
        transforms.Compose([])


def test_operations_take_one_column():
    with pytest.raises(
        TypeError, match="Rescale takes exactly one input column, but got 2"
    ):
        vision.Rescale(1, 0)(np.zeros(2), np.zeros(2))


# --- the same results eagerly and inside a pipeline -----------------------------------------
PIPELINE_OPS = [
    [vision.Rescale(1 / 255, 0.1)],
    [vision.Normalize((10.0, 20.0, 30.0), (2.0, 3.0, 4.0))],
    [
        vision.HWC2CHW(),
        vision.Normalize((1.0, 2.0, 3.0), (1.0, 1.0, 1.0), is_hwc=False),
    ],
    [vision.Resize((3, 4))],
    [vision.Resize(5, vision.Inter.NEAREST), transforms.TypeCast(np.float32)],
    [transforms.Compose([vision.Rescale(2, 0), vision.HWC2CHW()])],
    [transforms.Compose([vision.Rescale(2, 0), np.flipud])],
]


@pytest.mark.parametrize("ops", PIPELINE_OPS)
def test_map_then_batch_equals_eager_per_image(ops):
    images = RNG.integers(0, 256, (10, 6, 7, 3), dtype=np.uint8)
    data = (
        ds.NumpySlicesDataset({"image": images}, shuffle=False)
        .map(ops, "image")
        .batch(4)
    )
    got = np.concatenate([b[0] for b in data.create_tuple_iterator(output_numpy=True)])
    expected = []
    for image in images:
        out = image
        for op in ops:
            out = op(out)
        expected.append(out)
    np.testing.assert_array_equal(got, np.stack(expected))
