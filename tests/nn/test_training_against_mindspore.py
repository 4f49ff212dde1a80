"""Losses and optimizers of issue 23 give MindSpore 2.10's results.

The expected values were recorded by running `tests/nn/mindspore_training_cases.py`
under MindSpore 2.10 (see its docstring); here the same runs execute on cadence.
Optimizer runs compare the four losses, the trained weights and every state
parameter (moments, accumulators), in the order of their checkpoint keys.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import cadence as ms
from cadence import Tensor, nn, ops

from .mindspore_training_cases import _arrays, cases

RECORDED = json.loads((Path(__file__).parent / "mindspore_training.json").read_text())
RUNS = cases(ms, nn, ops, Tensor)


def test_every_case_was_recorded():
    assert sorted(RUNS) == sorted(RECORDED)


def _leaves(value):
    """The arrays of a recorded result: the whole value, or (ragged) each element's, recursively."""
    try:
        return [np.asarray(value, np.float64)]
    except (
        ValueError
    ):  # ragged (losses, weights, states of an optimizer run): one array each
        return [leaf for item in value for leaf in _leaves(item)]


@pytest.mark.parametrize("name", sorted(RUNS))
def test_cadence_matches_mindspore(name):
    got, expected = _leaves(_arrays(RUNS[name]())), _leaves(RECORDED[name])
    assert len(got) == len(expected), name
    for i, (g, e) in enumerate(zip(got, expected, strict=True)):
        np.testing.assert_allclose(g, e, rtol=2e-5, atol=1e-5, err_msg=f"{name}[{i}]")
