"""Activation cells beyond the fused ones: `LeakyReLU`, `GELU`, `SiLU`, `PReLU`, `Identity`.

`LeakyReLU`, `GELU` and `SiLU` run the target's smooth-activation kernel;
`PReLU` learns its slopes (`w`) through composed ops.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compute._tensor import Parameter, Tensor
from ..ops import _attention as attention_ops, _functional as f
from ..validation import check_number
from ._cell import Cell
from ._checks import check_bool, check_positive_int

__all__ = ["GELU", "Identity", "LeakyReLU", "PReLU", "SiLU"]


class LeakyReLU(Cell):
    """x where x > 0, else alpha * x.

    Args:
        alpha: The slope for negative inputs.
    """

    def __init__(self, alpha: float = 0.2) -> None:
        super().__init__()
        self.alpha = check_number(alpha, "alpha", "LeakyReLU")

    def construct(self, x: Any) -> Tensor:
        """Apply the activation."""
        return attention_ops.leaky_relu(x, self.alpha)


class GELU(Cell):
    """x * P(X <= x) for a standard normal X.

    Args:
        approximate: True: the tanh approximation; False: the exact form through erf.
    """

    def __init__(self, approximate: bool = True) -> None:
        super().__init__()
        self.approximate = check_bool("GELU", "approximate", approximate)

    def construct(self, x: Any) -> Tensor:
        """Apply the activation."""
        return attention_ops.gelu(x, "tanh" if self.approximate else "none")


class SiLU(Cell):
    """x * sigmoid(x)."""

    def construct(self, x: Any) -> Tensor:
        """Apply the activation."""
        return attention_ops.silu(x)


class PReLU(Cell):
    """x where x > 0, else w * x, with a learned slope per channel (axis 1) or one for all.

    Args:
        channel: Number of slopes: 1 or the input's channels.
        w: Initial slope (a number), or the initial slopes (a Tensor or array of `channel` values).
    """

    def __init__(self, channel: int = 1, w: Any = 0.25) -> None:
        super().__init__()
        self.channel = check_positive_int("PReLU", "channel", channel)
        if isinstance(w, (int, float)) and not isinstance(w, bool):
            init = np.full((channel,), w, np.float32)
        else:
            init = np.asarray(
                w._data if isinstance(w, Tensor) else w, np.float32
            ).reshape(-1)
            if init.shape != (channel,):
                raise ValueError(
                    f"For 'PReLU', the argument 'w' must be a number or {channel} values, but got shape {init.shape}."
                )
        self.w = Parameter(Tensor(init))

    def construct(self, x: Any) -> Tensor:
        """Apply the activation."""
        return attention_ops.prelu(x, self.w)


class Identity(Cell):
    """Return the input unchanged (arguments are accepted and ignored, as in MindSpore)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def construct(self, x: Any) -> Any:
        """Return `x`."""
        return x if isinstance(x, Tensor) else f.as_tensor(x)
