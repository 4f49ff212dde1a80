"""Crops, flips, ToTensor: one image eagerly, and a block of images inside `map`."""

from __future__ import annotations

import numpy as np
import pytest

import cadence.dataset as ds
from cadence.dataset import vision

IMAGE = np.arange(5 * 6 * 3, dtype=np.uint8).reshape(5, 6, 3)


def mapped(images: np.ndarray, transform: object) -> np.ndarray:
    """`transform` applied inside `map` to each of `images`, read back as one numpy batch."""
    data = ds.NumpySlicesDataset({"image": images}, shuffle=False)
    batches = data.map(transform, "image").batch(len(images))
    return np.asarray(next(batches.create_tuple_iterator(output_numpy=True))[0])


def test_random_crop_of_the_padded_size_shows_the_padding_layout():
    # (left, top, right, bottom) = (1, 2, 0, 1): a crop as large as the padded image is all of it
    out = vision.RandomCrop((8, 7), padding=(1, 2, 0, 1))(IMAGE)
    assert out.shape == (8, 7, 3)
    assert np.array_equal(out[2:7, 1:, :], IMAGE)
    assert not out[:2].any() and not out[7].any() and not out[:, 0].any()
    both = vision.RandomCrop((7, 8), padding=(1, 1))(IMAGE)  # (left/right, top/bottom)
    assert np.array_equal(both[1:6, 1:7], IMAGE)
    filled = vision.RandomCrop((7, 8), padding=1, fill_value=(9, 8, 7))(IMAGE)
    assert filled[0, 0].tolist() == [9, 8, 7]
    reflect = vision.RandomCrop((7, 8), padding=1, padding_mode=vision.Border.REFLECT)(
        IMAGE
    )
    assert reflect[:, :, 0].tolist()[0] == [
        21,
        18,
        21,
        24,
        27,
        30,
        33,
        30,
    ]  # MindSpore's output


def test_random_crop_windows_are_inside_and_vary():
    ds.config.set_seed(1)
    crops = {vision.RandomCrop(3)(IMAGE).tobytes() for _ in range(40)}
    windows = {
        IMAGE[t : t + 3, c : c + 3].tobytes() for t in range(3) for c in range(4)
    }
    assert crops <= windows
    assert len(crops) > 5
    with pytest.raises(
        RuntimeError, match=r"crop size \(9, 9\) is bigger than the image \(5, 6\)"
    ):
        vision.RandomCrop(9)(IMAGE)
    padded = vision.RandomCrop(9, pad_if_needed=True)(IMAGE)
    assert padded.shape == (9, 9, 3)
    assert (
        padded.sum() == IMAGE.astype(int).sum()
    )  # padding is zeros, the image is whole


def test_random_crop_in_map_draws_a_window_per_image():
    ds.config.set_seed(2)
    images = np.stack([IMAGE + i for i in range(16)])
    out = mapped(images, vision.RandomCrop(2))
    offsets = set()
    for i in range(16):
        base = IMAGE + i
        hits = [
            (t, c)
            for t in range(4)
            for c in range(5)
            if np.array_equal(base[t : t + 2, c : c + 2], out[i])
        ]
        assert hits, i
        offsets.add(hits[0])
    assert len(offsets) > 3


def test_center_crop_and_its_padding():
    assert vision.CenterCrop((3, 3))(IMAGE)[:, :, 0].tolist() == [
        [21, 24, 27],
        [39, 42, 45],
        [57, 60, 63],
    ]
    big = vision.CenterCrop((7, 9))(IMAGE)
    assert np.array_equal(big[1:6, 2:8], IMAGE)  # the odd column of padding goes left
    assert vision.CenterCrop(2)(np.arange(25).reshape(5, 5)).tolist() == [
        [6, 7],
        [11, 12],
    ]
    batch = np.stack([IMAGE, IMAGE + 1])
    out = mapped(batch, vision.CenterCrop(3))
    assert np.array_equal(out[1], IMAGE[1:4, 1:4] + 1)


def test_flips():
    assert np.array_equal(vision.RandomHorizontalFlip(1.0)(IMAGE), IMAGE[:, ::-1])
    assert np.array_equal(vision.RandomHorizontalFlip(0.0)(IMAGE), IMAGE)
    assert np.array_equal(vision.RandomVerticalFlip(1.0)(IMAGE), IMAGE[::-1])
    ds.config.set_seed(3)
    images = np.stack([IMAGE] * 64)
    out = mapped(images, vision.RandomHorizontalFlip())
    flipped = [np.array_equal(o, IMAGE[:, ::-1]) for o in out]
    assert all(f or np.array_equal(o, IMAGE) for f, o in zip(flipped, out, strict=True))
    assert 10 < sum(flipped) < 54
    with pytest.raises(ValueError, match=r"'prob' must be in \[0.0, 1.0\], but got 2"):
        vision.RandomHorizontalFlip(2)


def test_to_tensor():
    out = vision.ToTensor()(IMAGE)
    assert out.shape == (3, 5, 6) and out.dtype == np.float32
    assert np.allclose(out, IMAGE.transpose(2, 0, 1) / 255.0)
    assert vision.ToTensor()(IMAGE[:, :, 0]).shape == (1, 5, 6)
    batch = mapped(np.stack([IMAGE] * 3), vision.ToTensor())
    assert np.array_equal(batch[2], out)


def test_argument_errors():
    with pytest.raises(
        ValueError, match=r"'padding' must be an int or a sequence of 2 or 4 ints"
    ):
        vision.RandomCrop(3, padding=(1, 2, 3))  # MindSpore's class: a ValueError
    with pytest.raises(TypeError, match=r"'padding' must be an int or a sequence"):
        vision.RandomCrop(3, padding="4")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'padding' must be >= 0"):
        vision.RandomCrop(3, padding=-1)
    with pytest.raises(ValueError, match="'fill_value' must be an int in"):
        vision.RandomCrop(3, fill_value=300)
    with pytest.raises(TypeError, match="'fill_value' must be an int in"):
        vision.RandomCrop(3, fill_value=1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="'padding_mode' must be a Border"):
        vision.RandomCrop(3, padding_mode="edge")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="every value of 'size' must be positive"):
        vision.CenterCrop(0)


def test_old_module_spellings():
    import cadence.dataset.transforms.c_transforms as c2
    import cadence.dataset.vision.c_transforms as c_vision
    import cadence.dataset.vision.py_transforms as py_vision

    assert c_vision.RandomCrop is vision.RandomCrop
    assert c2.TypeCast is ds.transforms.TypeCast
    chw = py_vision.ToTensor()(IMAGE)
    normalized = py_vision.Normalize(mean=(0.5, 0.5, 0.5), std=(0.5, 0.5, 0.5))(chw)
    assert np.allclose(normalized, (chw - 0.5) / 0.5)


def test_random_resized_crop_matches_mindspore_where_it_is_deterministic():
    wide = (np.arange(10 * 100 * 3) % 251).astype(np.uint8).reshape(10, 100, 3)
    # no 10x10-pixel-area window of aspect 1 covering the whole image fits: the central one
    out = vision.RandomResizedCrop((10, 10), scale=(1.0, 1.0), ratio=(1.0, 1.0))(wide)
    assert np.array_equal(out, wide[:, 45:55])
    image = (np.arange(20 * 30 * 3) % 251).astype(np.uint8).reshape(20, 30, 3)
    whole = vision.RandomResizedCrop((10, 12), scale=(1.0, 1.0), ratio=(1.5, 1.5))(
        image
    )
    assert np.array_equal(whole, vision.Resize((10, 12))(image))


def test_random_resized_crop_in_map_and_decoding():
    import io

    from PIL import Image

    ds.config.set_seed(4)
    images = np.stack([IMAGE] * 8)
    out = mapped(images, vision.RandomResizedCrop(4))
    assert out.shape == (8, 4, 4, 3)
    assert len({o.tobytes() for o in out}) > 1  # every image its own window
    buffer = io.BytesIO()
    Image.fromarray(IMAGE).save(buffer, format="PNG")
    encoded = np.frombuffer(buffer.getvalue(), np.uint8)
    assert vision.RandomCropDecodeResize((3, 2))(encoded).shape == (3, 2, 3)
    with pytest.raises(
        ValueError, match=r"'scale' must be \(min, max\) with min <= max"
    ):
        vision.RandomResizedCrop(4, scale=(1.0, 0.5))
    with pytest.raises(ValueError, match=r"'ratio' must be in \(0.0, inf\)"):
        vision.RandomResizedCrop(4, ratio=(0, 1))
    with pytest.raises(NotImplementedError, match="interpolation"):
        vision.RandomResizedCrop(4, interpolation=vision.Inter.AREA)


def test_bicubic_resize_matches_mindspore():
    # reference outputs printed by MindSpore 2.10 (OpenCV's cubic convolution) for these inputs
    f = (np.arange(12, dtype=np.float32).reshape(3, 4) ** 2) / 10
    expected = [
        [-0.15561, -0.16293, -0.1037, 0.02443, 0.32532, 0.55273],
        [0.24458, 0.39978, 0.72489, 1.04224, 1.60903, 1.99895],
        [1.52188, 1.94688, 2.71343, 3.34491, 4.35312, 5.01285],
        [4.52718, 5.22198, 6.42996, 7.37558, 8.82523, 9.75475],
        [6.70656, 7.56387, 9.03775, 10.17258, 11.88812, 12.98016],
    ]
    out = vision.Resize((5, 6), vision.Inter.BICUBIC)(f)
    np.testing.assert_allclose(out, expected, atol=2e-5)
    u = np.arange(16, dtype=np.uint8).reshape(4, 4) * 16
    down = vision.Resize((2, 3), vision.Inter.BICUBIC)(u)
    assert np.abs(down.astype(int) - [[28, 50, 72], [168, 190, 212]]).max() <= 1
    assert (
        vision.Resize((6, 6), vision.Inter.CUBIC)(np.full((3, 3), 7, np.uint8)).tolist()
        == [[7] * 6] * 6
    )


# --- Pad and CutOut (expected values observed on MindSpore 2.10) ----------------------------
PADS = [
    (2, {}, np.arange(12, dtype=np.uint8).reshape(2, 2, 3), (6, 6, 3)),
    ([1, 2], {"fill_value": (7, 8, 9)}, np.zeros((1, 1, 3), np.uint8), (5, 3, 3)),
    ([1, 0, 2, 3], {"padding_mode": vision.Border.EDGE}, np.arange(4, dtype=np.uint8).reshape(2, 2), (5, 5)),
]  # fmt: skip


@pytest.mark.parametrize(("padding", "kwargs", "image", "shape"), PADS)
def test_pad_grows_each_side(padding, kwargs, image, shape):
    out = vision.Pad(padding, **kwargs)(image)
    assert out.shape == shape
    assert out.dtype == image.dtype


def test_pad_values_match_mindspore():
    assert vision.Pad(2)(np.arange(12, dtype=np.uint8).reshape(2, 2, 3))[
        :, :, 0
    ].tolist()[2:4] == [
        [0, 0, 0, 3, 0, 0],
        [0, 0, 6, 9, 0, 0],
    ]
    assert vision.Pad([1, 2], fill_value=(7, 8, 9))(np.zeros((1, 1, 3), np.uint8))[
        0, 0
    ].tolist() == [7, 8, 9]
    edge = vision.Pad([1, 0, 2, 3], padding_mode=vision.Border.EDGE)(
        np.arange(4, dtype=np.uint8).reshape(2, 2)
    )
    assert edge.tolist() == [[0, 0, 1, 1, 1]] + [[2, 2, 3, 3, 3]] * 4
    reflect = vision.Pad(1, padding_mode=vision.Border.REFLECT)(
        np.arange(9, dtype=np.float32).reshape(3, 3)
    )
    assert reflect[0].tolist() == [4.0, 3.0, 4.0, 5.0, 4.0]
    assert reflect[1].tolist() == [1.0, 0.0, 1.0, 2.0, 1.0]


@pytest.mark.parametrize(
    ("image", "kwargs", "zero_pixels"),
    [
        (np.full((6, 7, 3), 9, np.uint8), {"length": 3}, {9}),
        (np.ones((3, 6, 7), np.float32), {"length": 2, "is_hwc": False}, {4}),
        (np.ones((5, 5), np.uint8), {"length": 2, "num_patches": 3}, set(range(4, 13))),
    ],
)
def test_cut_out_zeroes_whole_squares_inside_the_image(image, kwargs, zero_pixels):
    ds.config.set_seed(0)
    channel_axis = {3: 2 if kwargs.get("is_hwc", True) else 0, 2: None}[image.ndim]
    for _ in range(20):
        out = vision.CutOut(**kwargs)(image)
        assert out.shape == image.shape and out.dtype == image.dtype
        zeros = out == 0
        zeros = zeros.all(axis=channel_axis) if channel_axis is not None else zeros
        assert int(zeros.sum()) in zero_pixels
    assert image.min() > 0  # the input is left alone


def test_cut_out_in_a_pipeline_draws_a_square_per_image():
    ds.config.set_seed(1)
    images = np.full((8, 6, 6, 3), 5, np.uint8)
    data = ds.NumpySlicesDataset({"image": images}, shuffle=False)
    out = np.stack(
        [
            r[0]
            for r in data.map(vision.CutOut(3), "image").create_tuple_iterator(
                output_numpy=True
            )
        ]
    )
    zero_maps = (out == 0).all(axis=3)
    assert zero_maps.sum(axis=(1, 2)).tolist() == [9] * 8
    assert len({m.tobytes() for m in zero_maps}) > 1  # each image its own square


@pytest.mark.parametrize(
    ("build", "error", "match"),
    [
        (lambda: vision.Pad(-1), ValueError, "'Pad'.*every value of 'padding' must be >= 0"),
        (lambda: vision.Pad([1, 2, 3]), ValueError, "'Pad'.*'padding' must be an int or a sequence of 2 or 4 ints"),
        (lambda: vision.Pad(1, fill_value=300), ValueError, "'Pad'.*'fill_value' must be an int in"),
        (lambda: vision.Pad(1, padding_mode="edge"), TypeError, "'Pad'.*'padding_mode' must be a Border"),  # type: ignore[arg-type]
        (lambda: vision.CutOut(0), ValueError, "'CutOut'.*'length' must be an int >= 1"),
        (lambda: vision.CutOut(2, 0), ValueError, "'CutOut'.*'num_patches' must be an int >= 1"),
        (lambda: vision.CutOut(2.0), TypeError, "'CutOut'.*'length' must be an int"),  # type: ignore[arg-type]
        (lambda: vision.CutOut(9)(np.ones((5, 5), np.uint8)), RuntimeError, "CutOut: a 9x9 patch does not fit in an image of 5x5"),
    ],
)  # fmt: skip
def test_pad_and_cut_out_name_bad_arguments(build, error, match):
    with pytest.raises(error, match=match):
        build()
