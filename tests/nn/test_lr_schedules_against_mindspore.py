"""MindSpore's learning-rate lists and schedule cells give MindSpore 2.10's rates.

The expected rates were recorded by running `tests/nn/mindspore_lr_cases.py` under
MindSpore 2.10 (see its docstring); here the same calls run on cadence.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cadence as ms
from cadence import nn

from .mindspore_lr_cases import cases

RECORDED = json.loads((Path(__file__).parent / "mindspore_lr.json").read_text())
RATES = cases(ms)


def test_every_case_was_recorded():
    assert sorted(RATES) == sorted(RECORDED)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_rates_match_mindspore(name):
    assert RATES[name] == pytest.approx(RECORDED[name], rel=1e-6)


def test_the_schedules_are_on_mindspores_import_paths():
    from cadence.nn.dynamic_lr import polynomial_decay_lr
    from cadence.nn.learning_rate_schedule import PolynomialDecayLR, WarmUpLR

    assert polynomial_decay_lr is nn.polynomial_decay_lr
    assert (PolynomialDecayLR, WarmUpLR) == (nn.PolynomialDecayLR, nn.WarmUpLR)


BAD = [
    (lambda: nn.natural_exp_decay_lr(0.1, 0.0, 4, 1, 1), ValueError, "'decay_rate' must be a float > 0, but got 0.0"),
    (lambda: nn.inverse_decay_lr(0.1, 0.5, 4, 1, 1, is_stair=1), TypeError, "'is_stair' must be a bool, but got 1"),  # type: ignore[arg-type]
    (lambda: nn.polynomial_decay_lr(0.1, -0.01, 4, 1, 1, 0.5), ValueError, "'end_learning_rate' must be a float >= 0, but got -0.01"),
    (lambda: nn.polynomial_decay_lr(0.1, 0.0, 4, 0, 1, 0.5), ValueError, "'step_per_epoch' must be a positive int, but got 0"),
    (lambda: nn.PolynomialDecayLR(0.1, 0.0, 4, 0.0), ValueError, "'power' must be a float > 0, but got 0.0"),
    (lambda: nn.PolynomialDecayLR(0.1, 0.0, 4, 1.0, update_decay_steps="yes"), TypeError, "'update_decay_steps' must be a bool"),  # type: ignore[arg-type]
    (lambda: nn.WarmUpLR(0.1, 0), ValueError, "For 'WarmUpLR', the argument 'warmup_steps' must be a positive int, but got 0"),
    (lambda: nn.WarmUpLR(-0.1, 2), ValueError, "'learning_rate' must be a float >= 0, but got -0.1"),
    (lambda: nn.NaturalExpDecayLR(0.1, 0.5, 2.5), ValueError, "For 'NaturalExpDecayLR', the argument 'decay_steps' must be a positive int, but got 2.5"),  # type: ignore[arg-type]
]  # fmt: skip


@pytest.mark.parametrize(("build", "error", "message"), BAD)
def test_bad_arguments_are_named(build, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(")):
        build()
