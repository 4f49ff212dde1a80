"""The public kernels every target table builds the same way from its own primitives.

A target supplies what differs (how a kernel is launched, how an argument
reaches the device, which scalar type the loop runs in); the name, the
signature and the order of the arguments are written here once, for the CPU
and the CUDA tables alike.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeAlias

    # An activation's (forward(x), backward(dy, y)) kernels.
    ActivationPair: TypeAlias = tuple[Callable[[Any], Any], Callable[[Any, Any], Any]]

__all__ = [
    "ACT_CODES",
    "Activations",
    "OptimizerPrimitives",
    "OptimizerUpdates",
    "SoftmaxKernels",
    "activation_kernels",
    "dense_sgd_kernel",
    "optimizer_updates",
    "softmax_kernels",
]

Array = Any

# The activation codes of `reference.ACTIVATIONS`, by name, for the tables' loops.
ACT_CODES = {"relu": 1, "sigmoid": 2, "tanh": 3}


class Activations(NamedTuple):
    """The six elementwise activation kernels, as (forward, backward) pairs.

    A target binds each pair to its `<name>_forward` and `<name>_backward` names.
    """

    relu: ActivationPair
    sigmoid: ActivationPair
    tanh: ActivationPair


# name: (forward doc, backward doc), in the order of `Activations`.
_ACTIVATION_DOCS = {
    "relu": ("max(x, 0).", "Dy where the output was positive, else 0."),
    "sigmoid": ("1 / (1 + exp(-x)).", "Dy * y * (1 - y)."),
    "tanh": ("tanh(x).", "Dy * (1 - y**2)."),
}


def _named(kernel: Callable[..., Array], name: str, doc: str) -> Callable[..., Array]:
    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = doc
    return kernel


def activation_kernels(
    forward: Callable[[Array, int], Array],
    backward: Callable[[Array, Array, int], Array],
) -> Activations:
    """Build the activation kernels from `forward(x, code)` and `backward(dy, y, code)`."""

    def forward_of(code: int) -> Callable[[Array], Array]:
        return lambda x: forward(x, code)

    def backward_of(code: int) -> Callable[[Array, Array], Array]:
        return lambda dy, y: backward(dy, y, code)

    pairs: dict[str, ActivationPair] = {}
    for name, (forward_doc, backward_doc) in _ACTIVATION_DOCS.items():
        code = ACT_CODES[name]
        pairs[name] = (
            _named(forward_of(code), f"{name}_forward", forward_doc),
            _named(backward_of(code), f"{name}_backward", backward_doc),
        )
    return Activations(**pairs)


class SoftmaxKernels(NamedTuple):
    """Softmax and log-softmax over the rows of a 2-D array, forward and backward."""

    softmax_forward: Callable[[Array], Array]
    softmax_backward: Callable[[Array, Array], Array]
    log_softmax_forward: Callable[[Array], Array]
    log_softmax_backward: Callable[[Array, Array], Array]


def softmax_kernels(
    rows: Callable[[Array, bool], Array],
    rows_grad: Callable[[Array, Array, bool], Array],
) -> SoftmaxKernels:
    """Build the softmax kernels from `rows(x, log)` and `rows_grad(dy, y, log)`."""

    def softmax_forward(x: Array) -> Array:
        """Softmax over the last axis of a 2-D array."""
        return rows(x, False)

    def softmax_backward(dy: Array, y: Array) -> Array:
        """Gradient of softmax, from its output."""
        return rows_grad(dy, y, False)

    def log_softmax_forward(x: Array) -> Array:
        """log(softmax(x)) over the last axis of a 2-D array."""
        return rows(x, True)

    def log_softmax_backward(dy: Array, y: Array) -> Array:
        """Gradient of log-softmax, from its output."""
        return rows_grad(dy, y, True)

    return SoftmaxKernels(
        softmax_forward, softmax_backward, log_softmax_forward, log_softmax_backward
    )


class OptimizerPrimitives(NamedTuple):
    """What a target supplies for the fused optimizer updates.

    `sgd`, `momentum` and `adam` are its compiled one-pass loops (arguments as
    `optimizer_updates` passes them); `run(loop, param, *args)` launches one;
    `state(name, a)` checks a state array updated in place and returns it flat;
    `grad(param, g)` returns the gradient flat; `scalar(param)` converts a
    hyperparameter to the type the loop computes in.
    """

    sgd: Any
    momentum: Any
    adam: Any
    run: Callable[..., None]
    state: Callable[[str, Array], Any]
    grad: Callable[[Array, Array], Any]
    scalar: Callable[[Array], Callable[[float], Any]]


class OptimizerUpdates(NamedTuple):
    """The three in-place optimizer updates."""

    sgd_update: Callable[..., None]
    momentum_update: Callable[..., None]
    adam_update: Callable[..., None]


def optimizer_updates(p: OptimizerPrimitives) -> OptimizerUpdates:
    """Build the optimizer updates from a target's primitives.

    Each takes `reference`'s arguments in its order: the parameter, its gradient,
    its state arrays, then the hyperparameters (`*hyper`), the last of them the
    `nesterov` flag, passed to the loop as is.
    """

    def run(
        loop: Any, param: Array, grad: Array, hyper: Any, names: Any, *states: Array
    ) -> None:
        """Check and flatten the arrays (in argument order); launch `loop` with the hyperparameters converted.

        `hyper` ends with the `nesterov` flag, passed as is; `names` names `states`.
        """
        t = p.scalar(param)
        *scalars, nesterov = hyper
        param_flat, grad_flat = p.state("param", param), p.grad(param, grad)
        flats = map(p.state, names, states)
        p.run(loop, param, param_flat, grad_flat, *flats, *map(t, scalars), nesterov)

    def sgd_update(
        param: Array, grad: Array, accum: Array, stat: Array, *hyper: float
    ) -> None:
        """MindSpore's SGD rule, in place, in one pass; hyper = lr, momentum, dampening, weight_decay, nesterov."""
        run(p.sgd, param, grad, hyper, ("accum", "stat"), accum, stat)

    def momentum_update(
        param: Array, grad: Array, moment: Array, *hyper: float
    ) -> None:
        """MindSpore's ApplyMomentum rule, in place, in one pass; hyper = lr, momentum, weight_decay, nesterov."""
        run(p.momentum, param, grad, hyper, ("moment",), moment)

    def adam_update(
        param: Array, grad: Array, m: Array, v: Array, *hyper: float
    ) -> None:
        """Adam, in place, in one pass; hyper = lr, beta1, beta2, eps, beta1_power, beta2_power, weight_decay, nesterov.

        The bias correction is folded into the step size on the host.
        """
        lr, beta1, beta2, eps, beta1_power, beta2_power, weight_decay, nesterov = hyper
        alpha = lr * math.sqrt(1.0 - beta2_power) / (1.0 - beta1_power)
        scalars = (alpha, beta1, beta2, eps, weight_decay, nesterov)
        run(p.adam, param, grad, scalars, ("m", "v"), m, v)

    return OptimizerUpdates(sgd_update, momentum_update, adam_update)


def dense_sgd_kernel(
    bias_step: Callable[[Array, Array, int, Array | None, float, float], Array],
    product: Callable[[Array, Array], Array],
    weight_step: Callable[[Array, Array, Array, float, float], None],
) -> Callable[..., Array | None]:
    """Build `dense_backward_sgd` from a target's three steps.

    `bias_step(dy, y, act, b, lr, wd)` returns dz, the gradient before the
    activation, having stepped b in place (if not None); `product(dz, w)` is
    dz @ w; `weight_step(w, x, dz, lr, wd)` steps w in place by dz.T @ x.
    """

    def dense_backward_sgd(
        dy: Array,
        x: Array,
        w: Array,
        b: Array | None,
        y: Array,
        act: int,
        need_dx: bool,
        lr: float,
        weight_decay: float,
    ) -> Array | None:
        """`dense_backward` with plain SGD on w and b, in place; return dx or None.

        Each parameter p takes p -= lr * (grad + weight_decay * p); dx is computed
        from w before its step. The gradients of w and b are not returned.
        """
        dz = bias_step(dy, y, act, b, lr, weight_decay)
        dx = product(dz, w) if need_dx else None
        weight_step(w, x, dz, lr, weight_decay)
        return dx

    return dense_backward_sgd
