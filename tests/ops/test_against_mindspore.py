"""Operator classes and GradOperation give MindSpore 2.10's results: dtypes, shapes and values.

The expected results were recorded by running `tests/ops/mindspore_cases.py` under
MindSpore 2.10 (see its docstring); here the same calls run on cadence.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import cadence as ms
from cadence import Tensor, ops

from .mindspore_cases import cases, encode

RECORDED = json.loads((Path(__file__).parent / "mindspore_ops.json").read_text())
CALLS = cases(ms, ops, Tensor)


def test_every_case_was_recorded():
    assert sorted(CALLS) == sorted(k for k in RECORDED if not k.startswith("_"))
    assert RECORDED["_about"].startswith("recorded with MindSpore 2.")


def _compare(got, expected, where):
    if isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), where
        for i, (g, e) in enumerate(zip(got, expected, strict=True)):
            _compare(g, e, f"{where}[{i}]")
    elif isinstance(expected, dict):
        assert (got["dtype"], got["shape"]) == (expected["dtype"], expected["shape"]), (
            where
        )
        np.testing.assert_allclose(
            got["values"], expected["values"], rtol=1e-5, atol=1e-6, err_msg=where
        )
    else:
        assert got == expected, where


@pytest.mark.parametrize("name", sorted(CALLS))
def test_cadence_matches_mindspore(name):
    _compare(encode(CALLS[name]()), RECORDED[name], name)
