"""The type of the per-dtype tolerance tables the kernel tests pass to `assert_allclose`."""

from typing import TypedDict


class Tolerance(TypedDict):
    """`assert_allclose(a, b, **tolerance)`: typed, so the call type-checks under strict mypy."""

    rtol: float
    atol: float
