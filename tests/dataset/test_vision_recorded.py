"""Image and general operations give MindSpore 2.10's results on fixed inputs.

The expected results were recorded by running `tests/dataset/mindspore_vision_cases.py`
under MindSpore 2.10 (see its docstring); here the same calls run on cadence.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

import cadence
from cadence.dataset import transforms, vision
from cadence.dataset.vision._color import _ADJUSTMENTS
from cadence.dataset.vision._params import to_dtype_of

from .mindspore_vision_cases import cases, encode, images

RECORDED = json.loads((Path(__file__).parent / "mindspore_vision.json").read_text())
CALLS = cases(cadence, vision, transforms, lambda image: image)


def test_every_case_was_recorded():
    assert sorted(CALLS) == sorted(k for k in RECORDED if not k.startswith("_"))
    assert RECORDED["_about"].startswith("recorded with MindSpore 2.")


# MindSpore applies the four color changes in a random order; its recording shows one.
SHUFFLED = "RandomColorAdjust all four"


@pytest.mark.parametrize("name", sorted(set(CALLS) - {SHUFFLED}))
def test_cadence_matches_mindspore(name):
    got, expected = encode(CALLS[name]()), RECORDED[name]
    pairs = (
        zip(got, expected, strict=True)
        if isinstance(expected, list)
        else [(got, expected)]
    )
    for g, e in pairs:
        assert (g["dtype"], g["shape"]) == (e["dtype"], e["shape"])
        np.testing.assert_allclose(g["values"], e["values"], rtol=1e-5, atol=1e-4)


def test_color_adjust_in_some_order_matches_mindspore():
    image = images()["rgb"]
    factors = [float(np.float32(v)) for v in (0.7, 1.3, 0.6, 0.1)]
    matches = []
    for order in itertools.permutations(range(4)):
        out = image
        for step in order:
            out = to_dtype_of(_ADJUSTMENTS[step](out, factors[step]), image)
        matches.append(encode(out) == RECORDED[SHUFFLED])
    assert sum(matches) >= 1
