"""Adaptive optimizers of issue 23 with MindSpore's names, arguments and state keys.

`AdamWeightDecay` (state `adam_m.<param>`, `adam_v.<param>`), `RMSProp`
(`mean_grad` when centered, `mean_square`, `moment`), `Adagrad` (`accum`),
`Lamb` (`lamb_m`, `lamb_v`), `Adadelta` (`accum`, `accum_update`),
`ProximalAdagrad` (`accum`) and `FTRL` (`moments`, `linear`). Learning rates (fixed, per step, a
`LearningRateSchedule`), parameter groups, `global_step` and the move to a
device target come from `Optimizer`; a class here only checks its arguments,
creates its state and names its kernel (`cadence.kernels`, one fused pass per
parameter) and that kernel's hyperparameters. MindSpore 2.10 has no
`nn.AdamW`: its decoupled ("AdamW") decay is `AdamWeightDecay`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..validation import check_bool, check_number, check_type
from ._optim import Optimizer

__all__ = [
    "FTRL",
    "Adadelta",
    "Adagrad",
    "AdamWeightDecay",
    "Lamb",
    "ProximalAdagrad",
    "RMSProp",
]


def _float(owner: str, name: str, value: Any, **bounds: Any) -> float:
    """A float (MindSpore rejects ints for these) within `bounds` (see `check_number`)."""
    check_type(value, name, float, owner)
    return check_number(value, name, owner, **bounds)


class _FusedOptimizer(Optimizer):
    """Applies `kernel` to each trained parameter: kernel(param, grad, *states, lr, *hyper(weight decay)).

    Subclasses set `_kernel`, `_state_names` (the per-parameter state, in the
    kernel's argument order) and `_hyper`.
    """

    _kernel: str

    def _hyper(self, weight_decay: float) -> tuple[Any, ...]:
        raise NotImplementedError

    def _apply(
        self, lrs: list[float], kernels: Any, grads: list[Any], decays: list[float]
    ) -> None:
        update = getattr(kernels, self._kernel)
        states = [getattr(self, name) for name in self._state_names]
        for i, (p, g, wd, lr) in enumerate(
            zip(self.parameters, grads, decays, lrs, strict=True)
        ):
            if p.requires_grad:
                update(p._data, g, *(s[i]._data for s in states), lr, *self._hyper(wd))


class _AdamMoments(_FusedOptimizer):
    """AdamWeightDecay and Lamb: beta1, beta2, eps checked as MindSpore checks them; two moments."""

    _state_names = ("moments1", "moments2")
    _prefix: str

    # fmt: off
    def __init__(
        self, params: Any, learning_rate: Any = 1e-3, beta1: float = 0.9, beta2: float = 0.999,
        eps: float = 1e-6, weight_decay: float = 0.0,
    ) -> None:
        # fmt: on
        super().__init__(learning_rate, params, weight_decay)
        owner = type(self).__name__
        inside = {"minimum": 0.0, "maximum": 1.0, "inclusive": False}
        self.beta1 = _float(owner, "beta1", beta1, **inside)
        self.beta2 = _float(owner, "beta2", beta2, **inside)
        self.eps = _float(owner, "eps", eps, minimum=0.0, inclusive=False)
        self.moments1 = self._slots(f"{self._prefix}_m", "zeros")
        self.moments2 = self._slots(f"{self._prefix}_v", "zeros")


class AdamWeightDecay(_AdamMoments):
    """Adam with decoupled weight decay, as MindSpore's `nn.AdamWeightDecay` (no bias correction).

    m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g²;
    p -= lr (m / (sqrt(v) + eps) + weight_decay p).

    Args:
        params: Parameters or parameter groups (see `Optimizer`).
        learning_rate: See `Optimizer`.
        beta1: Decay of the first moment, a float in (0, 1).
        beta2: Decay of the second moment, a float in (0, 1).
        eps: Added to the denominator, a float > 0.
        weight_decay: Decoupled decay (skips names holding "beta"/"gamma" unless grouped).
    """

    _kernel = "adam_weight_decay_update"
    _prefix = "adam"

    def _hyper(self, weight_decay: float) -> tuple[Any, ...]:
        return self.beta1, self.beta2, self.eps, weight_decay


class Lamb(_AdamMoments):
    """LAMB, as MindSpore's `nn.Lamb`: the bias-corrected Adam direction plus decay, scaled per parameter.

    r = m̂ / (sqrt(v̂) + eps) + weight_decay p; p -= lr (‖p‖ / ‖r‖) r (ratio 1 when a norm is 0).

    Args: those of `AdamWeightDecay`, but `learning_rate` is required, as in MindSpore.
    """

    _kernel = "lamb_update"
    _prefix = "lamb"

    def __init__(
        self, params: Any, learning_rate: Any, *args: Any, **kwargs: Any
    ) -> None:
        # The arguments of AdamWeightDecay, but the learning rate is required, as in MindSpore.
        super().__init__(params, learning_rate, *args, **kwargs)

    def _hyper(self, weight_decay: float) -> tuple[Any, ...]:
        # MindSpore counts the step before the update: the first update is step 1.
        step = int(np.asarray(self.global_step.asnumpy())[0]) + 1
        return self.beta1, self.beta2, self.eps, weight_decay, step


class RMSProp(_FusedOptimizer):
    """RMSProp, as MindSpore's `nn.RMSProp` (ApplyRMSProp / ApplyCenteredRMSProp).

    ms = decay ms + (1 - decay) g²; (centered: mg = decay mg + (1 - decay) g, and ms - mg² below);
    moment = momentum moment + lr g / sqrt(ms + epsilon); p -= moment.

    Args:
        params: Parameters or parameter groups (see `Optimizer`).
        learning_rate: See `Optimizer`.
        decay: Decay of the mean square, a float >= 0.
        momentum: A float >= 0.
        epsilon: Added inside the square root, a float > 0.
        use_locking: Accepted for MindSpore compatibility (a bool).
        centered: Normalize by the variance estimate instead of the mean square.
        loss_scale: Gradients are divided by it.
        weight_decay: L2 penalty added to the gradient.
    """

    _kernel = "rmsprop_update"
    _state_names: tuple[str, ...] = ("mean_grad", "mean_square", "moment")

    # fmt: off
    def __init__(
        self, params: Any, learning_rate: Any = 0.1, decay: float = 0.9, momentum: float = 0.0,
        epsilon: float = 1e-10, use_locking: bool = False, centered: bool = False,
        loss_scale: float = 1.0, weight_decay: float = 0.0,
    ) -> None:
        # fmt: on
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.decay = _float("RMSProp", "decay", decay, minimum=0.0)
        self.momentum = _float("RMSProp", "momentum", momentum, minimum=0.0)
        self.epsilon = _float(
            "RMSProp", "epsilon", epsilon, minimum=0.0, inclusive=False
        )
        check_bool(use_locking, "use_locking", "RMSProp")
        self.centered = check_bool(centered, "centered", "RMSProp")
        if centered:
            self.mean_grad = self._slots("mean_grad", "zeros")
        self.mean_square = self._slots("mean_square", "ones")
        self.moment = self._slots("moment", "zeros")
        if not centered:
            # Not a state here (MindSpore has no `mean_grad` then): the kernel never
            # reads its first slot, so the mean squares fill it.
            self._state_names = ("mean_square", "mean_square", "moment")

    def _device_state(self) -> list[Any]:
        return list({id(p): p for p in super()._device_state()}.values())

    def _hyper(self, weight_decay: float) -> tuple[Any, ...]:
        return self.decay, self.momentum, self.epsilon, weight_decay, self.centered


class Adagrad(_FusedOptimizer):
    """Adagrad, as MindSpore's `nn.Adagrad` (ApplyAdagrad): accum += g²; p -= lr g / sqrt(accum).

    Args:
        params: Parameters or parameter groups (see `Optimizer`).
        accum: Initial value of the accumulators, a float >= 0.
        learning_rate: See `Optimizer`.
        update_slots: Whether the accumulators are updated.
        loss_scale: Gradients are divided by it.
        weight_decay: L2 penalty added to the gradient.
    """

    _kernel = "adagrad_update"
    _state_names = ("accum",)

    def __init__(
        self,
        params: Any,
        accum: float = 0.1,
        learning_rate: Any = 0.001,
        update_slots: bool = True,
        loss_scale: float = 1.0,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        initial = _float("Adagrad", "accum", accum, minimum=0.0)
        self.update_slots = check_bool(update_slots, "update_slots", "Adagrad")
        self.accum = self._slots("accum", initial)

    def _hyper(self, weight_decay: float) -> tuple[Any, ...]:
        return weight_decay, self.update_slots


class Adadelta(_FusedOptimizer):
    """Adadelta, as MindSpore's `nn.Adadelta` (ApplyAdadelta): steps scaled by RMS(past steps) / RMS(gradients).

    accum ← rho accum + (1 - rho) g²; u = sqrt(accum_update + eps) g / sqrt(accum + eps);
    accum_update ← rho accum_update + (1 - rho) u²; p -= lr u.

    Args:
        params: Parameters or parameter groups (see `Optimizer`).
        learning_rate: See `Optimizer` (default 1.0).
        rho: Decay of both averages, a float in [0, 1].
        epsilon: A float >= 0 inside both square roots.
        loss_scale: Gradients are divided by it.
        weight_decay: L2 penalty added to the gradient.
    """

    _kernel = "adadelta_update"
    _state_names = ("accum", "accum_update")

    def __init__(
        self, params: Any, learning_rate: Any = 1.0, rho: float = 0.9, epsilon: float = 1e-6,
        loss_scale: float = 1.0, weight_decay: float = 0.0,
    ) -> None:  # fmt: skip
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.rho = _float("Adadelta", "rho", rho, minimum=0.0, maximum=1.0)
        self.epsilon = _float("Adadelta", "epsilon", epsilon, minimum=0.0)
        self.accum = self._slots("accum")
        self.accum_update = self._slots("accum_update")

    def _hyper(self, weight_decay: float) -> tuple[Any, ...]:
        return self.rho, self.epsilon, weight_decay


class ProximalAdagrad(_FusedOptimizer):
    """ProximalAdagrad, as MindSpore's `nn.ProximalAdagrad` (ApplyProximalAdagrad): Adagrad, then L1/L2 shrinkage.

    accum += g²; with the rate r = lr / sqrt(accum), v = p - r g and
    p = sign(v) max(|v| - r l1, 0) / (1 + r l2) (the rate in the shrinkage too, as
    MindSpore's kernel computes it; its documentation writes lr there).

    Args:
        params: Parameters or parameter groups (see `Optimizer`).
        accum: Initial value of the accumulators, a float >= 0.
        learning_rate: See `Optimizer`.
        l1, l2: Regularization strengths, floats >= 0.
        use_locking: Accepted for MindSpore compatibility (updates never race here).
        loss_scale: Gradients are divided by it.
        weight_decay: L2 penalty added to the gradient.
    """

    _kernel = "proximal_adagrad_update"
    _state_names = ("accum",)

    def __init__(
        self, params: Any, accum: float = 0.1, learning_rate: Any = 0.001, l1: float = 0.0,
        l2: float = 0.0, use_locking: bool = False, loss_scale: float = 1.0,
        weight_decay: float = 0.0,
    ) -> None:  # fmt: skip
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        owner = "ProximalAdagrad"
        initial = _float(owner, "accum", accum, minimum=0.0)
        self.l1 = _float(owner, "l1", l1, minimum=0.0)
        self.l2 = _float(owner, "l2", l2, minimum=0.0)
        self.use_locking = check_bool(use_locking, "use_locking", owner)
        self.accum = self._slots("accum", initial)

    def _hyper(self, weight_decay: float) -> tuple[Any, ...]:
        return self.l1, self.l2, weight_decay


class FTRL(_FusedOptimizer):
    """FTRL-proximal, as MindSpore's `nn.FTRL` (ApplyFtrl): per-coordinate rates and L1/L2 in closed form.

    accum' = accum + g²; linear += g - (accum'^-lr_power - accum^-lr_power) / lr * p;
    p = (sign(linear) l1 - linear) / (accum'^-lr_power / lr + 2 l2) where |linear| > l1, else 0.

    Args:
        params: Parameters or parameter groups (groups may set `weight_decay`, not `lr`).
        initial_accum: Initial value of the accumulators (`moments`), a float >= 0.
        learning_rate: A fixed float > 0 (MindSpore's FTRL takes no schedule).
        lr_power: A float <= 0 (-0.5: square roots, as Adagrad).
        l1, l2: Regularization strengths, floats >= 0.
        use_locking: Accepted for MindSpore compatibility.
        loss_scale: Gradients are divided by it.
        weight_decay: L2 penalty added to the gradient (ungrouped: of every parameter,
            "beta" and "gamma" ones too, as MindSpore's FTRL).
    """

    _kernel = "ftrl_update"
    _state_names = ("moments", "linear")

    def __init__(
        self, params: Any, initial_accum: float = 0.1, learning_rate: float = 0.001,
        lr_power: float = -0.5, l1: float = 0.0, l2: float = 0.0, use_locking: bool = False,
        loss_scale: float = 1.0, weight_decay: float = 0.0,
    ) -> None:  # fmt: skip
        owner = "FTRL"
        rate = _float(
            owner, "learning_rate", learning_rate, minimum=0.0, inclusive=False
        )
        super().__init__(rate, params, weight_decay, loss_scale)
        if self.is_group_lr:
            raise ValueError(
                f"For '{owner}', parameter groups must not set 'lr': FTRL takes one fixed learning rate."
            )
        initial = _float(owner, "initial_accum", initial_accum, minimum=0.0)
        self.lr_power = _float(owner, "lr_power", lr_power, maximum=0.0)
        self.l1 = _float(owner, "l1", l1, minimum=0.0)
        self.l2 = _float(owner, "l2", l2, minimum=0.0)
        self.use_locking = check_bool(use_locking, "use_locking", owner)
        if not self.is_group:
            object.__setattr__(
                self, "_decays", (self.weight_decay,) * len(self.parameters)
            )
        self.moments = self._slots("moments", initial)
        self.linear = self._slots("linear")

    def _hyper(self, weight_decay: float) -> tuple[Any, ...]:
        return self.l1, self.l2, self.lr_power, weight_decay
