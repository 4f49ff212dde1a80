"""Arguments for the attention-era kernels, shared by the CPU and the CUDA-simulator comparisons.

Each case is (kernel name, positional arguments); the tests call the target's
kernel and `reference`'s with the same arguments and compare.
"""

import numpy as np

from cadence.kernels import reference as ref


def arr(shape, dtype, seed, lo=-3.0, hi=3.0):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


def kernel_cases(dtype, seed, rows, width, groups, eps=1e-5, alpha=0.2):
    """Every new kernel, forward and backward, on (rows, width)-ish shapes."""
    x = arr((rows, width), dtype, seed)
    dy = arr((rows, width), dtype, seed + 1)
    gamma = arr((width,), dtype, seed + 2, 0.5, 1.5)
    beta = arr((width,), dtype, seed + 3)
    _, stats = ref.layer_norm_forward(x, gamma, beta, eps)
    channels = groups * 2
    x3 = arr((rows, channels, width), dtype, seed + 4)
    dy3 = arr((rows, channels, width), dtype, seed + 5)
    g3 = arr((channels,), dtype, seed + 6, 0.5, 1.5)
    b3 = arr((channels,), dtype, seed + 7)
    _, stats3 = ref.group_norm_forward(x3, g3, b3, groups, eps)
    a = arr((groups, rows, width), dtype, seed + 8)
    b = arr((groups, width, rows + 1), dtype, seed + 9)
    cases = [
        ("layer_norm_forward", (x, gamma, beta, eps)),
        ("layer_norm_backward", (dy, x, gamma, stats)),
        ("group_norm_forward", (x3, g3, b3, groups, eps)),
        ("group_norm_backward", (dy3, x3, g3, stats3, groups)),
        ("batch_matmul", (a, b, False, False)),
        ("batch_matmul", (a.swapaxes(1, 2).copy(), b, True, False)),
        ("batch_matmul", (a, b.swapaxes(1, 2).copy(), False, True)),
        (
            "batch_matmul",
            (a.swapaxes(1, 2).copy(), b.swapaxes(1, 2).copy(), True, True),
        ),
    ]
    for code in range(5):
        cases.append(("smooth_act_forward", (x, code, alpha)))
        cases.append(("smooth_act_backward", (dy, x, code, alpha)))
    return cases


def finite_difference(fn, x, dy, h=1e-6):
    """d(sum(fn(x) * dy))/dx by central differences, element by element (float64)."""
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += h
        xm[i] -= h
        grad[i] = ((fn(xp) - fn(xm)) * dy).sum() / (2 * h)
    return grad
