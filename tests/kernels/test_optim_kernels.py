"""The `_optim_updates` kernels (AdamWeightDecay, RMSProp, Adagrad, Lamb, Adadelta, ProximalAdagrad, Rprop, ASGD): CPU against `reference`.

Three steps from Hypothesis-drawn shapes, states and hyperparameters; every
array updated in place (weight and state) must match the numpy reference.
The same bodies run as plain Python too, which the last test checks.
"""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from cadence.kernels import _optim_elements, cpu_kernels, reference
from tests.helpers.tolerance import Tolerance

cpu = cpu_kernels()
TOL: dict[type, Tolerance] = {
    np.float32: {"rtol": 2e-4, "atol": 2e-5},
    np.float64: {"rtol": 1e-10, "atol": 1e-12},
}


def _states(rng, shape, dtype, count, positive):
    made = [rng.standard_normal(shape).astype(dtype) for _ in range(count)]
    # Second-moment style state (mean squares, accumulators) is never negative.
    return [np.abs(s) + 0.1 if i in positive else s for i, s in enumerate(made)]


def _powers(t):
    """beta1 ** step and beta2 ** step after step t + 1 (Adam's bias corrections)."""
    return 0.9 ** (t + 1), 0.999 ** (t + 1)


# name -> (state count, indices of non-negative states, hyperparameters for step t)
UPDATES = {
    "adam_weight_decay_update": (
        2,
        {1},
        lambda t, wd, flag: (0.01, 0.9, 0.999, 1e-6, wd),
    ),
    "rmsprop_update": (
        3,
        {1},
        lambda t, wd, flag: (
            0.01,
            0.9,
            0.5 if flag else 0.0,
            1e-10 if not flag else 1e-3,
            wd,
            flag,
        ),
    ),
    "adagrad_update": (1, {0}, lambda t, wd, flag: (0.1, wd, flag)),
    "adam_amsgrad_update": (
        3,
        {1, 2},
        lambda t, wd, flag: (0.01, 0.9, 0.999, 1e-8, *_powers(t), wd),
    ),
    "lamb_update": (2, {1}, lambda t, wd, flag: (0.01, 0.9, 0.999, 1e-6, wd, t + 1)),
    "adadelta_update": (2, {0, 1}, lambda t, wd, flag: (0.5, 0.9, 1e-6, wd)),
    # flag: an L1 shrink (its branch), else the plain L2 scaling
    "proximal_adagrad_update": (
        1,
        {0},
        lambda t, wd, flag: (0.1, 0.05 if flag else 0.0, 0.1, wd),
    ),
    # flag: the first step (the step size starts at lr)
    "rprop_update": (
        2,
        {1},
        lambda t, wd, flag: (0.5, 1.2, 1e-3, 5.0, float(flag and t == 0), 0.1, wd),
    ),
    # flag: averaging (mu < 1), else ax copies the weight
    "asgd_update": (
        1,
        set(),
        lambda t, wd, flag: (0.1, 0.01, 0.5 if flag else 1.0, wd),
    ),
    # flag: l1 large enough to zero some weights, square roots (lr_power -0.5); else -0.7
    "ftrl_update": (
        2,
        {0},
        lambda t, wd, flag: (
            0.1,
            0.5 if flag else 0.0,
            0.1,
            -0.5 if flag else -0.7,
            wd,
        ),
    ),
}


@given(
    name=st.sampled_from(sorted(UPDATES)),
    shape=st.lists(st.integers(1, 6), min_size=1, max_size=3).map(tuple),
    wd=st.sampled_from([0.0, 0.01]),
    flag=st.booleans(),
    dtype=st.sampled_from([np.float32, np.float64]),
    seed=st.integers(0, 2**16),
)
def test_cpu_matches_reference(name, shape, wd, flag, dtype, seed):
    count, positive, hyper = UPDATES[name]
    rng = np.random.default_rng(seed)
    param = rng.standard_normal(shape).astype(dtype)
    states = _states(rng, shape, dtype, count, positive)
    if name == "rmsprop_update" and flag:
        # Centered: the mean gradient stays small against the mean square.
        states[0] *= 0.1
    ours = [param, *states]
    theirs = [x.copy() for x in ours]
    for t in range(3):
        grad = rng.standard_normal(shape).astype(dtype)
        for table, arrays in ((cpu, ours), (reference, theirs)):
            getattr(table, name)(arrays[0], grad, *arrays[1:], *hyper(t, wd, flag))
    got, want = (
        np.concatenate([x.ravel() for x in arrays]) for arrays in (ours, theirs)
    )
    np.testing.assert_allclose(got, want, **TOL[dtype])


def test_lamb_trust_ratio_is_one_for_a_zero_weight():
    p = np.zeros(4, np.float32)
    m, v = np.zeros(4, np.float32), np.zeros(4, np.float32)
    g = np.array([1.0, -1.0, 2.0, 0.5], np.float32)
    cpu.lamb_update(p, g, m, v, 0.1, 0.9, 0.999, 1e-6, 0.0, 1)
    # Step 1: m̂ = g, v̂ = g², direction sign(g); with ‖p‖ = 0 the ratio is 1.
    np.testing.assert_allclose(p, -0.1 * np.sign(g), rtol=1e-5)


def test_arguments_are_checked_by_name():
    p = np.ones(3, np.float32)
    with pytest.raises(ValueError, match="`grad` must have shape"):
        cpu.adagrad_update(
            p, np.ones(4, np.float32), np.ones(3, np.float32), 0.1, 0.0, True
        )
    with pytest.raises(TypeError, match="`accum`"):
        cpu.adagrad_update(
            p, np.ones(3, np.float32), np.ones(3, np.int32), 0.1, 0.0, True
        )
    with pytest.raises(ValueError, match="`step` must be an int >= 1"):
        cpu.lamb_update(p, p, p.copy(), p.copy(), 0.1, 0.9, 0.999, 1e-6, 0.0, 0)


def test_bodies_run_as_plain_python():
    p, g = [1.0], [0.5]
    accum = [0.1]
    _optim_elements.adagrad_element(p, g, accum, None, None, (0.1, 0.0, 1.0), 0)
    assert accum == [pytest.approx(0.35)]
    assert p == [pytest.approx(1.0 - 0.1 * 0.5 / 0.35**0.5)]


# Every CPU update, as `UPDATES` (state count, non-negative states, hyperparameters).
SPLIT_UPDATES = {
    **UPDATES,
    "sgd_update": (2, set(), lambda t, wd, flag: (0.1, 0.9, 0.0, wd, flag)),
    "momentum_update": (1, set(), lambda t, wd, flag: (0.1, 0.9, wd, flag)),
    "adam_update": (
        2,
        {1},
        lambda t, wd, flag: (0.01, 0.9, 0.999, 1e-8, *_powers(t), wd, flag),
    ),
}


@pytest.mark.parametrize("name", sorted(SPLIT_UPDATES))
def test_a_large_parameter_updates_in_spans_as_the_reference(monkeypatch, name):
    from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

    from cadence.kernels import _optim_cpu

    monkeypatch.setattr(_optim_cpu, "MIN_SPLIT_ELEMENTS", 8)
    spans: list[tuple[int, int]] = []
    real = _optim_cpu._run_span

    def spy(loop, args, size, a, b):
        spans.append((a, b))
        real(loop, args, size, a, b)

    monkeypatch.setattr(_optim_cpu, "_run_span", spy)
    count, positive, hyper = SPLIT_UPDATES[name]
    rng = np.random.default_rng(7)
    param = rng.standard_normal((5, 7)).astype(np.float32)
    ours = [param, *_states(rng, param.shape, np.float32, count, positive)]
    theirs = [x.copy() for x in ours]
    with threadpool_limits(limits=2, user_api="blas"):
        for t in range(2):
            grad = rng.standard_normal(param.shape).astype(np.float32)
            for table, arrays in ((cpu, ours), (reference, theirs)):
                getattr(table, name)(
                    arrays[0], grad, *arrays[1:], *hyper(t, 0.01, False)
                )
    assert (0, 17) in spans and (
        17,
        35,
    ) in spans  # two spans of the 35 elements per call
    for got, want in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(got, want, **TOL[np.float32])
