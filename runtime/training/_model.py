"""`Model`: MindSpore's high-level training API, running on the event bus."""

from __future__ import annotations

import functools
import inspect
import os
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

import anyio
import anyio.to_thread

from ..bus._bus import EventBus
from ..bus._workers import current_call_soon
from ..validation import check_bool, check_non_negative_int, check_positive_int
from ._callback_bridge import LegacyHookWarning
from ._loop import Run, dataset_size
from ._run_spec import EvalSpec, RunSpec

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine, Iterable

    from ..bus._events import RunKind
    from ._callback import Callback

__all__ = ["LegacyHookWarning", "Model", "execute_async_run", "prepare_async_run"]

_P = ParamSpec("_P")
_R = TypeVar("_R")

_KWARGS = (
    "loss_scale_manager",
    "keep_batchnorm_fp32",
    "boost_config_dict",
    "acc_level",
)
DEFAULT_DRAIN_TIMEOUT = 600.0
"""Seconds a run waits at its end for worker subscribers, unless `Model(drain_timeout=...)` says otherwise."""


def _async_form(
    method: Callable[Concatenate[Model, _P], _R], doc: str
) -> Callable[Concatenate[Model, _P], Coroutine[Any, Any, _R]]:
    """The `*_async` form of `train`, `fit` or `eval`: its parameters, checked by the same code.

    Why generated: the two forms differ only in how the run executes (in this
    thread, or in a worker thread awaited from the caller's event loop), so their
    signatures are written once, on the synchronous method; `inspect.signature` and
    type checkers see that signature on the async form too.
    """
    name = f"{method.__name__}_async"

    async def run_async(self: Model, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        run = self._start(_ASYNC_KINDS[name], self._arguments(name, args, kwargs))
        result: _R = await self._execute_async(run)
        return result

    functools.update_wrapper(run_async, method)
    run_async.__name__ = name
    run_async.__qualname__ = f"Model.{name}"
    run_async.__doc__ = doc
    return run_async


class Model:
    """Train, evaluate and predict with a network, MindSpore style, publishing events on `bus`.

    Args:
        network: The network (a `cadence.nn.Cell`, or any callable).
        loss_fn: The loss cell; with an optimizer, training runs
            `TrainOneStepCell(WithLossCell(network, loss_fn), optimizer)`.
        optimizer: The optimizer.
        metrics: Metric names (`{"accuracy", "loss"}`) or `{name: Metric}`; needed by `eval` and `fit`.
        eval_network: The network used for evaluation; by default `WithEvalCell(network, loss_fn)`.
        eval_indexes: Positions of loss, logits and labels in `eval_network`'s outputs.
        amp_level: Accepted for compatibility; cadence computes in the network's own dtypes.
        boost_level: Accepted for compatibility (`"O0"` only does anything here: nothing).
        bus: The event bus to publish on; a new one by default (see `Model.bus`).
        drain_timeout: Seconds to wait at run end for worker subscribers to handle what is
            queued (default 600, `DEFAULT_DRAIN_TIMEOUT`); then the run fails with
            `DrainTimeoutError`. None waits as long as needed. While it waits, the
            `cadence.bus` logger says every 5 s which subscriber holds the run and how
            many events it still has queued.
        **kwargs: MindSpore's `loss_scale_manager`, `keep_batchnorm_fp32`, `boost_config_dict`, `acc_level`.

    Example:
        >>> import numpy as np
        >>> import cadence as ms
        >>> from cadence import nn
        >>> net = nn.Dense(4, 2)
        >>> model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
    """

    def __init__(
        self,
        network: Callable[..., Any],
        loss_fn: Callable[..., Any] | None = None,
        optimizer: Any = None,
        metrics: Any = None,
        eval_network: Callable[..., Any] | None = None,
        eval_indexes: list[int] | None = None,
        amp_level: str = "O0",
        boost_level: str = "O0",
        *,
        bus: EventBus | None = None,
        drain_timeout: float | None = DEFAULT_DRAIN_TIMEOUT,
        **kwargs: Any,
    ) -> None:
        if not callable(network):
            raise TypeError(
                f"For 'Model', the argument 'network' must be a Cell or callable, "
                f"but got {network!r} of type {type(network).__name__!r}."
            )
        for key in kwargs:
            if key not in _KWARGS:
                raise ValueError(
                    f"For 'Model', unexpected keyword argument {key!r}; the accepted extra arguments are "
                    f"{', '.join(repr(k) for k in _KWARGS)}."
                )
        from cadence.nn._amp import check_amp_level

        check_amp_level(amp_level, "amp_level", "Model")
        if amp_level != "O0" and optimizer is None:
            raise ValueError(
                f"For 'Model', auto mixed precision (amp_level={amp_level!r}) needs an 'optimizer', but got None. "
                "Set amp_level='O0' or pass an optimizer."
            )
        if kwargs.get("loss_scale_manager") is not None and optimizer is None:
            raise ValueError(
                "For 'Model', the argument 'optimizer' can not be None when 'loss_scale_manager' is set."
            )
        if loss_fn is not None and not callable(loss_fn):
            raise TypeError(
                f"For 'Model', the argument 'loss_fn' must be a loss Cell or callable, or None, "
                f"but got {loss_fn!r} of type {type(loss_fn).__name__!r}."
            )
        if optimizer is not None and not (
            callable(optimizer) and hasattr(optimizer, "parameters")
        ):
            raise TypeError(
                f"For 'Model', the argument 'optimizer' must be an optimizer (e.g. `nn.SGD(net.trainable_params(), 0.01)`) "
                f"or None, but got {optimizer!r} of type {type(optimizer).__name__!r}."
            )
        given_bus: Any = bus  # checked at run time: callers may pass anything
        if given_bus is not None and not isinstance(given_bus, EventBus):
            raise TypeError(
                f"For 'Model', the argument 'bus' must be an EventBus or None, but got {bus!r}."
            )
        indexes: Any = eval_indexes  # checked at run time: callers may pass anything
        if indexes is not None and (not isinstance(indexes, list) or len(indexes) != 3):
            raise ValueError(
                f"For 'Model', the argument 'eval_indexes' must be a list of 3 ints (loss, logits, labels), but got {eval_indexes!r}."
            )
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        # `amp_level` and `boost_level` were checked above and change nothing here
        # (the network computes in its own dtypes), so they are not kept.
        self._kwargs = kwargs
        self._bus = bus if bus is not None else EventBus()
        self._drain_timeout = _check_drain_timeout(drain_timeout)
        self._train_network = self._build_train_network()
        self._eval_network, self._eval_indexes = self._build_eval_network(
            eval_network, eval_indexes
        )
        self._metric_fns = self._build_metrics(metrics)
        self._current: Run | None = None  # the run in progress, if any
        self._nested: list[Run] = []  # evaluations nested in it, innermost last
        self._lock = threading.Lock()

    # --- construction ----------------------------------------------------------------

    def _build_train_network(self) -> Callable[..., Any]:
        if self._loss_fn is None and self._optimizer is None:
            return self._network
        # The same builder as `amp.build_train_network`, so both make the same network.
        from cadence.nn._amp import train_network

        manager = self._kwargs.get("loss_scale_manager")
        built: Callable[..., Any] = train_network(
            self._network, self._loss_fn, self._optimizer, manager, "Model"
        )
        return built

    def _build_eval_network(
        self, eval_network: Callable[..., Any] | None, eval_indexes: list[int] | None
    ) -> tuple[Callable[..., Any] | None, list[int] | None]:
        if eval_network is not None:
            return eval_network, eval_indexes
        if self._loss_fn is not None:
            from cadence import nn

            network: Any = self._network
            loss_fn: Any = self._loss_fn
            return nn.WithEvalCell(network, loss_fn), [0, 1, 2]
        return None, None

    def _build_metrics(self, metrics: Any) -> dict[str, Any]:
        if not metrics:
            return {}
        if self._eval_network is None:
            raise ValueError(
                "For 'Model', `metrics` is set but there is no evaluation network: pass `loss_fn` or "
                "`eval_network`, or do not set `metrics` if you don't want an evaluation."
            )
        if isinstance(metrics, dict):
            built = dict(metrics)
        elif isinstance(metrics, set | list | tuple):
            from cadence import nn

            # A set's order changes from run to run (string hashing): results come sorted by name.
            names = sorted(metrics) if isinstance(metrics, set) else metrics
            built = {name: nn.get_metric_fn(name) for name in names}
        else:
            raise TypeError(
                f"For 'Model', the argument 'metrics' must be a set/list of metric names or a dict of "
                f"{{name: Metric}}, but got {metrics!r}."
            )
        for name, metric in built.items():
            if not all(
                callable(getattr(metric, m, None)) for m in ("clear", "update", "eval")
            ):
                raise TypeError(
                    f"For 'Model', metric {name!r} must have `clear`, `update` and `eval` methods, but got {metric!r}."
                )
        return built

    # --- public properties -------------------------------------------------------------

    @property
    def bus(self) -> EventBus:
        """The event bus this model's runs publish on; subscribe to it to observe or steer runs."""
        return self._bus

    @property
    def train_network(self) -> Callable[..., Any]:
        """The network one training step calls (`TrainOneStepCell` when built from loss and optimizer)."""
        return self._train_network

    @property
    def predict_network(self) -> Callable[..., Any]:
        """The backbone network `predict` calls."""
        return self._network

    @property
    def eval_network(self) -> Callable[..., Any] | None:
        """The network evaluation passes call."""
        return self._eval_network

    def request_stop(self) -> None:
        """Ask the running `train`/`fit`/`eval` to stop at its next step boundary (any thread).

        Does nothing when no run is in progress.
        """
        run = self._current
        if run is not None:
            run.request_stop()

    # --- synchronous API -----------------------------------------------------------------

    def train(
        self,
        epoch: int,
        train_dataset: Any,
        callbacks: Callback | Iterable[Callback] | None = None,
        dataset_sink_mode: bool = False,
        sink_size: int = -1,
        initial_epoch: int = 0,
    ) -> None:
        """Train for `epoch` epochs (numbered `initial_epoch + 1` … `epoch`), calling `callbacks`.

        Args:
            epoch: The last epoch number to reach.
            train_dataset: A dataset yielding batches (`[data, label]` when the model has a `loss_fn`).
            callbacks: A `Callback`, or a list/tuple/iterable of them, run in list order.
            dataset_sink_mode: Accepted for compatibility; cadence always runs step by step.
            sink_size: With sink mode, the steps per epoch reported in `cb_params.batch_num`.
            initial_epoch: Epochs already done (resume).

        Raises:
            TypeError, ValueError: An argument is wrong; the message names it.

        Example:
            >>> import numpy as np
            >>> import cadence as ms
            >>> from cadence import nn, dataset as ds
            >>> data = ds.NumpySlicesDataset({"x": np.ones((8, 4), np.float32), "y": np.zeros((8, 2), np.float32)}).batch(4)
            >>> net = nn.Dense(4, 2)
            >>> ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1)).train(2, data)
        """
        self._execute(self._start("train", locals()))

    def fit(
        self,
        epoch: int,
        train_dataset: Any,
        valid_dataset: Any = None,
        valid_frequency: int | list[int] = 1,
        callbacks: Callback | Iterable[Callback] | None = None,
        dataset_sink_mode: bool = False,
        valid_dataset_sink_mode: bool = False,
        sink_size: int = -1,
        initial_epoch: int = 0,
    ) -> None:
        """Train as `train` does, evaluating on `valid_dataset` every `valid_frequency` epochs.

        `valid_frequency` is an epoch interval, or a list of the epoch numbers to
        evaluate after. Each evaluation pass gets its own `RunContext` (a stop
        requested in it does not stop training) and runs the callbacks' `on_eval_*`
        hooks; its metrics are in `cb_params.metrics` and `cb_params.eval_results`
        (which adds `eval_loss`) until the end of that training epoch.
        """
        self._execute(self._start("fit", locals()))

    def eval(
        self,
        valid_dataset: Any,
        callbacks: Callback | Iterable[Callback] | None = None,
        dataset_sink_mode: bool = False,
    ) -> dict[str, Any]:
        """Evaluate on `valid_dataset` and return `{metric name: value}`.

        Called from a callback of this model's running `train` or `fit` (MindSpore's
        "evaluate during training" pattern), it runs nested in that run: with only the
        callbacks passed here, its own `cb_params`, and events with `depth=1`.
        """
        result: dict[str, Any] = self._execute(self._start("eval", locals()))
        return result

    def predict(
        self, *predict_data: Any, backend: Any = None, config: Any = None
    ) -> Any:
        """Return the network's output for `predict_data` (in inference mode)."""
        set_train = getattr(self._network, "set_train", None)
        if callable(set_train):
            set_train(False)
        return self._network(*predict_data)

    # --- asynchronous API ------------------------------------------------------------------

    train_async = _async_form(
        train,
        """`train` inside a running event loop (asyncio or trio): steps run in a worker thread.

        Worker subscribers run as tasks on the calling loop. Cancelling the awaiting
        task ends the run at the next step boundary with `RunCancelled`, drains the
        workers, exits the callbacks, then re-raises the cancellation.
        """,
    )
    fit_async = _async_form(
        fit, """`fit` inside a running event loop; see `train_async`."""
    )
    eval_async = _async_form(
        eval, """`eval` inside a running event loop; see `train_async`."""
    )

    async def _execute_async(self, run: Run) -> Any:
        call_soon = current_call_soon()
        done = anyio.Event()
        # Cancellation can come before the worker thread starts the run: then the
        # run must never start (nothing would wait for it), and nothing waits.
        handshake = threading.Lock()
        state = {"started": False, "abandoned": False}

        def target() -> Any:
            with handshake:
                if state["abandoned"]:
                    return None
                state["started"] = True
            try:
                return self._execute(run)
            finally:
                call_soon(done.set)

        async with self._bus.serve():
            try:
                return await anyio.to_thread.run_sync(target, abandon_on_cancel=True)
            except anyio.get_cancelled_exc_class():
                with handshake:
                    started, state["abandoned"] = state["started"], True
                if started:
                    run.cancel()
                    with anyio.CancelScope(shield=True):
                        await done.wait()
                raise

    # --- from a call's arguments to a Run -------------------------------------------------------

    def _start(self, kind: RunKind, arguments: dict[str, Any]) -> Run:
        """Check a `train`/`fit`/`eval` call's `arguments` (by parameter name) and return its Run, not started.

        Every public method, sync or async, and `start_run` come through here: the
        one place where arguments become a `RunSpec`. The Run normalises the
        callbacks (a TypeError for a wrong one) and issues their warnings.
        """
        a = arguments
        spec = self._eval_spec(a) if kind == "eval" else self._train_spec(kind, a)
        return Run(spec, self._bus, parent=self._nesting_parent(kind))

    def _train_spec(self, kind: RunKind, a: dict[str, Any]) -> RunSpec:
        where = f"Model.{kind}"
        epoch, initial_epoch, sink_size = a["epoch"], a["initial_epoch"], a["sink_size"]
        check_positive_int(epoch, "epoch", where)
        check_non_negative_int(initial_epoch, "initial_epoch", where)
        if epoch <= initial_epoch:
            raise ValueError(
                f"For '{where}', the argument 'epoch' must be greater than 'initial_epoch', "
                f"but got epoch={epoch!r} and initial_epoch={initial_epoch!r}."
            )
        check_bool(a["dataset_sink_mode"], "dataset_sink_mode", where)
        if not isinstance(sink_size, int) or isinstance(sink_size, bool):
            raise TypeError(
                f"For '{where}', the argument 'sink_size' must be an int, but got {sink_size!r}."
            )
        if sink_size == 0 or sink_size < -1:
            raise ValueError(
                f"For '{where}', the argument 'sink_size' must be -1 or positive, but got {sink_size!r}."
            )
        size = _checked_size(a["train_dataset"], "train_dataset", where)
        valid_dataset: Any = None
        valid_frequency: Any = 1  # checked below: callers may pass anything
        valid_steps = 0
        evaluation = None
        if kind == "fit":
            valid_dataset, valid_frequency = a["valid_dataset"], a["valid_frequency"]
            check_bool(a["valid_dataset_sink_mode"], "valid_dataset_sink_mode", where)
            _check_valid_frequency(valid_frequency)
            if valid_dataset is not None:
                valid_steps = _checked_size(valid_dataset, "valid_dataset", where)
                if not self._metric_fns or self._eval_network is None:
                    raise ValueError(
                        "For 'Model.fit', `valid_dataset` is given but the model has no `metrics`: "
                        "set `metrics` (e.g. Model(..., metrics={'accuracy'})) to evaluate during fit."
                    )
                evaluation = self._evaluation()
        loss_scale_manager = self._kwargs.get("loss_scale_manager")
        return RunSpec(
            kind=kind, network=self._network, train_network=self._train_network,
            loss_fn=self._loss_fn, optimizer=self._optimizer,
            loss_scale_manager=loss_scale_manager, train_dataset=a["train_dataset"],
            epochs=epoch, initial_epoch=initial_epoch,
            steps_per_epoch=sink_size if a["dataset_sink_mode"] and sink_size > 0 else size,
            evaluation=evaluation, valid_dataset=valid_dataset, valid_steps=valid_steps,
            valid_frequency=(
                tuple(valid_frequency) if isinstance(valid_frequency, list) else valid_frequency
            ),
            callbacks=a["callbacks"], drain_timeout=self._drain_timeout,
        )  # fmt: skip

    def _eval_spec(self, a: dict[str, Any]) -> RunSpec:
        check_bool(a["dataset_sink_mode"], "dataset_sink_mode", "Model.eval")
        if not self._metric_fns or self._eval_network is None:
            raise ValueError(
                "For 'Model.eval', the model argument 'metrics' can not be None or empty: "
                "set `metrics` (e.g. Model(..., metrics={'accuracy'})) to evaluate."
            )
        valid_dataset = a["valid_dataset"]
        size = _checked_size(valid_dataset, "valid_dataset", "Model.eval")
        return RunSpec(
            kind="eval", network=self._network, train_network=None, loss_fn=self._loss_fn,
            optimizer=self._optimizer, loss_scale_manager=self._kwargs.get("loss_scale_manager"),
            train_dataset=None, epochs=0, initial_epoch=0, steps_per_epoch=0,
            evaluation=self._evaluation(), valid_dataset=valid_dataset, valid_steps=size,
            valid_frequency=1, callbacks=a["callbacks"], drain_timeout=self._drain_timeout,
        )  # fmt: skip

    def _evaluation(self) -> EvalSpec:
        assert self._eval_network is not None
        indexes = self._eval_indexes
        return EvalSpec(
            self._eval_network,
            self._metric_fns,
            None if indexes is None else tuple(indexes),
        )

    # --- running one loop at a time ----------------------------------------------------------

    def _nesting_parent(self, kind: RunKind) -> Run | None:
        """The run a new one nests in: an `eval` called from a hook of this model's run, on its thread.

        Anything else while a run is in progress is refused (RuntimeError): one Model runs one loop at a time.
        """
        current = self._current
        if current is None:
            return None
        innermost = self._nested[-1] if self._nested else current
        if kind == "eval" and innermost.thread == threading.get_ident():
            return innermost
        raise RuntimeError(
            "This Model is already running (train, fit or eval); one Model runs one loop at a time. "
            "Create another Model to run concurrently (only `eval` may be called from a hook of the run, "
            "in the run's thread: it then runs nested in it)."
        )

    def _execute(self, run: Run) -> Any:
        if run.parent is not None:  # nested: the outer run keeps the model
            self._nested.append(run)
            try:
                return run.execute()
            finally:
                self._nested.pop()
        with self._lock:
            if self._current is not None:
                self._nesting_parent("train")  # raises: another run started meanwhile
            self._current = run
        try:
            return run.execute()
        finally:
            self._current = None

    def _arguments(
        self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        """A call's arguments by parameter name, defaults filled in, as `method`'s signature binds them."""
        try:
            bound = inspect.signature(getattr(Model, method)).bind(
                self, *args, **kwargs
            )
        except TypeError as exc:
            raise TypeError(f"For 'Model.{method}', {exc}.") from None
        bound.apply_defaults()
        return bound.arguments


_ASYNC_KINDS: dict[str, RunKind] = {
    "train_async": "train",
    "fit_async": "fit",
    "eval_async": "eval",
}


# --- the seam for run handles (`cadence.start_run`, runtime/training/_run_handle.py) -------------


def prepare_async_run(
    model: Model, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Run:
    """Check a `train_async`/`fit_async`/`eval_async` call of `model` as that method would; return its Run, not started.

    `execute_async_run(model, run)` then runs it. Raises, before anything starts, what the
    method would raise for these arguments (and RuntimeError while a run is in progress).
    """
    if model._current is not None:
        model._nesting_parent("train")  # raises
    return model._start(_ASYNC_KINDS[method], model._arguments(method, args, kwargs))


async def execute_async_run(model: Model, run: Run) -> Any:
    """Run `run` (from `prepare_async_run`) as `model`'s async method would; return its result."""
    return await model._execute_async(run)


def _check_valid_frequency(valid_frequency: Any) -> None:
    if not isinstance(valid_frequency, int | list) or isinstance(valid_frequency, bool):
        raise TypeError(
            "For 'Model.fit', the argument 'valid_frequency' must be an int or a list of epoch numbers, "
            f"but got {valid_frequency!r} of type {type(valid_frequency).__name__!r}."
        )
    if isinstance(valid_frequency, int):
        check_positive_int(valid_frequency, "valid_frequency", "Model.fit")


def _checked_size(dataset: Any, name: str, where: str) -> int:
    if (
        dataset is None
        or isinstance(dataset, str | bytes | bytearray | os.PathLike | Mapping)
        or not (
            hasattr(dataset, "create_tuple_iterator") or hasattr(dataset, "__iter__")
        )
    ):
        raise TypeError(
            f"For '{where}', the argument '{name}' must be a dataset (e.g. `cadence.dataset.NumpySlicesDataset(...)`), "
            f"but got {dataset!r} of type {type(dataset).__name__!r}."
        )
    try:
        size = dataset_size(dataset)
    except TypeError:
        raise TypeError(
            f"For '{where}', the argument '{name}' must report its size (`get_dataset_size()` or `len()`), "
            f"but {type(dataset).__name__!r} does not."
        ) from None
    if size <= 0:
        raise ValueError(
            f"For '{where}', the argument '{name}' has no data (size {size}); check the dataset's source."
        )
    return size


def _check_drain_timeout(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ValueError(
            f"For 'Model', the argument 'drain_timeout' must be a number of seconds > 0, or None to wait "
            f"as long as needed, but got {value!r}."
        )
    return float(value)
