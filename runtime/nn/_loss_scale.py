"""Loss scaling: `TrainOneStepWithLossScaleCell` and its update cells, as MindSpore names them.

The step seeds backward with the loss scale, divides the gradients by it,
checks them for overflow (any inf or nan; float32 has no other overflow
signal on a CPU) and skips the optimizer update when they overflowed. The
scale is the Parameter `scale_sense`; `DynamicLossScaleUpdateCell` halves it
(by `scale_factor`, never below 1) on an overflow and multiplies it back after
`scale_window` clean steps, with MindSpore's counters
`current_iterator_step` and `last_overflow_iterator_step`;
`FixedLossScaleUpdateCell` leaves it alone. Unlike MindSpore 2.10, whose
overflow check is an Ascend operator, this runs on every target. The managers
(`FixedLossScaleManager`, `DynamicLossScaleManager`) are what
`Model(..., loss_scale_manager=...)` takes; `cadence.amp` and
`cadence.train.loss_scale_manager` export them, as MindSpore does.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..compute._tensor import Parameter, Tensor
from ..validation import check_bool, check_number, check_positive_int
from ._cell import Cell
from ._wrap import TrainOneStepCell

__all__ = [
    "DynamicLossScaleManager",
    "DynamicLossScaleUpdateCell",
    "FixedLossScaleManager",
    "FixedLossScaleUpdateCell",
    "LossScaleManager",
    "TrainOneStepWithLossScaleCell",
]


def _scale_value(owner: str, value: Any) -> float:
    if isinstance(value, Tensor):
        value = float(value.asnumpy().reshape(-1)[0])
    return check_number(value, "loss_scale_value", owner, minimum=0.0, inclusive=False)


class FixedLossScaleUpdateCell(Cell):
    """Keeps the loss scale constant; the step still skips updates whose gradients overflowed.

    Args:
        loss_scale_value: The scale, a number > 0.
    """

    def __init__(self, loss_scale_value: Any) -> None:
        super().__init__()
        self.loss_scale_value = _scale_value(
            "FixedLossScaleUpdateCell", loss_scale_value
        )

    def get_loss_scale(self) -> float:
        """Return the loss scale."""
        return self.loss_scale_value

    def construct(self, loss_scale: Any, overflow: Any) -> Any:
        """Return `overflow`; the scale does not change."""
        return overflow


class DynamicLossScaleUpdateCell(Cell):
    """Divides the scale by `scale_factor` on overflow (not below 1), multiplies it after `scale_window` clean steps.

    Args:
        loss_scale_value: The initial scale, a number > 0.
        scale_factor: The factor, a number > 0.
        scale_window: Clean steps between increases, an int > 0.
    """

    def __init__(
        self, loss_scale_value: Any, scale_factor: Any, scale_window: Any
    ) -> None:
        super().__init__()
        owner = "DynamicLossScaleUpdateCell"
        self.loss_scale_value = _scale_value(owner, loss_scale_value)
        self.scale_factor = check_number(
            scale_factor, "scale_factor", owner, minimum=0.0, inclusive=False
        )
        self.scale_window = check_positive_int(scale_window, "scale_window", owner)
        self.cur_iter = Parameter(
            np.asarray(1, np.int32), name="current_iterator_step", requires_grad=False
        )
        self.last_overflow_iter = Parameter(
            np.asarray(0, np.int32),
            name="last_overflow_iterator_step",
            requires_grad=False,
        )

    def get_loss_scale(self) -> float:
        """Return the initial loss scale."""
        return self.loss_scale_value

    def construct(self, loss_scale: Parameter, overflow: Any) -> Any:
        """Update `loss_scale` in place from `overflow`; return `overflow`."""
        scale = float(loss_scale.asnumpy().reshape(-1)[0])
        current = int(self.cur_iter.asnumpy())
        last = int(self.last_overflow_iter.asnumpy())
        flag = bool(
            np.all(overflow.asnumpy() if isinstance(overflow, Tensor) else overflow)
        )
        if flag:
            scale = max(scale / self.scale_factor, 1.0)
        grow = self.scale_window <= current - last
        if flag or grow:
            self.last_overflow_iter.set_data(np.asarray(current, np.int32))
        if grow and not flag:
            scale *= self.scale_factor
        loss_scale.set_data(np.full(loss_scale.shape, scale, np.float32))
        self.cur_iter.set_data(np.asarray(current + 1, np.int32))
        return overflow


def _overflowed(grads: list[Any]) -> bool:
    """Whether any gradient holds an inf or a nan (x * 0 is nan exactly there; one sum per gradient)."""
    return any(g is not None and not math.isfinite(float((g * 0).sum())) for g in grads)


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """One training step with loss scaling; returns (loss, overflow, scale) as MindSpore does.

    Args:
        network: A cell returning the loss (usually a `WithLossCell`).
        optimizer: The optimizer.
        scale_sense: An update cell (`DynamicLossScaleUpdateCell`,
            `FixedLossScaleUpdateCell`), or a Tensor of shape () or (1,) holding
            a scale that only `set_sense_scale` changes.

    The overflow is a bool Tensor; the scale returned is the one after this
    step's update (what `scale_sense` holds now).
    """

    def __init__(self, network: Cell, optimizer: Any, scale_sense: Any) -> None:
        super().__init__(network, optimizer, sens=None)
        self.loss_scaling_manager: Cell | None = None
        if isinstance(scale_sense, Cell):
            if not callable(getattr(scale_sense, "get_loss_scale", None)):
                raise TypeError(
                    "For 'TrainOneStepWithLossScaleCell', a Cell 'scale_sense' must be a loss-scale update "
                    f"cell with get_loss_scale(), but got {type(scale_sense).__name__!r}."
                )
            self.loss_scaling_manager = scale_sense
            update: Any = scale_sense  # an update cell: get_loss_scale() checked above
            value = np.asarray(update.get_loss_scale(), np.float32)
        elif isinstance(scale_sense, Tensor):
            if scale_sense.shape not in ((), (1,)):
                raise ValueError(
                    "For 'TrainOneStepWithLossScaleCell', the shape of 'scale_sense' must be (1,) or (), "
                    f"but got {scale_sense.shape}."
                )
            value = np.asarray(scale_sense.asnumpy(), np.float32)
        else:
            raise TypeError(
                "For 'TrainOneStepWithLossScaleCell', the 'scale_sense' must be Cell or Tensor, but got "
                f"{scale_sense!r} of type {type(scale_sense).__name__!r}."
            )
        self.scale_sense = Parameter(
            value.copy(), name="scale_sense", requires_grad=False
        )
        self._host_manager: Any = None

    def set_sense_scale(self, sens: Any) -> None:
        """Set the loss scale (a Tensor of the shape `scale_sense` has)."""
        if not isinstance(sens, Tensor):
            raise TypeError(
                f"For 'TrainOneStepWithLossScaleCell', the type of 'sens' must be Tensor, but got {type(sens).__name__!r}."
            )
        self.scale_sense.set_data(
            np.asarray(sens.asnumpy(), np.float32).reshape(self.scale_sense.shape)
        )

    def process_loss_scale(self, overflow: Tensor) -> Any:
        """Let the update cell (if any) adjust the scale for `overflow`; return the overflow it reports."""
        if self.loss_scaling_manager is None:
            return overflow
        return self.loss_scaling_manager(self.scale_sense, overflow)

    def construct(self, *inputs: Any) -> tuple[Tensor, Tensor, Tensor]:
        """Run the scaled step; return (loss, overflow, loss scale)."""
        scale = float(self.scale_sense.asnumpy().reshape(-1)[0])
        # Overflow is what this step expects and detects: numpy's warnings about it are noise.
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            loss, grads = self._loss_and_grads(inputs, scale)
            grads = [None if g is None else g / scale for g in grads]
            cond = Tensor(np.asarray(_overflowed(grads)))
        overflow = self.process_loss_scale(cond)
        if not bool(np.all(overflow.asnumpy())):
            self.optimizer(grads)
        if self._host_manager is not None:
            # `Model` with a loss-scale manager: the manager follows the overflows host-side.
            self._host_manager.update_loss_scale(bool(cond.asnumpy()))
        return Tensor._wrap(loss._data), cond, Tensor(self.scale_sense.asnumpy().copy())


# --- managers: what `Model(..., loss_scale_manager=...)` takes (`cadence.amp`) -----------------
class LossScaleManager:
    """Base of loss-scale managers: `get_loss_scale`, `update_loss_scale`, `get_update_cell`."""

    def get_loss_scale(self) -> float:
        """Return the current loss scale."""
        raise NotImplementedError

    def update_loss_scale(self, overflow: bool) -> None:
        """Follow one step's overflow flag (host side)."""
        raise NotImplementedError

    def get_update_cell(self) -> Cell | None:
        """Return the update cell the training step uses, or None for a plain step with `sens`."""
        raise NotImplementedError


class FixedLossScaleManager(LossScaleManager):
    """A constant loss scale.

    Args:
        loss_scale: The scale, a number >= 1.
        drop_overflow_update: Skip the update of steps whose gradients overflowed
            (through `FixedLossScaleUpdateCell`); when False, the step is a plain
            `TrainOneStepCell` seeded with the scale, and the optimizer's own
            `loss_scale` must divide it back out, as in MindSpore.
    """

    def __init__(
        self, loss_scale: Any = 128.0, drop_overflow_update: bool = True
    ) -> None:
        self._loss_scale = check_number(
            loss_scale, "loss_scale", "FixedLossScaleManager", minimum=1.0
        )
        self._drop_overflow_update = check_bool(
            drop_overflow_update, "drop_overflow_update", "FixedLossScaleManager"
        )

    def get_loss_scale(self) -> float:
        """Return the loss scale."""
        return self._loss_scale

    def get_drop_overflow_update(self) -> bool:
        """Whether steps whose gradients overflowed are skipped."""
        return self._drop_overflow_update

    def update_loss_scale(self, overflow: bool) -> None:
        """Nothing: the scale is fixed."""

    def get_update_cell(self) -> Cell | None:
        """A `FixedLossScaleUpdateCell`, or None when overflows are not dropped."""
        return (
            FixedLossScaleUpdateCell(self._loss_scale)
            if self._drop_overflow_update
            else None
        )


class DynamicLossScaleManager(LossScaleManager):
    """A loss scale divided by `scale_factor` on overflow and multiplied after `scale_window` clean steps.

    Args:
        init_loss_scale: The initial scale, a number >= 1.
        scale_factor: The factor, a number > 0.
        scale_window: Clean steps between increases, an int > 0.

    Raises:
        RuntimeError: From `update_loss_scale`, after more than 1000 overflows in a row.
    """

    _BAD_STEP_MAX = 1000

    def __init__(
        self,
        init_loss_scale: Any = 2**24,
        scale_factor: Any = 2,
        scale_window: int = 2000,
    ) -> None:
        owner = "DynamicLossScaleManager"
        self.loss_scale = check_number(
            init_loss_scale, "init_loss_scale", owner, minimum=1.0
        )
        self.scale_window = check_positive_int(scale_window, "scale_window", owner)
        self.scale_factor = check_number(
            scale_factor, "scale_factor", owner, minimum=0.0, inclusive=False
        )
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step = 0

    def get_loss_scale(self) -> float:
        """Return the current loss scale (as this manager followed it)."""
        return self.loss_scale

    def get_drop_overflow_update(self) -> bool:
        """True: steps whose gradients overflowed are skipped."""
        return True

    def update_loss_scale(self, overflow: bool) -> None:
        """Follow one step: shrink the scale on overflow, grow it every `scale_window` clean steps."""
        if overflow:
            self.loss_scale = max(self.loss_scale / self.scale_factor, 1.0)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
            if self.bad_step > self._BAD_STEP_MAX:
                raise RuntimeError(
                    f"Dynamic loss scale: {self.bad_step} overflows in a row, more than the {self._BAD_STEP_MAX} allowed."
                )
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.scale_factor
            self.bad_step = 0
        self.cur_iter += 1

    def get_update_cell(self) -> Cell:
        """A `DynamicLossScaleUpdateCell` with this manager's settings."""
        return DynamicLossScaleUpdateCell(
            self.loss_scale, self.scale_factor, self.scale_window
        )
