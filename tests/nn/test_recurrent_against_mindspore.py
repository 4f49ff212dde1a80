"""RNN / GRU / LSTM, their cells and Embedding give MindSpore 2.10's outputs on MindSpore's weights.

The parameters and outputs were recorded by `mindspore_recurrent_cases.py` under MindSpore;
cadence builds the same cells, loads the parameters by MindSpore's names and must agree.
"""

from pathlib import Path

import numpy as np
import pytest

import cadence as ms
from cadence import nn

from .mindspore_recurrent_cases import cases

RECORDED = np.load(Path(__file__).parents[1] / "fixtures/mindspore/recurrent.npz")
CASES = cases(nn, ms.Tensor)


def flatten_cadence(out):
    if isinstance(out, (tuple, list)):
        return [a for o in out for a in flatten_cadence(o)]
    return [out.asnumpy()]


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_outputs_as_mindspore_on_the_same_weights(name):
    cell, args, kwargs = CASES[name]
    recorded = {
        k.split("/param/")[1]: RECORDED[k]
        for k in RECORDED.files
        if k.startswith(f"{name}/param/")
    }
    # The same parameter names, in the same order, as MindSpore's cell.
    assert [p.name for p in cell.get_parameters()] == list(recorded)
    for p in cell.get_parameters():
        p.set_data(ms.Tensor(recorded[p.name]))
    got = flatten_cadence(cell(*args, **kwargs))
    want = [RECORDED[f"{name}/out/{i}"] for i in range(len(got))]
    assert f"{name}/out/{len(got)}" not in RECORDED.files
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
