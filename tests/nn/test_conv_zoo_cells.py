"""Argument checks and shapes of issue 23's convolutional cells (values: tests/ops/mindspore_cases.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cadence as ms
from cadence import nn, ops

IMAGES = ms.Tensor(
    np.random.default_rng(0).normal(size=(2, 4, 6, 6)).astype(np.float32)
)


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (lambda: nn.Conv2d(4, 6, 3, group=4), ValueError, r"'Conv2d'.*divisible by 'group'.*group=4"),
        (lambda: nn.Conv2d(4, 8, 3, group=0), ValueError, r"'Conv2d'.*'group' must be positive.*0"),
        (lambda: nn.Conv1d(4, 4, 3, padding=(1, 2)), TypeError, r"'Conv1d'.*'padding' must be an int >= 0"),
        (lambda: nn.Conv1d(4, 4, 3, weight_init=ms.Tensor(np.zeros((4, 4, 1, 3), np.float32))),
         ValueError, r"'Conv1d'.*3-D.*\(4, 4, 1, 3\)"),
        (lambda: nn.Conv1d(4, 4, 0), ValueError, r"'Conv1d'.*'kernel_size' must be positive"),
        (lambda: nn.Conv2dTranspose(4, 6, 3, group=4), ValueError, r"'Conv2dTranspose'.*divisible by 'group'.*group=4"),
        (lambda: nn.Conv2dTranspose(4, 4, 3, stride=2, pad_mode="pad", output_padding=2), ValueError,
         r"'output_padding'.*\[0, max\(stride, dilation\)\).*2"),
        (lambda: nn.Conv2dTranspose(4, 4, 3, stride=2, output_padding=1), ValueError,
         r"nonzero 'output_padding' needs pad_mode 'pad'.*'same'"),
        (lambda: nn.Conv2dTranspose(4, 4, 3, pad_mode="full"), ValueError, r"'pad_mode' must be.*'full'"),
        (lambda: nn.AdaptiveAvgPool2d((2, 0)), ValueError, r"'AdaptiveAvgPool2d'.*'output_size'.*\(2, 0\)"),
        (lambda: nn.Dropout2d(1.5), ValueError, r"'Dropout2d'.*'p'.*\[0, 1\].*1.5"),
        (lambda: nn.Pad(((1, 1),), mode="EDGE"), ValueError, r"'Pad'.*'mode'.*'EDGE'"),
        (lambda: nn.Pad(((1, -1),)), ValueError, r"'Pad'.*'paddings'.*pairs of ints >= 0"),
    ],
)  # fmt: skip
def test_cells_refuse_bad_arguments_naming_them(
    build: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        build()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: nn.Conv2d(3, 3, 3, group=3)(IMAGES), r"'Conv2d'.*NCHW with 3 channels.*\(2, 4, 6, 6\)"),
        (lambda: nn.Conv1d(4, 4, 3)(IMAGES), r"'Conv1d'.*NCW with 4 channels"),
        (lambda: nn.Pad(((1, 1),), mode="REFLECT")(IMAGES), r"'Pad'.*one pair per input axis \(4\)"),
        (lambda: nn.Pad(((0, 0), (0, 0), (6, 0), (0, 0)), mode="REFLECT")(IMAGES),
         r"'MirrorPad'.*axis 2.*less than its size 6.*'REFLECT'"),
        (lambda: nn.Conv2dTranspose(4, 2, 5, pad_mode="pad", padding=3)(IMAGES[:, :, :1, :1]), r"empty output"),
        (lambda: ops.adaptive_avg_pool2d(IMAGES[0, 0], 2), r"3-D or 4-D"),
        (lambda: ops.dropout2d(IMAGES[0], 0.5), r"'dropout2d'.*4-D"),
    ],
)  # fmt: skip
def test_cells_refuse_bad_inputs_naming_them(call: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_symmetric_pad_may_mirror_a_whole_axis() -> None:
    row = ms.Tensor(np.array([[1.0, 2.0]], np.float32))
    out = nn.Pad(((0, 0), (2, 2)), mode="SYMMETRIC")(row).asnumpy()
    np.testing.assert_array_equal(out, [[2, 1, 1, 2, 2, 1]])


def test_dropout2d_is_the_identity_outside_training_and_drops_whole_channels_inside() -> (
    None
):
    cell = nn.Dropout2d(0.5)
    assert cell(IMAGES) is IMAGES or np.array_equal(
        cell(IMAGES).asnumpy(), IMAGES.asnumpy()
    )
    cell.set_train(True)
    ms.set_seed(1)
    out = cell(IMAGES).asnumpy()
    kept = np.abs(out).reshape(2, 4, -1).max(axis=2) > 0
    assert 0 < kept.sum() < 8  # some channels dropped, some kept (seeded)
    np.testing.assert_allclose(out[kept], 2 * IMAGES.asnumpy()[kept], rtol=1e-6)
    assert (out[~kept] == 0).all()


def test_grouped_conv2d_matches_one_convolution_per_group() -> None:
    grouped = nn.Conv2d(4, 6, 3, group=2, has_bias=True, bias_init="normal")
    w, b = grouped.weight.asnumpy(), grouped.bias.asnumpy()  # type: ignore[union-attr]
    halves = []
    for g in range(2):
        part = nn.Conv2d(2, 3, 3, weight_init=ms.Tensor(w[3 * g : 3 * g + 3]))
        halves.append(part(IMAGES[:, 2 * g : 2 * g + 2]).asnumpy())
    expected = np.concatenate(halves, axis=1) + b[None, :, None, None]
    np.testing.assert_allclose(
        grouped(IMAGES).asnumpy(), expected, rtol=1e-5, atol=1e-5
    )


def test_reprs_show_the_geometry() -> None:
    assert "group=4" in repr(nn.Conv2d(4, 4, 3, group=4))
    assert (
        repr(nn.AdaptiveAvgPool2d((2, None)))
        == "AdaptiveAvgPool2d<output_size=(2, None)>"
    )
    assert (
        repr(nn.Pad(((1, 2),), mode="reflect"))
        == "Pad<paddings=((1, 2),), mode=REFLECT>"
    )
    assert repr(nn.Dropout2d(0.25)) == "Dropout2d<p=0.25>"
