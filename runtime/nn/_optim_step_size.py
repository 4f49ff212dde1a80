"""Optimizers whose step size is state of their own: `Rprop` (per element) and `ASGD` (per parameter).

Both follow MindSpore 2.10's `nn.Rprop` / `nn.ASGD` (their Python rules: MindSpore has
no fused kernel for them), with one fused cadence kernel pass per parameter
(`rprop_update`, `asgd_update`). Learning rates, groups, weight decay and the move to a
device come from `Optimizer`. The first step is where `global_step` is 0 here (1 in
MindSpore, which counts before updating).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compute._tensor import Parameter, ParameterTuple, Tensor
from ..validation import check_number, check_type
from ._optim import Optimizer
from ._optim_adaptive import _float

__all__ = ["ASGD", "Rprop"]


def _pair(owner: str, name: str, value: Any) -> tuple[float, float]:
    check_type(value, name, tuple, owner)
    if len(value) != 2:
        raise ValueError(
            f"For '{owner}', the argument '{name}' must be a tuple of 2 floats, but got {value!r}."
        )
    first, second = (check_number(v, name, owner) for v in value)
    return first, second


class Rprop(Optimizer):
    """Resilient backpropagation, as MindSpore's `nn.Rprop`: each element steps by sign(g) times a size of its own.

    The size starts at the learning rate, grows by eta_plus while the element's gradient
    keeps its sign, shrinks by eta_minus when the sign flips (that gradient is then
    skipped), and stays within `step_sizes`. Only the first step reads the learning rate.

    Args:
        params: Parameters or parameter groups (see `Optimizer`).
        learning_rate: The initial step size (see `Optimizer`).
        etas: (eta_minus in (0, 1), eta_plus > 1).
        step_sizes: (minimum, maximum) step size.
        weight_decay: L2 penalty added to the gradient.
    """

    _state_names = ("prev", "step_size")

    def __init__(
        self, params: Any, learning_rate: Any = 0.1, etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50.0), weight_decay: float = 0.0,
    ) -> None:  # fmt: skip
        super().__init__(learning_rate, params, weight_decay)
        owner = "Rprop"
        self.etaminus, self.etaplus = _pair(owner, "etas", etas)
        if not 0.0 < self.etaminus < 1.0 or self.etaplus <= 1.0:
            raise ValueError(
                f"For '{owner}', the argument 'etas' must be (eta_minus in (0, 1), eta_plus > 1), "
                f"but got {etas!r}."
            )
        self.step_size_min, self.step_size_max = _pair(owner, "step_sizes", step_sizes)
        if self.step_size_min > self.step_size_max:
            raise ValueError(
                f"For '{owner}', the argument 'step_sizes' must be (minimum, maximum) with minimum <= "
                f"maximum, but got {step_sizes!r}."
            )
        self.prev = self._slots("prev")
        self.step_size = self._slots("step_size")

    def _apply(
        self, lrs: list[float], kernels: Any, grads: list[Any], decays: list[float]
    ) -> None:
        first = float(int(self.global_step.asnumpy()[0]) == 0)
        bounds = (
            self.etaminus,
            self.etaplus,
            self.step_size_min,
            self.step_size_max,
            first,
        )
        for i, (p, g, wd, lr) in enumerate(
            zip(self.parameters, grads, decays, lrs, strict=True)
        ):
            if p.requires_grad:
                kernels.rprop_update(
                    p._data,
                    g,
                    self.prev[i]._data,
                    self.step_size[i]._data,
                    *bounds,
                    lr,
                    wd,
                )


class ASGD(Optimizer):
    """Averaged SGD, as MindSpore's `nn.ASGD`: a decaying SGD step and a running average `ax` of the weights.

    Per parameter, eta starts at the learning rate and becomes lr / (1 + lambd lr t)^alpha
    after step t; the average takes the weights with weight mu = 1 / max(1, t - t0).

    Args:
        params: Parameters or parameter groups (see `Optimizer`).
        learning_rate: See `Optimizer`.
        lambd: Decay term, a float.
        alpha: Power of the eta schedule, a float.
        t0: The step after which averaging starts, a float.
        weight_decay: L2 penalty added to the gradient.
    """

    _state_names = ("ax",)

    def __init__(
        self, params: Any, learning_rate: Any = 0.1, lambd: float = 1e-4, alpha: float = 0.75,
        t0: float = 1e6, weight_decay: float = 0.0,
    ) -> None:  # fmt: skip
        super().__init__(learning_rate, params, weight_decay)
        self.lambd = _float("ASGD", "lambd", lambd)
        self.alpha = _float("ASGD", "alpha", alpha)
        self.t0 = _float("ASGD", "t0", t0)
        self.mu, self.eta = (
            ParameterTuple(
                [
                    self._scalar_state(f"{prefix}{p.name}", start)
                    for p in self.parameters
                ]
            )
            for prefix, start in (("mu_", 1.0), ("eta_", 0.0))
        )
        self.ax = self._slots("ax_")

    def _apply(
        self, lrs: list[float], kernels: Any, grads: list[Any], decays: list[float]
    ) -> None:
        step = (
            int(self.global_step.asnumpy()[0]) + 1
        )  # MindSpore's count, taken before the update
        for i, (p, g, wd, lr) in enumerate(
            zip(self.parameters, grads, decays, lrs, strict=True)
        ):
            if not p.requires_grad:
                continue
            eta, mu = self.eta[i], self.mu[i]
            if step == 1:
                _store(eta, lr)
            kernels.asgd_update(
                p._data, g, self.ax[i]._data, _read(eta), self.lambd, _read(mu), wd
            )
            _store(eta, lr / (1.0 + self.lambd * lr * step) ** self.alpha)
            _store(mu, 1.0 / max(1.0, step - self.t0))


def _read(scalar: Parameter) -> float:
    return float(scalar.asnumpy())


def _store(scalar: Parameter, value: float) -> None:
    # float32 state, as MindSpore's: the next step reads the rounded value.
    scalar.set_data(Tensor(np.asarray(value, np.float32)))
