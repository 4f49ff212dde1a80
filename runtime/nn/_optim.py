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

from typing import TYPE_CHECKING, Any

import numpy as np

from ..compute import _dtype
from ..compute._context import current_target
from ..compute._tensor import Parameter, ParameterTuple, Tensor
from ..ops._placement import on_target, to_target
from ..validation import check_bool
from ._cell import Cell
from ._param_groups import centralizable, centralize, parse_param_groups
from ._shared_weights import make_private
from .learning_rate_schedule import LearningRateSchedule

if TYPE_CHECKING:
    from collections.abc import Sequence

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


class Optimizer(Cell):
    """Base of optimizers; subclasses implement `_apply(lrs, kernels, grads, decays)`.

    Args:
        learning_rate: A float >= 0, a list/array of per-step rates, a 0-/1-D Tensor,
            or a `LearningRateSchedule`.
        parameters: The parameters to update: a list of Parameters, or of group
            dicts with a `"params"` list and optionally `"lr"`, `"weight_decay"`,
            `"grad_centralization"`; a dict holding only `"order_params"` orders
            them (see `cadence.nn._param_groups`).
        weight_decay: L2 penalty added to gradients (with a list of Parameters, not
            applied to those whose name contains "beta" or "gamma"; in groups, the
            default of groups without their own).
        loss_scale: Gradients are divided by it.
    """

    _parameters: ParameterTuple
    _decays: tuple[float, ...]
    _centralize: tuple[bool, ...]
    _lr_sources: tuple[Any, ...]
    """Per parameter: the `Parameter` or `LearningRateSchedule` giving its rate (group learning rates)."""
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
        groups = parse_param_groups(
            owner, parameters, _non_negative(owner, "weight_decay", weight_decay)
        )
        if not isinstance(loss_scale, (int, float)) or loss_scale <= 0:  # type: ignore[redundant-expr]
            raise ValueError(
                f"For '{owner}', the argument 'loss_scale' must be a float > 0, but got {loss_scale!r}."
            )
        object.__setattr__(self, "_parameters", ParameterTuple(groups.params))
        object.__setattr__(self, "_decays", tuple(groups.decays))
        object.__setattr__(self, "_centralize", tuple(groups.centralize))
        self.is_group = groups.grouped
        self.is_group_lr = bool(groups.lrs)
        self.weight_decay = float(weight_decay)
        self.loss_scale = float(loss_scale)
        self.global_step = Parameter(
            np.zeros(1, np.int32), name="global_step", requires_grad=False
        )
        default = self._lr_source(owner, learning_rate, "learning_rate")
        self.dynamic_lr = isinstance(default, LearningRateSchedule)
        if not groups.lrs:
            object.__setattr__(self, "_lr_sources", ())
            self.learning_rate = default
            return
        # Group learning rates, as MindSpore names them: `learning_rate_group_<group index>`;
        # `learning_rate` stays for the parameters of groups without their own.
        by_group = {
            index: self._lr_source(owner, value, f"learning_rate_group_{index}")
            for index, value in groups.lrs.items()
        }
        sources = tuple(
            default if slot is None else by_group[slot] for slot in groups.lr_slot
        )
        object.__setattr__(self, "_lr_sources", sources)
        self.dynamic_lr = any(isinstance(s, LearningRateSchedule) for s in sources)
        unique = {id(s): s for s in sources if isinstance(s, Parameter)}
        self.learning_rate = ParameterTuple(list(unique.values()))

    @classmethod
    def _lr_source(cls, owner: str, lr: Any, name: str) -> Any:
        """A `LearningRateSchedule` as is, else a Parameter `name` holding the rate (or per-step rates)."""
        if isinstance(lr, LearningRateSchedule):
            return lr
        return Parameter(cls._lr_array(owner, lr), name=name, requires_grad=False)

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

    def get_lr(self) -> Any:
        """Return the learning rate of the current step (no side effects).

        A Tensor; with group learning rates, a tuple of one Tensor per parameter,
        as MindSpore returns them.
        """
        step = int(self.global_step.asnumpy()[0])
        if self._lr_sources:
            return tuple(self._rate(source, step) for source in self._lr_sources)
        return self._rate(self.learning_rate, step)

    @staticmethod
    def _rate(source: Any, step: int) -> Tensor:
        if isinstance(source, LearningRateSchedule):
            return source(Tensor(step, _dtype.int32))  # type: ignore[no-any-return]
        data = source.asnumpy()
        if data.ndim == 0:
            return Tensor._wrap(data.copy())
        return Tensor._wrap(np.asarray(data[min(step, data.size - 1)]))

    def _one_rate(self, rate: Any) -> float:
        """A step's learning rate as a float: any shape of one element, as MindSpore broadcasts it.

        The model zoo's BERT schedules compute with `Tensor(np.array([x]))` and return shape (1,).
        """
        data = np.asarray(rate.asnumpy() if isinstance(rate, Tensor) else rate)
        if data.size != 1:
            raise ValueError(
                f"For '{type(self).__name__}', the learning rate of a step must hold one value, "
                f"but the 'learning_rate' schedule returned shape {data.shape}."
            )
        return float(data.reshape(()))

    def _rates(self, *, hold: bool = False) -> list[float]:
        """The current learning rate of every parameter.

        A schedule runs once per step: a step folded into the backward pass reads the
        rates first (`hold=True`) and keeps them for the `construct` of the same step.
        """
        step = int(self.global_step.asnumpy()[0])
        held = self.__dict__.pop("_held_rates", None)
        if held is not None and held[0] == step:
            return held[1]  # type: ignore[no-any-return]
        rates = self.get_lr()
        if isinstance(rates, tuple):
            found = [self._one_rate(r) for r in rates]
        else:
            found = [self._one_rate(rates)] * len(self._parameters)
        if hold:
            object.__setattr__(self, "_held_rates", (step, found))
        return found

    def construct(self, gradients: Sequence[Any]) -> bool:
        """Apply one update from `gradients` (one per parameter, Tensors or arrays)."""
        if len(gradients) != len(self._parameters):
            raise ValueError(
                f"For '{type(self).__name__}', expected {len(self._parameters)} gradients, but got {len(gradients)}."
            )
        lrs = self._rates()
        grads = [g._data if isinstance(g, Tensor) else g for g in gradients]
        if self.loss_scale != 1.0:
            grads = [g / self.loss_scale for g in grads]
        decays = list(self._decays)
        if any(self._centralize):
            self._centralize_grads(grads, decays)
        # Data-parallel ranks may keep these weights once per machine: update copies of their own.
        make_private(
            p for p, g in zip(self._parameters, grads, strict=True) if g is not None
        )
        target = current_target()
        if not target.on_host:
            # Weights and their state move to the device once and stay there.
            for p in self._device_state():
                on_target(p, target)
            grads = [to_target(g, target) for g in grads]
        self._apply(lrs, target.kernels, grads, decays)
        self.global_step.asnumpy()[0] += 1
        return True

    def _centralize_grads(self, grads: list[Any], decays: list[float]) -> None:
        """Centralize the flagged gradients in place, after their weight decay (as MindSpore orders them)."""
        for i, flag in enumerate(self._centralize):
            grad = np.asarray(grads[i])
            if not flag or not centralizable(grad):
                continue
            if decays[i]:
                # The decay joins the gradient here, so the kernel must not add it again.
                grad = grad + decays[i] * self._parameters[i].asnumpy()
                decays[i] = 0.0
            grads[i] = centralize(grad).astype(grad.dtype, copy=False)

    def _device_state(self) -> list[Parameter]:
        """Return the parameters and the per-parameter state buffers the kernels update."""
        state = list(self._parameters)
        for name in self._state_names:
            state.extend(getattr(self, name))
        return state

    def _slots(self, prefix: str, init: Any = "zeros") -> ParameterTuple:
        """Per-parameter state named `<prefix>.<param name>`, never trained."""
        state = self.parameters.clone(prefix=prefix, init=init)
        for p in state:
            p.requires_grad = False
        return state

    @staticmethod
    def _scalar_state(name: str, value: float) -> Parameter:
        """A float32 scalar of optimizer state (`momentum`, `beta1_power`), never trained."""
        return Parameter(np.asarray(value, np.float32), name=name, requires_grad=False)

    # grads: host arrays, or the device target's arrays after `construct` moved them.
    def _apply(
        self, lrs: list[float], kernels: Any, grads: list[Any], decays: list[float]
    ) -> None:
        """Update every parameter from its gradient, learning rate and weight decay."""
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
        check_bool(nesterov, "nesterov", "SGD")
        if nesterov and (mom <= 0 or self.dampening != 0):
            raise ValueError(
                f"For 'SGD', 'nesterov' needs momentum > 0 and dampening == 0, but got momentum={momentum!r}, dampening={dampening!r}."
            )
        self.nesterov = nesterov
        self.momentum = self._scalar_state("momentum", mom)
        self.accum = self._slots("accum")
        self.stat = self._slots("stat", "ones")

    def folded_steps(self) -> dict[int, tuple[float, float]] | None:
        """This step's (learning rate, weight decay) by parameter id, if it may run inside backward.

        Plain SGD (momentum 0, read at every step: a callback may change it) needs
        nothing but each gradient, so `TrainOneStepCell` lets the ops that compute a
        gradient apply the step themselves. Not with a loss scale or gradient
        centralization (they transform the gradient first), not in a subclass
        (it may change the update), and on host targets only. None: not now.
        """
        if (
            type(self) is not SGD
            or self.loss_scale != 1.0
            or any(self._centralize)
            or float(self.momentum.asnumpy()) != 0.0
            or not current_target().on_host
            or not hasattr(current_target().kernels, "dense_backward_sgd")
        ):
            return None
        return {
            id(p): (lr, wd)
            for p, lr, wd in zip(
                self.parameters, self._rates(hold=True), self._decays, strict=True
            )
            if p.requires_grad
        }

    def _apply(
        self, lrs: list[float], kernels: Any, grads: list[Any], decays: list[float]
    ) -> None:
        mom = float(self.momentum.asnumpy())
        update = kernels.sgd_update
        for p, g, a, s, wd, lr in zip(
            self.parameters, grads, self.accum, self.stat, decays, lrs, strict=True
        ):
            # None: the step was folded into the backward pass (see `folded_steps`).
            if p.requires_grad and g is not None:
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
        check_bool(use_nesterov, "use_nesterov", "Momentum")
        self.use_nesterov = use_nesterov
        self.momentum = self._scalar_state("momentum", mom)
        self.moments = self._slots("moments")

    def _apply(
        self, lrs: list[float], kernels: Any, grads: list[Any], decays: list[float]
    ) -> None:
        mom = float(self.momentum.asnumpy())
        for p, g, m, wd, lr in zip(
            self.parameters, grads, self.moments, decays, lrs, strict=True
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
        use_amsgrad: AMSGrad: divide by the running maximum of the second moment
            (state `vhat.<param>`; `use_nesterov` is then ignored, as in MindSpore).
        **kwargs: MindSpore's `use_lazy` and `use_offload` (bools; they only change how
            MindSpore stores sparse gradients and state, so they change nothing here).
    """

    _state_names: tuple[str, ...] = ("moment1", "moment2")

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
        use_amsgrad: bool = False,
        **kwargs: Any,
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
        self.beta1_power = self._scalar_state("beta1_power", 1.0)
        self.beta2_power = self._scalar_state("beta2_power", 1.0)
        self.moment1 = self._slots("moment1")
        self.moment2 = self._slots("moment2")
        self.use_amsgrad = _amsgrad_flag(use_amsgrad, kwargs)
        if self.use_amsgrad:
            self.vhat = self._slots("vhat")
            self._state_names = ("moment1", "moment2", "vhat")

    def _apply_amsgrad(
        self, lrs: list[float], kernels: Any, grads: list[Any], decays: list[float]
    ) -> None:
        powers = (float(self.beta1_power.asnumpy()), float(self.beta2_power.asnumpy()))
        for i, (p, g, wd, lr) in enumerate(
            zip(self.parameters, grads, decays, lrs, strict=True)
        ):
            if p.requires_grad:
                state = (s[i]._data for s in (self.moment1, self.moment2, self.vhat))
                hyper = (lr, self.beta1, self.beta2, self.eps, *powers, wd)
                kernels.adam_amsgrad_update(p._data, g, *state, *hyper)

    def _apply(
        self, lrs: list[float], kernels: Any, grads: list[Any], decays: list[float]
    ) -> None:
        b1p = self.beta1_power.asnumpy()
        b2p = self.beta2_power.asnumpy()
        b1p *= self.beta1
        b2p *= self.beta2
        if self.use_amsgrad:
            self._apply_amsgrad(lrs, kernels, grads, decays)
            return
        for p, g, m, v, wd, lr in zip(
            self.parameters,
            grads,
            self.moment1,
            self.moment2,
            decays,
            lrs,
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


def _amsgrad_flag(use_amsgrad: Any, kwargs: dict[str, Any]) -> bool:
    """Check Adam's `use_amsgrad` and its `**kwargs` as MindSpore does; return the flag."""
    unknown = sorted(set(kwargs) - {"use_lazy", "use_offload"})
    if unknown:
        raise KeyError(
            f"For 'Adam', the keyword arguments may be 'use_lazy' and 'use_offload', but got {unknown}."
        )
    flags = {"use_amsgrad": use_amsgrad, **kwargs}
    for name, value in flags.items():
        check_bool(value, name, "Adam")
    # At most one of the three may be True (MindSpore's rule, in one message).
    if sum(bool(v) for v in flags.values()) > 1:
        raise ValueError(
            f"For 'Adam', at most one of 'use_amsgrad', 'use_lazy' and 'use_offload' may be True, but got {flags}."
        )
    return bool(use_amsgrad)
