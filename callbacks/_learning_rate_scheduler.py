"""`LearningRateScheduler`: set the learning rate after every training step from a function."""

from __future__ import annotations

import inspect
import logging
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from cadence import Callback

from ._reduce_lr_on_plateau import fixed_learning_rate

if TYPE_CHECKING:
    from collections.abc import Callable

    from cadence import RunContext

__all__ = ["LearningRateScheduler"]

_LOG = logging.getLogger("cadence.callbacks")


def _parameters(fn: Any) -> str:
    return str(inspect.signature(fn).replace(return_annotation=inspect.Signature.empty))


def _check_function(fn: Any) -> Callable[[float, int], Any]:
    if not callable(fn):
        raise TypeError(
            "For 'LearningRateScheduler', the argument 'learning_rate_function' must be a function "
            f"(lr, cur_step_num) -> new lr, but got {fn!r} of type {type(fn).__name__!r}."
        )
    try:
        inspect.signature(fn).bind(0.1, 1)
    except TypeError:
        raise TypeError(
            "For 'LearningRateScheduler', the argument 'learning_rate_function' must be callable with two "
            f"arguments (lr, cur_step_num), but {fn!r} has the signature {_parameters(fn)}."
        ) from None
    except ValueError:  # no signature available (some builtins): accept it
        pass
    fn_: Callable[[float, int], Any] = fn
    return fn_


class LearningRateScheduler(Callback):
    """After every training step, set the learning rate to `learning_rate_function(lr, step)`.

    `lr` is the optimizer's current rate as a Python float (its shortest float32
    spelling: `0.1`, not `0.10000000149011612`) and `step` the run's global step
    (`cb_params.cur_step_num`, from 1). The result is written into the optimizer's
    `learning_rate` Parameter when it differs (relative tolerance 1e-10), and
    the change is logged at INFO on the `cadence.callbacks` logger, as
    MindSpore's: `At step 4, learning_rate change to 0.05`. Evaluation steps
    are left alone (MindSpore raised `KeyError: 'optimizer'` in `Model.eval`).

    Args:
        learning_rate_function: `(lr: float, cur_step_num: int) -> float`.

    Raises:
        TypeError: `learning_rate_function` is not callable with two arguments.
        ValueError: At run time, the optimizer has no fixed learning rate.

    Example:
        >>> from cadence.callbacks import LearningRateScheduler
        >>> halve_every_2 = LearningRateScheduler(lambda lr, step: lr * 0.5 if step % 2 == 0 else lr)
    """

    def __init__(self, learning_rate_function: Callable[[float, int], float]) -> None:
        self.learning_rate_function = _check_function(learning_rate_function)

    def on_train_begin(self, run_context: RunContext) -> None:
        """Check that the run's optimizer has a fixed learning rate to set."""
        fixed_learning_rate(run_context.original_args(), "LearningRateScheduler")

    def on_train_step_end(self, run_context: RunContext) -> None:
        """Compute the new rate and store it if it changed."""
        cb_params = run_context.original_args()
        param = fixed_learning_rate(cb_params, "LearningRateScheduler")
        lr = float(np.array2string(param.asnumpy().reshape(())))
        new_lr = self.learning_rate_function(lr, cb_params.cur_step_num)
        try:
            new = float(new_lr)
        except (TypeError, ValueError):
            raise TypeError(
                "For 'LearningRateScheduler', 'learning_rate_function' must return a number, "
                f"but returned {new_lr!r} at step {cb_params.cur_step_num}."
            ) from None
        if not math.isclose(lr, new, rel_tol=1e-10):
            param.set_data(
                np.asarray(new, dtype=param.asnumpy().dtype).reshape(param.shape)
            )
            _LOG.info(
                "At step %s, learning_rate change to %s", cb_params.cur_step_num, new_lr
            )
