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


def _close(got, expected, where):
    """Nested lists of arrays (optimizer runs, tuples of tensors) compared leaf array by leaf array."""
    if (
        isinstance(expected, list)
        and expected
        and isinstance(expected[0], list)
        and len(got) == len(expected)
    ):
        try:
            np.testing.assert_allclose(
                np.asarray(got, np.float64),
                np.asarray(expected, np.float64),
                rtol=2e-5,
                atol=1e-5,
                err_msg=where,
            )
            return
        except ValueError:  # ragged: one array per element
            pass
        for i, (g, e) in enumerate(zip(got, expected, strict=True)):
            _close(g, e, f"{where}[{i}]")
        return
    np.testing.assert_allclose(
        np.asarray(got, np.float64),
        np.asarray(expected, np.float64),
        rtol=2e-5,
        atol=1e-5,
        err_msg=where,
    )


@pytest.mark.parametrize("name", sorted(RUNS))
def test_cadence_matches_mindspore(name):
    _close(_arrays(RUNS[name]()), RECORDED[name], name)
