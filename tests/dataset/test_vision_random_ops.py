"""The random image operations and random transforms: reproducible under `set_seed`, drawing per image, checked arguments."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cadence.dataset as ds
from cadence.dataset import transforms, vision

RNG = np.random.default_rng(0)
RGB = RNG.integers(0, 256, (12, 10, 3), dtype=np.uint8)
CHW = RNG.random((3, 12, 10)).astype(np.float32)

RANDOM_OPS: dict[str, tuple[Any, np.ndarray]] = {
    "RandomColorAdjust": (lambda: vision.RandomColorAdjust(0.4, 0.4, 0.4, 0.1), RGB),
    "RandomRotation": (lambda: vision.RandomRotation(30), RGB),
    "RandomAffine": (
        lambda: vision.RandomAffine(
            20, translate=(0.2, 0.2), scale=(0.8, 1.2), shear=10
        ),
        RGB,
    ),
    "RandomSharpness": (lambda: vision.RandomSharpness(), RGB),
    "RandomSolarize": (lambda: vision.RandomSolarize((0, 255)), RGB),
    "RandomErasing": (lambda: vision.RandomErasing(prob=1.0, value="random"), CHW),
    "RandomResize": (lambda: vision.RandomResize((7, 9)), RGB),
    "RandomApply": (lambda: transforms.RandomApply([vision.Invert()]), RGB),
    "RandomChoice": (
        lambda: transforms.RandomChoice(
            [vision.Invert(), vision.Equalize(), vision.Grayscale(3)]
        ),
        RGB,
    ),
    "RandomOrder": (
        lambda: transforms.RandomOrder(
            [vision.Invert(), vision.RandomSolarize((100, 100))]
        ),
        RGB,
    ),
}


def eager_runs(op, image, n=16):
    return [op(image) for _ in range(n)]


@pytest.mark.parametrize("name", sorted(RANDOM_OPS))
def test_random_op_is_reproducible_and_varies(name):
    make, image = RANDOM_OPS[name]
    op = make()
    ds.config.set_seed(11)
    first = eager_runs(op, image)
    ds.config.set_seed(11)
    again = eager_runs(op, image)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert any(not np.array_equal(first[0], other) for other in first[1:])


@pytest.mark.parametrize("name", sorted(RANDOM_OPS))
def test_random_op_in_map_draws_per_image(name):
    make, image = RANDOM_OPS[name]
    data = ds.NumpySlicesDataset({"image": np.stack([image] * 6)}, shuffle=False).map(
        make(), "image"
    )
    ds.config.set_seed(3)
    rows = [r[0] for r in data.create_tuple_iterator(output_numpy=True)]
    ds.config.set_seed(3)
    assert all(
        np.array_equal(a, r[0])
        for a, r in zip(
            rows, data.create_tuple_iterator(output_numpy=True), strict=True
        )
    )
    assert (
        len({r.tobytes() for r in rows}) > 1
    )  # six equal inputs, not six equal outputs


def test_solarize_inverts_only_inside_the_drawn_range():
    ramp = np.arange(256, dtype=np.uint8).reshape(16, 16)
    ds.config.set_seed(0)
    for _ in range(10):
        changed = np.flatnonzero(
            vision.RandomSolarize((50, 200))(ramp).ravel() != ramp.ravel()
        )
        changed = changed[
            changed != 127.5
        ]  # (no fixed point: 255 - v == v never holds)
        assert changed.min() >= 50 and (changed.max() <= 200 or changed.max() == 255)
        assert np.all(np.diff(changed) == 1)  # one contiguous run of values


def test_erasing_writes_one_rectangle_of_the_asked_area():
    ds.config.set_seed(5)
    image = np.ones((3, 40, 40), np.float32)
    for _ in range(10):
        erased = (
            vision.RandomErasing(prob=1.0, scale=(0.1, 0.2), value=(0, 0, 0))(image)[0]
            == 0
        )
        rows, cols = np.flatnonzero(erased.any(1)), np.flatnonzero(erased.any(0))
        assert erased.sum() == len(rows) * len(cols)  # a full rectangle
        assert (
            0.05 * 1600 < erased.sum() < 0.3 * 1600
        )  # the share, up to rounding of its sides
    assert np.array_equal(vision.RandomErasing(prob=0.0)(image), image)


def test_random_resize_uses_one_of_the_resize_modes():
    ds.config.set_seed(2)
    modes = [
        vision.Resize((7, 9), m)(RGB)
        for m in (vision.Inter.NEAREST, vision.Inter.LINEAR, vision.Inter.BICUBIC)
    ]
    outputs = [vision.RandomResize((7, 9))(RGB) for _ in range(12)]
    assert all(any(np.array_equal(o, m) for m in modes) for o in outputs)
    assert len({o.tobytes() for o in outputs}) > 1


def test_apply_choice_and_order_compose_their_operations():
    image = np.array([[[10, 200, 30]]], np.uint8)
    assert np.array_equal(
        transforms.RandomApply([vision.Invert()], prob=0.0)(image), image
    )
    assert np.array_equal(
        transforms.RandomApply([vision.Invert(), vision.Invert()], prob=1.0)(image),
        image,
    )
    ds.config.set_seed(1)
    orders = {
        int(transforms.RandomOrder([lambda x: x + 1, lambda x: x * 2])(np.array(1)))
        for _ in range(20)
    }
    assert orders == {3, 4}
    picks = {
        int(transforms.RandomChoice([lambda x: x + 1, lambda x: x + 2])(np.array(0)))
        for _ in range(20)
    }
    assert picks == {1, 2}


def test_rotation_expand_gives_each_image_its_size():
    data = ds.NumpySlicesDataset({"image": np.stack([RGB] * 6)}, shuffle=False)
    rotated = data.map(vision.RandomRotation((0, 20), expand=True), "image")
    ds.config.set_seed(4)
    shapes = {r[0].shape for r in rotated.create_tuple_iterator(output_numpy=True)}
    assert len(shapes) > 1 and all(s[2] == 3 for s in shapes)


def test_affine_translation_moves_the_image():
    image = np.zeros((9, 9), np.uint8)
    image[4, 4] = 255
    moved = vision.RandomAffine(0, translate=(0.0, 0.4, 0.0, 0.0))
    ds.config.set_seed(8)
    for _ in range(5):
        ((row, col),) = np.argwhere(moved(image) == 255)
        assert row == 4 and 4 <= col <= 8


def test_unique_in_a_pipeline_gives_three_columns():
    data = ds.NumpySlicesDataset({"x": np.array([[3, 1, 3], [2, 2, 2]])}, shuffle=False)
    mapped = data.map(transforms.Unique(), "x", ["u", "i", "c"])
    rows = [
        [a.tolist() for a in r] for r in mapped.create_tuple_iterator(output_numpy=True)
    ]
    assert rows == [[[3, 1], [0, 1, 0], [2, 1]], [[2], [0, 0, 0], [3]]]


ERRORS: dict[str, tuple[Any, type[Exception], str]] = {
    "Grayscale channels": (lambda: vision.Grayscale(2), ValueError, "1 or 3"),
    "Grayscale of gray": (
        lambda: vision.Grayscale()(np.zeros((2, 2), np.uint8)),
        RuntimeError,
        "<H, W, C> with C in",
    ),
    "ConvertColor mode": (
        lambda: vision.ConvertColor(4),  # type: ignore[arg-type]
        TypeError,
        "ConvertMode",
    ),
    "ConvertColor channels": (
        lambda: vision.ConvertColor(vision.ConvertMode.COLOR_RGBA2GRAY)(RGB),
        RuntimeError,
        "needs images of 4 channel",
    ),
    "Equalize float": (lambda: vision.Equalize()(CHW), RuntimeError, "must be uint8"),
    "AutoContrast cutoff": (
        lambda: vision.AutoContrast(cutoff=50),
        ValueError,
        r"\[0, 50\)",
    ),
    "AutoContrast ignore": (
        lambda: vision.AutoContrast(ignore=[256]),
        ValueError,
        "'ignore'",
    ),
    "GaussianBlur even": (lambda: vision.GaussianBlur(4), ValueError, "positive odd"),
    "GaussianBlur sigma": (lambda: vision.GaussianBlur(3, 0), ValueError, "'sigma'"),
    "GaussianBlur three sizes": (
        lambda: vision.GaussianBlur((3, 3, 3)),  # type: ignore[arg-type]
        TypeError,
        "sequence of 2",
    ),
    "ColorAdjust negative": (
        lambda: vision.RandomColorAdjust(brightness=-1),
        ValueError,
        "'brightness'",
    ),
    "ColorAdjust hue": (lambda: vision.RandomColorAdjust(hue=0.6), ValueError, "'hue'"),
    "ColorAdjust gray saturation": (
        lambda: vision.RandomColorAdjust(saturation=0.5)(np.zeros((2, 2), np.uint8)),
        RuntimeError,
        "RGB <H, W, 3>",
    ),
    "Sharpness order": (
        lambda: vision.RandomSharpness((1.5, 0.5)),
        ValueError,
        "min <= max",
    ),
    "Solarize range": (
        lambda: vision.RandomSolarize((0, 256)),
        ValueError,
        "'threshold'",
    ),
    "Solarize one value": (
        lambda: vision.RandomSolarize(5),  # type: ignore[arg-type]
        TypeError,
        "pair of ints",
    ),
    "Rotation resample": (
        lambda: vision.RandomRotation(10, resample=vision.Inter.BICUBIC),
        NotImplementedError,
        "NEAREST and Inter.BILINEAR",
    ),
    "Rotation fill": (
        lambda: vision.RandomRotation(10, fill_value=(1, 2)),  # type: ignore[arg-type]
        TypeError,
        "'fill_value'",
    ),
    "Rotation center": (
        lambda: vision.RandomRotation(10, center=5),  # type: ignore[arg-type]
        TypeError,
        "'center'",
    ),
    "Affine degrees": (lambda: vision.RandomAffine((10, 200)), ValueError, "'degrees'"),
    "Affine translate": (
        lambda: vision.RandomAffine(0, translate=(0.1, 0.2, 0.3)),
        TypeError,
        "'translate'",
    ),
    "Affine scale": (
        lambda: vision.RandomAffine(0, scale=(0, 1)),
        ValueError,
        "'scale'",
    ),
    "Erasing value": (
        lambda: vision.RandomErasing(value=(1, 2)),  # type: ignore[arg-type]
        ValueError,
        "'value'",
    ),
    "Erasing ratio": (
        lambda: vision.RandomErasing(ratio=(0, 1)),
        ValueError,
        "'ratio'",
    ),
    "Erasing layout": (
        lambda: vision.RandomErasing()(np.zeros((4, 4), np.float32)),
        RuntimeError,
        "<C, H, W>",
    ),
    "RandomResize size": (lambda: vision.RandomResize(0), ValueError, "'size'"),
    "ToType dtype": (lambda: vision.ToType("text"), TypeError, "'data_type'"),
    "Fill value": (lambda: transforms.Fill([1]), TypeError, "'fill_value'"),
    "Fill string into numbers": (
        lambda: transforms.Fill("a")(np.zeros(2)),
        RuntimeError,
        "cannot fill",
    ),
    "Mask operator": (
        lambda: transforms.Mask("==", 1),  # type: ignore[arg-type]
        TypeError,
        "Relational",
    ),
    "Unique scalar": (
        lambda: transforms.Unique()(np.int32(3)),
        RuntimeError,
        "at least one dimension",
    ),
    "RandomApply prob": (
        lambda: transforms.RandomApply([vision.Invert()], prob=2),
        ValueError,
        "'prob'",
    ),
    "RandomChoice empty": (
        lambda: transforms.RandomChoice([]),
        TypeError,
        "non-empty list of callables",
    ),
    "RandomOrder not callable": (
        lambda: transforms.RandomOrder([3]),  # type: ignore[list-item]
        TypeError,
        "non-empty list of callables",
    ),
}


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [pytest.param(*ERRORS[case], id=case) for case in sorted(ERRORS)],
)
def test_bad_arguments_name_the_problem(make, error, message):
    with pytest.raises(error, match=message):
        make()


@pytest.mark.parametrize(
    "op",
    [
        vision.RandomRotation((45, 45), fill_value=(9, 8, 7)),
        vision.RandomAffine(
            (0, 0), translate=(0.5, 0.5, 0.5, 0.5), fill_value=(9, 8, 7)
        ),
    ],
    ids=["rotation", "affine"],
)
def test_three_fill_values_are_red_green_blue(op):
    # MindSpore 2.10's RandomRotation fills them reversed (docs/mindspore-differences.md)
    corner = op(np.full((5, 5, 3), 100, np.uint8))[0, 0]
    assert corner.tolist() == [9, 8, 7]
