"""A MindSpore 2.10 checkpoint of a training step's optimizer state loads into cadence and training continues.

The fixtures come from `tests/nn/mindspore_optimizer_checkpoints.py` (see its docstring):
two MindSpore steps saved with the whole `TrainOneStepCell`, then the weights after a third.
Every key must load (no parameter left out on either side) and cadence's third step must
give MindSpore's weights: the moments, accumulators and step count were restored, not reset.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cadence import Tensor, load_checkpoint, load_param_into_net, nn

from .mindspore_optimizer_checkpoints import OPTIMIZERS, batches, train_step

FIXTURES = (
    Path(__file__).resolve().parent.parent / "fixtures" / "mindspore" / "optimizers"
)
THIRD = json.loads((FIXTURES / "third_step.json").read_text())


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_mindspore_optimizer_checkpoint_resumes(name):
    net, step = train_step(nn, Tensor, name)
    saved = load_checkpoint(str(FIXTURES / f"{name}.ckpt"))
    ours = {p.name for p in step.get_parameters()}
    assert ours == set(saved), (sorted(ours ^ set(saved)), name)
    not_loaded, unused = load_param_into_net(step, saved)
    assert not_loaded == [] and unused == []
    step(*batches(Tensor)[2])
    np.testing.assert_allclose(
        net.weight.asnumpy(), THIRD[name]["weight"], rtol=2e-5, atol=1e-6
    )
    np.testing.assert_allclose(
        net.bias.asnumpy(), THIRD[name]["bias"], rtol=2e-5, atol=1e-6
    )
