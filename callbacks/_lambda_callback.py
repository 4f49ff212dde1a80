"""`LambdaCallback`: a callback built from plain functions, one per hook."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cadence import Callback

if TYPE_CHECKING:
    from cadence import RunContext

__all__ = ["LambdaCallback"]

_Hook = Callable[["RunContext"], Any] | None


def _parameters(fn: Any) -> str:
    return str(inspect.signature(fn).replace(return_annotation=inspect.Signature.empty))


def _check_hook(name: str, fn: Any) -> None:
    if not callable(fn):
        raise TypeError(
            f"For 'LambdaCallback', the argument {name!r} must be None or a function taking the run context, "
            f"but got {fn!r} of type {type(fn).__name__!r}."
        )
    try:
        inspect.signature(fn).bind(None)
    except TypeError:
        raise TypeError(
            f"For 'LambdaCallback', the argument {name!r} must be callable with one argument (the run context), "
            f"but {fn!r} has the signature {_parameters(fn)}."
        ) from None
    except ValueError:  # no signature available (some builtins): accept it
        pass


class LambdaCallback(Callback):
    """Run the given functions at their hooks; each receives the `RunContext`.

    Only the hooks given are subscribed, so the others cost nothing. Unlike
    MindSpore, the `on_eval_*` functions also run in `Model.fit`'s evaluation
    passes, and a function that is not callable with one argument is rejected here
    rather than failing in the middle of a run.

    Args:
        on_train_epoch_begin: Called before each training epoch.
        on_train_epoch_end: Called after each training epoch.
        on_train_step_begin: Called before each training step.
        on_train_step_end: Called after each training step.
        on_train_begin: Called before training.
        on_train_end: Called after training.
        on_eval_epoch_begin: Called before each evaluation epoch.
        on_eval_epoch_end: Called after each evaluation epoch.
        on_eval_step_begin: Called before each evaluation step.
        on_eval_step_end: Called after each evaluation step.
        on_eval_begin: Called before an evaluation pass.
        on_eval_end: Called after an evaluation pass.

    Raises:
        TypeError: A function is not callable with one positional argument.

    Example:
        >>> from cadence import Model
        >>> from cadence.callbacks import LambdaCallback
        >>> from cadence.testing import ListDataset, constant_network
        >>> show = LambdaCallback(on_train_epoch_end=lambda rc: print(rc.original_args().cur_epoch_num))
        >>> Model(constant_network()).train(2, ListDataset.of_steps(1), callbacks=show)
        1
        2
    """

    def __init__(
        self,
        on_train_epoch_begin: _Hook = None,
        on_train_epoch_end: _Hook = None,
        on_train_step_begin: _Hook = None,
        on_train_step_end: _Hook = None,
        on_train_begin: _Hook = None,
        on_train_end: _Hook = None,
        on_eval_epoch_begin: _Hook = None,
        on_eval_epoch_end: _Hook = None,
        on_eval_step_begin: _Hook = None,
        on_eval_step_end: _Hook = None,
        on_eval_begin: _Hook = None,
        on_eval_end: _Hook = None,
    ) -> None:
        # Every argument is a hook, named as the hook it fills.
        given = {name: fn for name, fn in locals().items() if name.startswith("on_")}
        for name, fn in given.items():
            if fn is not None:
                _check_hook(name, fn)
                # An instance attribute named like the hook is what the run subscribes (as in MindSpore).
                setattr(self, name, fn)
