"""The normalization, smooth-activation and batched-matmul CPU kernels against `reference`.

The backward passes are also checked against finite differences.
"""

import hashlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

from cadence.kernels import cpu_kernels, reference as ref

from .attention_cases import arr, finite_difference, kernel_cases
from .test_cpu_matches_reference import close

cpu = cpu_kernels()


@given(
    rows=st.integers(1, 5),
    width=st.integers(1, 7),
    groups=st.integers(1, 3),
    dtype=st.sampled_from([np.float32, np.float64]),
    seed=st.integers(0, 2**16),
)
def test_cpu_kernels_match_the_reference(rows, width, groups, dtype, seed):
    for name, args in kernel_cases(dtype, seed, rows, width, groups):
        close(getattr(cpu, name)(*args), getattr(ref, name)(*args), dtype)


# kind -> (x shape, channels, forward(x, gamma, beta) -> (y, stats), backward(dy, x, gamma, stats))
NORMS = {
    "layer": (
        (3, 5),
        5,
        lambda x, g, b: ref.layer_norm_forward(x, g, b, 1e-5),
        ref.layer_norm_backward,
    ),
    "group": (
        (2, 4, 3),
        4,
        lambda x, g, b: ref.group_norm_forward(x, g, b, 2, 1e-5),
        lambda dy, x, g, stats: ref.group_norm_backward(dy, x, g, stats, 2),
    ),
}


@pytest.mark.parametrize("kind", sorted(NORMS))
def test_norm_gradients_match_finite_differences(kind):
    shape, channels, forward, backward = NORMS[kind]
    x, dy = arr(shape, np.float64, 7), arr(shape, np.float64, 9)
    gamma, beta = arr((channels,), np.float64, 1), arr((channels,), np.float64, 2)
    _, stats = forward(x, gamma, beta)
    got = backward(dy, x, gamma, stats)
    want = (
        finite_difference(lambda v: forward(v, gamma, beta)[0], x, dy),
        finite_difference(lambda v: forward(x, v, beta)[0], gamma, dy),
        finite_difference(lambda v: forward(x, gamma, v)[0], beta, dy),
    )
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("code", range(5))
def test_smooth_activation_gradients_match_finite_differences(code):
    # Keep away from 0, where leaky relu has a kink.
    x = arr((4, 5), np.float64, code) + np.where(
        arr((4, 5), np.float64, 3) > 0, 0.1, -0.1
    )
    dy = arr(x.shape, np.float64, 11)
    want = finite_difference(lambda v: ref.smooth_act_forward(v, code, 0.3), x, dy)
    got = cpu.smooth_act_backward(dy, x, code, 0.3)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_batch_matmul_rejects_mismatched_stacks():
    a, b = np.ones((2, 3, 4)), np.ones((3, 4, 5))
    with pytest.raises(ValueError, match="`a` \\(2, 3, 4\\) and `b` \\(3, 4, 5\\)"):
        cpu.batch_matmul(a, b, False, False)


def test_group_norm_rejects_groups_that_do_not_divide_the_channels():
    x = np.ones((2, 6, 3))
    with pytest.raises(
        ValueError, match="`groups` must divide the 6 channels, but got 4"
    ):
        cpu.group_norm_forward(x, np.ones(6), np.zeros(6), 4, 1e-5)


def test_cached_kernels_are_keyed_on_the_shared_bodies_too():
    from cadence.kernels import _attention, _attention_math, _numba_cache

    assert _attention._CACHE is True
    impl, bases = _numba_cache.cache_api()  # type: ignore[misc]
    kernel = _attention._smooth_loop
    locators = [
        cls.from_function(kernel.py_func, kernel.py_func.__code__.co_filename)
        for cls in impl._locator_classes[: len(bases)]
    ]
    locator = next(loc for loc in locators if loc is not None)
    digest = hashlib.sha256(Path(_attention_math.__file__).read_bytes()).hexdigest()
    assert locator.get_source_stamp()[1] == digest
