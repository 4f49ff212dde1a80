"""`LARS`: layer-wise adaptive rate scaling around another optimizer, as MindSpore's `nn.LARS`.

Each parameter the filter selects gets its gradient rescaled before the wrapped
optimizer sees it: g ← c (g + wd w) with the trust ratio
c = coefficient ‖w‖ / (‖g‖ + wd ‖w‖ + epsilon), clipped to [0, 1] after dividing by the
learning rate when `use_clip` (MindSpore's LARSUpdate kernel). The wrapped optimizer then
runs its own rule without weight decay or loss scale: LARS applies both. Composed from
numpy on the gradients (a norm and a scaled sum per parameter, no new loop).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..compute._tensor import Parameter, Tensor
from ..validation import check_bool, check_type
from ._optim import Optimizer
from ._optim_adaptive import _float

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ["LARS"]


def _default_filter(param: Parameter) -> bool:
    return "LayerNorm" not in param.name and "bias" not in param.name


class LARS(Optimizer):
    """Wrap `optimizer` so that each selected parameter's step is scaled by its trust ratio.

    Args:
        optimizer: The optimizer to wrap (its parameters, learning rate and step count are LARS's).
        epsilon: A float added to the ratio's denominator.
        coefficient: The trust coefficient, a float.
        use_clip: Whether the ratio is divided by the learning rate and clipped to [0, 1].
        lars_filter: Which parameters LARS scales (by default those without "LayerNorm"
            or "bias" in their names); the others reach the optimizer unchanged, without
            weight decay, as in MindSpore.
    """

    _lars_decays: tuple[float, ...]
    """The wrapped optimizer's weight decay per parameter, which LARS applies."""

    def __init__(
        self, optimizer: Optimizer, epsilon: float = 1e-05, coefficient: float = 0.001,
        use_clip: bool = False, lars_filter: Callable[[Parameter], bool] = _default_filter,
    ) -> None:  # fmt: skip
        super().__init__(0.0, [Parameter(np.zeros((), np.float32), name="fake_param")])
        owner = "LARS"
        self.opt = check_type(optimizer, "optimizer", Optimizer, owner)
        self.epsilon = _float(owner, "epsilon", epsilon)
        self.coefficient = _float(owner, "coefficient", coefficient)
        self.use_clip = check_bool(use_clip, "use_clip", owner)
        if not callable(lars_filter):
            raise TypeError(
                f"For '{owner}', the argument 'lars_filter' must be callable, but got {lars_filter!r}."
            )
        object.__setattr__(self, "_parameters", optimizer.parameters)
        self.global_step = optimizer.global_step
        # MindSpore's name for LARS's own (unused) rate, so no key repeats the wrapped one's.
        self.learning_rate = Parameter(
            np.zeros((), np.float32), name="fake_lr", requires_grad=False
        )
        self.lars_flag = tuple(bool(lars_filter(p)) for p in optimizer.parameters)
        # LARS applies the wrapped optimizer's weight decay and loss scale itself.
        object.__setattr__(self, "_lars_decays", optimizer._decays)
        self.loss_scale = optimizer.loss_scale
        object.__setattr__(optimizer, "_decays", (0.0,) * len(optimizer._decays))
        optimizer.loss_scale = 1.0

    def get_lr(self) -> Any:
        """The wrapped optimizer's learning rate of the current step."""
        return self.opt.get_lr()

    def construct(self, gradients: Sequence[Any]) -> bool:
        """Scale the selected gradients by their trust ratios, then step the wrapped optimizer."""
        if len(gradients) != len(self.parameters):
            raise ValueError(
                f"For 'LARS', expected {len(self.parameters)} gradients, but got {len(gradients)}."
            )
        rates = self.opt._rates(hold=True) if self.use_clip else None
        scaled = []
        for i, (p, g) in enumerate(zip(self.parameters, gradients, strict=True)):
            grad = (
                np.asarray(g.asnumpy() if isinstance(g, Tensor) else g)
                / self.loss_scale
            )
            if self.lars_flag[i]:
                rate = None if rates is None else rates[i]
                grad = self._scaled(
                    p.asnumpy(), grad, self._lars_decays[i] / self.loss_scale, rate
                )
            scaled.append(grad.astype(p.asnumpy().dtype, copy=False))
        return bool(self.opt(scaled))

    def _scaled(self, w: Any, g: Any, wd: float, rate: float | None) -> Any:
        w_norm = float(np.sqrt(np.sum(np.square(w, dtype=np.float64))))
        g_norm = float(np.sqrt(np.sum(np.square(g, dtype=np.float64))))
        ratio = self.coefficient * w_norm / (g_norm + wd * w_norm + self.epsilon)
        if rate is not None:
            ratio = min(max(ratio / rate, 0.0), 1.0) if rate > 0 else 1.0
        return ratio * (g + wd * w)
