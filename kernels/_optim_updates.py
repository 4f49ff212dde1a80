"""The public optimizer updates (AdamWeightDecay, RMSProp, Adagrad, Lamb, Adadelta, ProximalAdagrad, Rprop, ASGD, FTRL), built per target.

A target supplies `OptimizerTarget`: how to compile an `_optim_elements` body
into a loop over a parameter's elements, and a few primitives;
`optimizer_updates` turns it into the kernel-table functions, with
`reference`'s names and argument order. Arguments are checked and flattened
by the target's `state` / `grad`, as the existing updates in `_wrappers` do.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NamedTuple

from . import _optim_elements as el

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["OptimizerTarget", "OptimizerUpdates", "optimizer_updates"]

_BODIES = (
    "adadelta",
    "asgd",
    "proximal_adagrad",
    "rprop",
    "ftrl",
    "adam_weight_decay",
    "adam_amsgrad",
    "rmsprop",
    "adagrad",
    "lamb_direction",
    "scaled_subtract",
)


class OptimizerTarget(NamedTuple):
    """What a target supplies.

    `loop(body)` compiles a body into `loop(p, g, a, b, c, h)` over every element;
    `run(loop, param, *args)` launches one; `state(name, a)` checks an array
    updated in place and returns it flat; `grad(param, g)` returns the gradient
    flat; `scalar(param)` converts a hyperparameter to the type the loop computes
    in; `scratch(param)` returns an uninitialized array like `param`;
    `sum_of_squares(flat)` returns a Python float.
    """

    loop: Callable[[Any], Any]
    run: Callable[..., None]
    state: Callable[[str, Any], Any]
    grad: Callable[[Any, Any], Any]
    scalar: Callable[[Any], Callable[[float], Any]]
    scratch: Callable[[Any], Any]
    sum_of_squares: Callable[[Any], float]


class OptimizerUpdates(NamedTuple):
    """The in-place updates."""

    adam_weight_decay_update: Callable[..., None]
    adam_amsgrad_update: Callable[..., None]
    rmsprop_update: Callable[..., None]
    adagrad_update: Callable[..., None]
    lamb_update: Callable[..., None]
    adadelta_update: Callable[..., None]
    proximal_adagrad_update: Callable[..., None]
    rprop_update: Callable[..., None]
    asgd_update: Callable[..., None]
    ftrl_update: Callable[..., None]


def optimizer_updates(t: OptimizerTarget) -> OptimizerUpdates:
    """Build the kernel-table functions from a target."""
    loops = {name: t.loop(getattr(el, f"{name}_element")) for name in _BODIES}

    def step(
        name: str, param: Any, grad: Any, states: dict[str, Any], hyper: Any
    ) -> list[Any]:
        """Check the arrays, launch body `name` over them; return the flat states."""
        s = t.scalar(param)
        p = t.state("param", param)
        flats = [t.state(key, a) for key, a in states.items()]
        slots = ([*flats, p, p])[:3]  # a body ignores the slots it has no state for
        t.run(
            loops[name],
            param,
            p,
            t.grad(param, grad),
            *slots,
            tuple(s(float(x)) for x in hyper),
        )
        return flats

    def adam_weight_decay_update(
        param: Any, grad: Any, m: Any, v: Any, *hyper: float
    ) -> None:
        """MindSpore's AdamWeightDecay rule in one pass; hyper = lr, beta1, beta2, eps, weight_decay."""
        step("adam_weight_decay", param, grad, {"m": m, "v": v}, hyper)

    def adam_amsgrad_update(
        param: Any, grad: Any, m: Any, v: Any, vhat: Any, *hyper: float
    ) -> None:
        """MindSpore's Adam with `use_amsgrad` in one pass.

        hyper = lr, beta1, beta2, eps, beta1_power, beta2_power (beta ** t after this step), weight_decay.
        """
        lr, beta1, beta2, eps, beta1_power, beta2_power, weight_decay = hyper
        alpha = lr * math.sqrt(1.0 - beta2_power) / (1.0 - beta1_power)
        states = {"m": m, "v": v, "vhat": vhat}
        step(
            "adam_amsgrad",
            param,
            grad,
            states,
            (alpha, beta1, beta2, eps, weight_decay),
        )

    def rmsprop_update(
        param: Any,
        grad: Any,
        mean_grad: Any,
        mean_square: Any,
        moment: Any,
        *hyper: float,
    ) -> None:
        """MindSpore's RMSProp rule in one pass; hyper = lr, decay, momentum, eps, weight_decay, centered."""
        states = {"mean_grad": mean_grad, "mean_square": mean_square, "moment": moment}
        step("rmsprop", param, grad, states, hyper)

    def adagrad_update(param: Any, grad: Any, accum: Any, *hyper: float) -> None:
        """MindSpore's Adagrad rule in one pass; hyper = lr, weight_decay, update_slots."""
        step("adagrad", param, grad, {"accum": accum}, hyper)

    def lamb_update(param: Any, grad: Any, m: Any, v: Any, *hyper: float) -> None:
        """MindSpore's Lamb rule; hyper = lr, beta1, beta2, eps, weight_decay, step (>= 1).

        Moments and the direction r in one pass, then p -= lr ‖p‖ / ‖r‖ r (ratio 1 if a norm is 0).
        """
        lr, beta1, beta2, eps, weight_decay, count = hyper
        if not isinstance(count, int) or count < 1:
            raise ValueError(
                f"Kernel argument `step` must be an int >= 1, but got {count!r}."
            )
        p = t.state("param", param)
        r = t.scratch(param)
        # The norm of the weight before the step, as MindSpore's Lamb kernel takes it.
        w_norm = math.sqrt(t.sum_of_squares(p))
        corrections = (1.0 / (1.0 - beta1**count), 1.0 / (1.0 - beta2**count))
        *_, r_flat = step(
            "lamb_direction",
            param,
            grad,
            {"m": m, "v": v, "r": r},
            (beta1, beta2, eps, *corrections, weight_decay),
        )
        r_norm = math.sqrt(t.sum_of_squares(r_flat))
        ratio = w_norm / r_norm if w_norm > 0 and r_norm > 0 else 1.0
        step("scaled_subtract", param, grad, {"r": r}, (lr * ratio,))

    def adadelta_update(
        param: Any, grad: Any, accum: Any, accum_update: Any, *hyper: float
    ) -> None:
        """MindSpore's Adadelta rule in one pass; hyper = lr, rho, eps, weight_decay."""
        step(
            "adadelta",
            param,
            grad,
            {"accum": accum, "accum_update": accum_update},
            hyper,
        )

    def proximal_adagrad_update(
        param: Any, grad: Any, accum: Any, *hyper: float
    ) -> None:
        """MindSpore's ProximalAdagrad rule in one pass; hyper = lr, l1, l2, weight_decay."""
        step("proximal_adagrad", param, grad, {"accum": accum}, hyper)

    def rprop_update(
        param: Any, grad: Any, prev: Any, step_size: Any, *hyper: float
    ) -> None:
        """MindSpore's Rprop rule in one pass; hyper = eta_minus, eta_plus, min_step, max_step, first, lr, weight_decay."""
        step("rprop", param, grad, {"prev": prev, "step_size": step_size}, hyper)

    def asgd_update(param: Any, grad: Any, ax: Any, *hyper: float) -> None:
        """MindSpore's ASGD rule in one pass; hyper = eta, lambd, mu, weight_decay."""
        step("asgd", param, grad, {"ax": ax}, hyper)

    def ftrl_update(
        param: Any, grad: Any, accum: Any, linear: Any, *hyper: float
    ) -> None:
        """MindSpore's FTRL rule (ApplyFtrl) in one pass; hyper = lr, l1, l2, lr_power, weight_decay."""
        step("ftrl", param, grad, {"accum": accum, "linear": linear}, hyper)

    return OptimizerUpdates(
        adam_weight_decay_update,
        adam_amsgrad_update,
        rmsprop_update,
        adagrad_update,
        lamb_update,
        adadelta_update,
        proximal_adagrad_update,
        rprop_update,
        asgd_update,
        ftrl_update,
    )
