"""Hypothesis settings for tests whose examples are slow (kernels, finite differences, the CUDA simulator)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

__all__ = ["slow_examples"]


def slow_examples(max_examples: int, *, derandomize: bool | None = None) -> settings:
    """`max_examples` examples with no deadline and no too-slow health check.

    `derandomize` defaults to whether this runs on CI (the `CI` variable): CI runs the same
    examples every time, a developer's run explores new ones.
    """
    if derandomize is None:
        derandomize = bool(os.environ.get("CI"))
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=derandomize,
        suppress_health_check=[HealthCheck.too_slow],
    )
