"""`cb_params`: the attribute dict callbacks read through `RunContext.original_args()`."""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, final

from .._errors import MissingKeyError
from ..communication._parallel_context import device_number, parallel_mode

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ._callback import Callback
    from ._run_spec import EvalSpec, RunSpec

__all__ = ["CallbackParams", "evaluation_pass", "for_run"]


@final
class CallbackParams(dict[str, Any]):
    """A dict whose keys are also attributes, as MindSpore's `cb_params`.

    Callbacks may add their own keys (`cb_params.my_value = 1`); they persist for
    the whole run. Reading a key that is not set raises `MissingKeyError`, which is
    both a `KeyError` (as in MindSpore) and an `AttributeError` (so `hasattr` works).

    Example:
        >>> p = CallbackParams(cur_step_num=3)
        >>> p.cur_step_num, hasattr(p, "net_outputs")
        (3, False)
    """

    __slots__ = ()

    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError:
            raise MissingKeyError(
                f"`cb_params` has no key {key!r} at this point of the run; "
                f"keys set now: {sorted(self)}. Use `cb_params.get({key!r}, default)` "
                "for keys that exist only in some phases."
            ) from None

    def __setattr__(self, key: str, value: Any) -> None:
        self[key] = value

    def __delattr__(self, key: str) -> None:
        if key not in self:
            raise MissingKeyError(f"`cb_params` has no key {key!r} to delete.")
        del self[key]


def for_run(spec: RunSpec, callbacks: list[Callback]) -> CallbackParams:
    """Return the `cb_params` a run starts with: MindSpore 2.10's keys for `train`/`fit`, or for `eval`."""
    if spec.kind == "eval":
        assert spec.evaluation is not None
        return CallbackParams(
            batch_num=spec.valid_steps,
            cur_step_num=0,
            dataset_sink_mode=False,
            eval_network=spec.evaluation.network,
            list_callback=callbacks,
            mode="eval",
            network=spec.network,
            valid_dataset=spec.valid_dataset,
        )
    return CallbackParams(
        batch_num=spec.steps_per_epoch,
        cur_step_num=0,
        dataset_sink_mode=False,
        device_number=device_number(),
        epoch_num=spec.epochs - spec.initial_epoch,
        initial_step=None,
        last_save_ckpt_step=None,
        latest_ckpt_file=None,
        list_callback=callbacks,
        loss_fn=spec.loss_fn,
        loss_scale_mananger=spec.loss_scale_manager,  # sic: MindSpore's spelling, kept
        loss_scale_manager=spec.loss_scale_manager,
        mode="train",
        network=spec.network,
        optimizer=spec.optimizer,
        parallel_mode=parallel_mode(),
        train_dataset=spec.train_dataset,
        train_dataset_element=None,
        train_network=spec.train_network,
    )


# What an evaluation pass inside `fit` changes of training's keys and gives back after it.
_TRAINING_KEYS = ("cur_step_num", "batch_num", "dataset_sink_mode", "net_outputs")


@contextmanager
def evaluation_pass(
    cb: CallbackParams, evaluation: EvalSpec, valid_dataset: Any, steps: int
) -> Iterator[None]:
    """Within the block, training's `cb` describes an evaluation pass of `fit`, as in MindSpore.

    The pass counts its own steps in `cur_step_num` and reports its own size in
    `batch_num`, with `mode` "eval"; `eval_network` and `valid_dataset` stay set
    after it, as in MindSpore. Training's keys come back when the block ends
    normally; not when it raises, so a failure reports the pass's step.
    """
    kept = {key: cb[key] for key in _TRAINING_KEYS if key in cb}
    cb["eval_network"] = evaluation.network
    cb["valid_dataset"] = valid_dataset
    cb["batch_num"] = steps
    cb["mode"] = "eval"
    cb["cur_step_num"] = 0
    yield
    cb.update(kept)
    cb["mode"] = "train"
