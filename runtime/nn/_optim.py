"""Optimizers with MindSpore's names, arguments and state parameters: `SGD`, `Momentum`, `Adam`.

State parameters are named as MindSpore names them, so a `TrainOneStepCell`'s
parameters match a MindSpore checkpoint's keys: `global_step` (Int32, shape
(1,)), `learning_rate`, then per optimizer e.g. SGD's `momentum`,
`accum.<param>` and `stat.<param>`. `learning_rate` is a `Parameter` that
callbacks may change (`optimizer.learning_rate.set_data(...)`); a list of
rates (dynamic LR) is indexed by `global_step`, a `LearningRateSchedule` is
called with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..compute import _dtype
from ..compute._context import current_target
from ..compute._tensor import Parameter, ParameterTuple, Tensor
from ..ops._placement import on_target, to_target
from ._cell import Cell
from ._lr import LearningRateSchedule

__all__ = ["SGD", "Adam", "Momentum", "Optimizer"]


def _non_negative(owner: str, name: str, value: Any) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be a float, but got {value!r}."
        )
    if value < 0:
        raise ValueError(
            f"For '{owner}', the argument '{name}' must be at least 0.0, but got {value!r}."
        )
    return float(value)


def _default_decay_filter(p: Parameter) -> bool:
    return "beta" not in p.name and "gamma" not in p.name


class Optimizer(Cell):
    """Base of optimizers; subclasses implement `_apply(lr, params, grads)`.

    Args:
        learning_rate: A float >= 0, a list/array of per-step rates, a 0-/1-D Tensor,
            or a `LearningRateSchedule`.
        parameters: The parameters to update (a list of Parameters, or of dicts
            with a `"params"` list and optionally `"weight_decay"`).
        weight_decay: L2 penalty added to gradients (not applied to parameters whose
            name contains "beta" or "gamma").
        loss_scale: Gradients are divided by it.
    """

    _parameters: ParameterTuple
    _decays: tuple[float, ...]
    _state_names: tuple[str, ...] = ()
    """Attributes holding a ParameterTuple of per-parameter state (moved to device targets)."""
    learning_rate: Any

    def __init__(
        self,
        learning_rate: Any,
        parameters: Any,
        weight_decay: float = 0.0,
        loss_scale: float = 1.0,
    ) -> None:
        super().__init__(auto_prefix=False)
        owner = type(self).__name__
        params, decays = self._parse_params(
            owner, parameters, _non_negative(owner, "weight_decay", weight_decay)
        )
        if not isinstance(loss_scale, (int, float)) or loss_scale <= 0:  # type: ignore[redundant-expr]
            raise ValueError(
                f"For '{owner}', the argument 'loss_scale' must be a float > 0, but got {loss_scale!r}."
            )
        object.__setattr__(self, "_parameters", ParameterTuple(params))
        object.__setattr__(self, "_decays", tuple(decays))
        self.weight_decay = float(weight_decay)
        self.loss_scale = float(loss_scale)
        self.global_step = Parameter(
            np.zeros(1, np.int32), name="global_step", requires_grad=False
        )
        self.dynamic_lr = False
        if isinstance(learning_rate, LearningRateSchedule):
            self.dynamic_lr = True
            self.learning_rate = learning_rate
        else:
            self.learning_rate = Parameter(
                self._lr_array(owner, learning_rate),
                name="learning_rate",
                requires_grad=False,
            )

    @staticmethod
    def _parse_params(
        owner: str, parameters: Any, weight_decay: float
    ) -> tuple[list[Parameter], list[float]]:
        if isinstance(parameters, (Parameter, Tensor)) or not isinstance(
            parameters, Iterable
        ):
            raise TypeError(
                f"For '{owner}', the argument 'parameters' must be a list of Parameters, but got {parameters!r}."
            )
        params: list[Parameter] = []
        decays: list[float] = []
        for item in list(parameters):
            group = item if isinstance(item, dict) else {"params": [item]}
            wd = _non_negative(
                owner, "weight_decay", group.get("weight_decay", weight_decay)
            )
            for p in group["params"]:
                if not isinstance(p, Parameter):
                    raise TypeError(
                        f"For '{owner}', every element of 'parameters' must be a Parameter, but got {p!r}."
                    )
                params.append(p)
                decays.append(
                    wd if ("weight_decay" in group or _default_decay_filter(p)) else 0.0
                )
        if not params:
            raise ValueError(
                f"For '{owner}', the argument 'parameters' must not be empty."
            )
        return params, decays

    @staticmethod
    def _lr_array(owner: str, lr: Any) -> np.ndarray[Any, Any]:
        if isinstance(lr, Tensor):
            arr = lr.asnumpy().astype(np.float32)
        elif (isinstance(lr, (int, float)) and not isinstance(lr, bool)) or isinstance(
            lr, (list, tuple, np.ndarray)
        ):
            arr = np.asarray(lr, np.float32)
        else:
            raise TypeError(
                f"For '{owner}', the argument 'learning_rate' must be a float, list, Tensor or LearningRateSchedule, but got {lr!r}."
            )
        if arr.ndim > 1 or arr.size == 0:
            raise ValueError(
                f"For '{owner}', the argument 'learning_rate' must be a scalar or a non-empty 1-D sequence, but got shape {arr.shape}."
            )
        if (arr < 0).any():
            raise ValueError(
                f"For '{owner}', the argument 'learning_rate' must be at least 0.0, but got {lr!r}."
            )
        return arr

    @property
    def parameters(self) -> ParameterTuple:
        """The parameters this optimizer updates."""
        return self._parameters

    def get_lr(self) -> Tensor:
        """Return the learning rate of the current step (no side effects)."""
        step = int(self.global_step.asnumpy()[0])
        if isinstance(self.learning_rate, LearningRateSchedule):
            return self.learning_rate(Tensor(step, _dtype.int32))  # type: ignore[no-any-return]
        data = self.learning_rate.asnumpy()
        if data.ndim == 0:
            return Tensor._wrap(data.copy())
        return Tensor._wrap(np.asarray(data[min(step, data.size - 1)]))

    def construct(self, gradients: Sequence[Any]) -> bool:
        """Apply one update from `gradients` (one per parameter, Tensors or arrays)."""
        if len(gradients) != len(self._parameters):
            raise ValueError(
                f"For '{type(self).__name__}', expected {len(self._parameters)} gradients, but got {len(gradients)}."
            )
        lr = float(self.get_lr().asnumpy())
        grads = [g._data if isinstance(g, Tensor) else g for g in gradients]
        if self.loss_scale != 1.0:
            grads = [g / self.loss_scale for g in grads]
        target = current_target()
        if not target.on_host:
            # Weights and their state move to the device once and stay there.
            for p in self._device_state():
                on_target(p, target)
            grads = [to_target(g, target) for g in grads]
        self._apply(lr, target.kernels, grads)
        self.global_step.asnumpy()[0] += 1
        return True

    def _device_state(self) -> list[Parameter]:
        """Return the parameters and the per-parameter state buffers the kernels update."""
        state = list(self._parameters)
        for name in self._state_names:
            state.extend(getattr(self, name))
        return state

    def _apply(
        self, lr: float, kernels: Any, grads: list[np.ndarray[Any, Any]]
    ) -> None:
        raise NotImplementedError


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, dampening and Nesterov, as MindSpore's SGD.

    Args:
        params: Parameters to update.
        learning_rate: See `Optimizer`.
        momentum: Momentum factor >= 0.
        dampening: Dampening of the momentum >= 0.
        weight_decay: L2 penalty.
        nesterov: Nesterov momentum (needs momentum > 0 and dampening 0).
        loss_scale: Gradients are divided by it.

    Example:
        >>> import cadence.nn as nn
        >>> net = nn.Dense(4, 2)
        >>> [p.name for p in nn.SGD(net.trainable_params(), 0.01).get_parameters()][:3]
        ['global_step', 'learning_rate', 'momentum']
    """

    _state_names = ("accum", "stat")

    def __init__(
        self,
        params: Any,
        learning_rate: Any = 0.1,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
        loss_scale: float = 1.0,
    ) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        mom = _non_negative("SGD", "momentum", momentum)
        self.dampening = _non_negative("SGD", "dampening", dampening)
        if not isinstance(nesterov, bool):
            raise TypeError(
                f"For 'SGD', the argument 'nesterov' must be a bool, but got {nesterov!r}."
            )
        if nesterov and (mom <= 0 or self.dampening != 0):
            raise ValueError(
                f"For 'SGD', 'nesterov' needs momentum > 0 and dampening == 0, but got momentum={momentum!r}, dampening={dampening!r}."
            )
        self.nesterov = nesterov
        self.momentum = Parameter(
            np.asarray(mom, np.float32), name="momentum", requires_grad=False
        )
        self.accum = self.parameters.clone(prefix="accum", init="zeros")
        self.stat = self.parameters.clone(prefix="stat", init="ones")
        for p in (*self.accum, *self.stat):
            p.requires_grad = False

    def _apply(
        self, lr: float, kernels: Any, grads: list[np.ndarray[Any, Any]]
    ) -> None:
        mom = float(self.momentum.asnumpy())
        update = kernels.sgd_update
        for p, g, a, s, wd in zip(
            self.parameters, grads, self.accum, self.stat, self._decays, strict=True
        ):
            if p.requires_grad:
                update(
                    p._data,
                    g,
                    a._data,
                    s._data,
                    lr,
                    mom,
                    self.dampening,
                    wd,
                    self.nesterov,
                )


class Momentum(Optimizer):
    """Momentum SGD, as MindSpore's `nn.Momentum` (state `moments.<param>`).

    Args:
        params: Parameters to update.
        learning_rate: See `Optimizer`.
        momentum: Momentum factor >= 0.
        weight_decay: L2 penalty.
        loss_scale: Gradients are divided by it.
        use_nesterov: Nesterov momentum.
    """

    _state_names = ("moments",)

    def __init__(
        self,
        params: Any,
        learning_rate: Any,
        momentum: float,
        weight_decay: float = 0.0,
        loss_scale: float = 1.0,
        use_nesterov: bool = False,
    ) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        mom = _non_negative("Momentum", "momentum", momentum)
        if not isinstance(use_nesterov, bool):
            raise TypeError(
                f"For 'Momentum', the argument 'use_nesterov' must be a bool, but got {use_nesterov!r}."
            )
        self.use_nesterov = use_nesterov
        self.momentum = Parameter(
            np.asarray(mom, np.float32), name="momentum", requires_grad=False
        )
        self.moments = self.parameters.clone(prefix="moments", init="zeros")
        for p in self.moments:
            p.requires_grad = False

    def _apply(
        self, lr: float, kernels: Any, grads: list[np.ndarray[Any, Any]]
    ) -> None:
        mom = float(self.momentum.asnumpy())
        for p, g, m, wd in zip(
            self.parameters, grads, self.moments, self._decays, strict=True
        ):
            if p.requires_grad:
                kernels.momentum_update(
                    p._data, g, m._data, lr, mom, wd, self.use_nesterov
                )


class Adam(Optimizer):
    """Adam, as MindSpore's `nn.Adam` (state `beta1_power`, `beta2_power`, `moment1.<param>`, `moment2.<param>`).

    Args:
        params: Parameters to update.
        learning_rate: See `Optimizer`.
        beta1: Decay of the first moment, in (0, 1).
        beta2: Decay of the second moment, in (0, 1).
        eps: Added to the denominator, > 0.
        use_locking: Accepted for MindSpore compatibility.
        use_nesterov: Nesterov-style first moment.
        weight_decay: L2 penalty.
        loss_scale: Gradients are divided by it.
    """

    _state_names = ("moment1", "moment2")

    def __init__(
        self,
        params: Any,
        learning_rate: Any = 1e-3,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-8,
        use_locking: bool = False,
        use_nesterov: bool = False,
        weight_decay: float = 0.0,
        loss_scale: float = 1.0,
    ) -> None:
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        for name, value in (("beta1", beta1), ("beta2", beta2)):
            if not isinstance(value, float) or not 0 < value < 1:  # type: ignore[redundant-expr]
                raise ValueError(
                    f"For 'Adam', the argument '{name}' must be a float in range (0, 1), but got {value!r}."
                )
        if not isinstance(eps, float) or eps <= 0:  # type: ignore[redundant-expr]
            raise ValueError(
                f"For 'Adam', the argument 'eps' must be a float > 0, but got {eps!r}."
            )
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.use_nesterov = bool(use_nesterov)
        self.beta1_power = Parameter(
            np.asarray(1.0, np.float32), name="beta1_power", requires_grad=False
        )
        self.beta2_power = Parameter(
            np.asarray(1.0, np.float32), name="beta2_power", requires_grad=False
        )
        self.moment1 = self.parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self.parameters.clone(prefix="moment2", init="zeros")
        for p in (*self.moment1, *self.moment2):
            p.requires_grad = False

    def _apply(
        self, lr: float, kernels: Any, grads: list[np.ndarray[Any, Any]]
    ) -> None:
        b1p = self.beta1_power.asnumpy()
        b2p = self.beta2_power.asnumpy()
        b1p *= self.beta1
        b2p *= self.beta2
        for p, g, m, v, wd in zip(
            self.parameters,
            grads,
            self.moment1,
            self.moment2,
            self._decays,
            strict=True,
        ):
            if p.requires_grad:
                kernels.adam_update(
                    p._data,
                    g,
                    m._data,
                    v._data,
                    lr,
                    self.beta1,
                    self.beta2,
                    self.eps,
                    float(b1p),
                    float(b2p),
                    wd,
                    self.use_nesterov,
                )
