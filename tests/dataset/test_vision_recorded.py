"""Image and general operations give MindSpore 2.10's results on fixed inputs.

The expected results were recorded by running `tests/dataset/mindspore_vision_cases.py`
under MindSpore 2.10 (see its docstring); here the same calls run on cadence.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import cadence
from cadence.dataset import transforms, vision

from .mindspore_vision_cases import cases, encode

RECORDED = json.loads((Path(__file__).parent / "mindspore_vision.json").read_text())
CALLS = cases(cadence, vision, transforms, lambda image: image)

# MindSpore shifts hue in OpenCV's 8-bit HSV, cadence in float HSV: up to 7 levels apart.
TOLERANCE = {"RandomColorAdjust hue": 8.0}


def test_every_case_was_recorded():
    assert sorted(CALLS) == sorted(k for k in RECORDED if not k.startswith("_"))
    assert RECORDED["_about"].startswith("recorded with MindSpore 2.")


@pytest.mark.parametrize("name", sorted(CALLS))
def test_cadence_matches_mindspore(name):
    got, expected = encode(CALLS[name]()), RECORDED[name]
    pairs = (
        zip(got, expected, strict=True)
        if isinstance(expected, list)
        else [(got, expected)]
    )
    for g, e in pairs:
        assert (g["dtype"], g["shape"]) == (e["dtype"], e["shape"])
        np.testing.assert_allclose(
            g["values"], e["values"], rtol=1e-5, atol=TOLERANCE.get(name, 1e-4)
        )
