"""Wrapper cells the training loop builds: `WithLossCell`, `WithEvalCell`, `TrainOneStepCell`."""

from __future__ import annotations

from typing import Any

from ..communication._parallel_context import is_data_parallel
from ..communication._vote import settle_owed_sync
from ..compute._autograd import backward, enable_grad
from ..compute._folded_steps import backward_folding_sgd
from ..compute._grad_buffers import offering_grad_buffers
from ..compute._tensor import Tensor
from ..ops._grad_operation import GradOperation
from ..validation import check_bool
from ._cell import Cell

__all__ = ["TrainOneStepCell", "WithEvalCell", "WithLossCell"]


def _check_cell(owner: str, name: str, value: Any) -> None:
    if not isinstance(value, Cell):
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be a Cell, but got {value!r}."
        )


class WithLossCell(Cell):
    """Join a backbone and a loss: `construct(data, label) -> loss_fn(backbone(data), label)`.

    Args:
        backbone: The network.
        loss_fn: The loss cell.
    """

    def __init__(self, backbone: Cell, loss_fn: Cell) -> None:
        super().__init__(auto_prefix=False)
        _check_cell("WithLossCell", "backbone", backbone)
        _check_cell("WithLossCell", "loss_fn", loss_fn)
        self._backbone = backbone
        self._loss_fn = loss_fn

    @property
    def backbone_network(self) -> Cell:
        """The wrapped network."""
        return self._backbone

    def construct(self, data: Any, label: Any) -> Any:
        """Return the loss."""
        return self._loss_fn(self._backbone(data), label)


class WithEvalCell(Cell):
    """Evaluate a network: `construct(data, label) -> (loss, outputs, label)`.

    Args:
        network: The network.
        loss_fn: The loss cell.
        add_cast_fp32: Accepted for MindSpore compatibility.
    """

    def __init__(
        self, network: Cell, loss_fn: Cell, add_cast_fp32: bool = False
    ) -> None:
        super().__init__(auto_prefix=False)
        _check_cell("WithEvalCell", "network", network)
        _check_cell("WithEvalCell", "loss_fn", loss_fn)
        self._network = network
        self._loss_fn = loss_fn

    def construct(self, data: Any, label: Any) -> tuple[Any, Any, Any]:
        """Return (loss, outputs, label)."""
        outputs = self._network(data)
        return self._loss_fn(outputs, label), outputs, label


class _PassGradients(Cell):
    """The gradient reducer of a single-process run: gradients go through unchanged.

    MindSpore puts an `nn.Identity` there; a cell of its own keeps the tuple of
    gradients a tuple (cadence's `Identity` makes a Tensor of what it is given).
    """

    def construct(self, grads: Any) -> Any:
        """Return `grads`."""
        return grads


class TrainOneStepCell(Cell):
    """One training step: forward on the tape, gradients of the loss, optimizer update.

    Args:
        network: A cell returning the loss (usually a `WithLossCell`).
        optimizer: The optimizer; it updates `optimizer.parameters`.
        sens: Scale of the seed gradient (None: 1; 0 is refused).
        return_grad: Also return the gradients, as a dict from parameter name to gradient.

    `construct(*inputs)` returns the loss, detached from the tape (with
    `return_grad`: the loss and the dict).

    A subclass that writes its own `construct`, as model-zoo training cells
    do, finds MindSpore's attributes: `network`, `optimizer`, `weights`,
    `sens` (1.0 when None was given), `grad` (a `GradOperation(get_by_list=True,
    sens_param=True)`), `grad_no_sens` (`GradOperation(get_by_list=True)`),
    `reducer_flag` and `grad_reducer` (gradients pass through unchanged
    outside data parallelism).

    In data-parallel mode (`cadence.communication.init()` and
    `set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL)`
    before the cell is built), the cell reduces the gradients over the ranks
    with a `DistributedGradReducer` (`grad_reducer`) before the update, and its
    first call broadcasts the network's parameters from rank 0, so that every
    rank starts from the same weights.

    Example:
        >>> import numpy as np, cadence as ms, cadence.nn as nn
        >>> net = nn.Dense(3, 1)
        >>> step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
        >>> step(ms.Tensor(np.ones((4, 3), np.float32)), ms.Tensor(np.zeros((4, 1), np.float32))).shape
        ()
    """

    weights: Any
    fold_optimizer_step: bool = True
    """Let the backward pass apply the optimizer's step where it can (plain SGD: `SGD.folded_steps`).

    The weight-gradient product then accumulates into the weight itself and the
    gradient is never materialized; the result is the same step to float rounding.
    Set False on an instance (or the class) to run the separate update pass.
    """

    def __init__(
        self,
        network: Cell,
        optimizer: Any,
        sens: float | None = None,
        return_grad: bool = False,
    ) -> None:
        super().__init__(auto_prefix=False)
        _check_cell("TrainOneStepCell", "network", network)
        if not callable(optimizer) or not hasattr(optimizer, "parameters"):
            raise TypeError(
                f"For 'TrainOneStepCell', the argument 'optimizer' must be an optimizer, but got {optimizer!r}."
            )
        if sens is not None and not isinstance(sens, bool) and sens == 0:
            raise ValueError(
                "For 'TrainOneStepCell', the argument 'sens' must not be 0, but got 0."
            )
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        object.__setattr__(self, "weights", optimizer.parameters)
        # MindSpore keeps 1.0 in `sens` when none is given; the flag tells the default seed apart.
        self.sense_flag = sens is not None
        self.sens = 1.0 if sens is None else sens
        self.grad = GradOperation(get_by_list=True, sens_param=True)
        self.grad_no_sens = GradOperation(get_by_list=True)
        self.return_grad = check_bool(return_grad, "return_grad", "TrainOneStepCell")
        self.reducer_flag = is_data_parallel()
        self.grad_reducer: Any = _PassGradients()
        self._params_synced = not self.reducer_flag
        if self.reducer_flag:
            from ._distributed import DistributedGradReducer

            self.grad_reducer = DistributedGradReducer(self.weights)

    def _folded_steps(self) -> dict[int, tuple[float, float]] | None:
        """The optimizer steps the backward pass may apply itself, or None (see `fold_optimizer_step`)."""
        # In data parallelism the reducer needs every gradient (and may step them itself).
        return None if self.reducer_flag else self._sgd_steps()

    def _sgd_steps(self) -> dict[int, tuple[float, float]] | None:
        """The optimizer steps that may be applied where the gradient is made, or None."""
        if (
            not self.fold_optimizer_step
            or self.return_grad  # the caller needs every gradient
            or type(self) is not TrainOneStepCell  # a subclass may read the gradients
        ):
            return None
        folded = getattr(self.optimizer, "folded_steps", None)
        return None if folded is None else folded()

    def construct(self, *inputs: Any) -> Any:
        """Run forward, backward and the update; return the loss (and the gradients with `return_grad`)."""
        loss, grads = self._loss_and_grads(
            inputs, self.sens if self.sense_flag else None
        )
        self.optimizer(grads)
        detached = Tensor._wrap(loss._data)  # stays where it was computed
        if self.return_grad:
            names = [w.name for w in self.weights]
            wrapped = [None if g is None else Tensor._wrap(g) for g in grads]
            return detached, dict(zip(names, wrapped, strict=True))
        return detached

    def _loss_and_grads(
        self, inputs: tuple[Any, ...], sens: Any
    ) -> tuple[Tensor, list[Any]]:
        """Forward on the tape, then the (reduced) gradients of the weights seeded with `sens`."""
        if (
            self.reducer_flag
        ):  # the last step's weights all written (a barrier left to a vote)
            settle_owed_sync()
        if not self._params_synced:
            from ._distributed import broadcast_parameters

            # Ranks may have initialized (or restored) parameters differently; this
            # cell's parameters include the optimizer's state (moments, step count).
            broadcast_parameters(self.get_parameters())
            self._params_synced = True
        with enable_grad():
            loss = self.network(*inputs)
        steps = self._folded_steps()
        if steps is not None:
            grads: Any = backward_folding_sgd(loss, self.weights, sens, steps)
        elif not self.reducer_flag:
            grads = backward(loss, self.weights, sens)
        else:
            # The gradients go into the reducer's plan as backward makes them: a shared
            # window's rows (nn/_window_plan.py) or buckets all-reduced meanwhile (nn/_buckets.py).
            plan = self.grad_reducer.overlapped(self.weights)
            plan.begin()
            with offering_grad_buffers(self.weights, plan.destinations()):
                raw = backward(loss, self.weights, sens, plan.ready)
            # Plain SGD steps from the summed rows of the window: no update pass.
            sgd = self._sgd_steps() if plan.can_step else None
            if sgd:
                grads = plan.finish_stepping(raw, self.weights, sgd)
            else:
                grads = plan.finish(raw)
        return loss, grads
