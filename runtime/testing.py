"""Helpers for testing callbacks and subscribers without real compute.

`ListDataset` and `constant_network` let a `Model` run its full loop with no
tensors at all; `ScriptedMetric` reports chosen values to callbacks that watch
a metric; `HookRecorder` and `EventRecorder` record what a run did.

Example:
    >>> from cadence import Model
    >>> from cadence.testing import HookRecorder, ListDataset, constant_network
    >>> rec = HookRecorder()
    >>> Model(constant_network(0.5)).train(1, ListDataset.of_steps(2), callbacks=rec)
    >>> rec.names()
    ['on_train_begin', 'on_train_epoch_begin', 'on_train_step_begin', 'on_train_step_end', 'on_train_step_begin', 'on_train_step_end', 'on_train_epoch_end', 'on_train_end']
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Self

from .training._callback import NEW_HOOKS, Callback

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from .bus._events import Event
    from .nn import SequentialCell
    from .training._model import Model
    from .training._run_context import RunContext

__all__ = [
    "BatchCounter",
    "EventRecorder",
    "HookRecorder",
    "ListDataset",
    "ScriptedMetric",
    "constant_network",
    "lenet5",
    "mnist_mlp",
    "mnist_mlp_model",
    "random_mnist_dataset",
    "small_regression_dataset",
    "small_regression_model",
]


class ListDataset:
    """A dataset over a fixed list of batches; every batch is a list of columns.

    Args:
        batches: The batches one epoch yields, in order.
    """

    def __init__(self, batches: Sequence[Sequence[Any]]) -> None:
        self.batches = [list(b) for b in batches]

    @classmethod
    def of_steps(cls, steps: int, columns: int = 2) -> ListDataset:
        """Return a dataset of `steps` batches, each `columns` floats (`[step, step, ...]`)."""
        return cls([[float(i)] * columns for i in range(1, steps + 1)])

    def get_dataset_size(self) -> int:
        """Return the number of batches per epoch."""
        return len(self.batches)

    def create_tuple_iterator(
        self, num_epochs: int = -1, output_numpy: bool = False
    ) -> Iterator[list[Any]]:
        """Iterate one epoch."""
        return iter([list(b) for b in self.batches])

    def __iter__(self) -> Iterator[list[Any]]:
        return self.create_tuple_iterator()


def constant_network(loss: float = 1.0) -> Callable[..., float]:
    """Return a "network" that ignores its inputs and returns `loss` (a training step's output)."""

    def network(*inputs: Any) -> float:
        return loss

    return network


class BatchCounter:
    """A metric that counts the evaluation batches it was updated with (no compute needed).

    Example:
        >>> counter = BatchCounter()
        >>> counter.clear(); counter.update(0.5, [1], [1]); counter.eval()
        1
    """

    def __init__(self) -> None:
        self.n = 0

    def clear(self) -> None:
        """Reset the count (called before every evaluation pass)."""
        self.n = 0

    def update(self, *outputs: Any) -> None:
        """Count one batch."""
        self.n += 1

    def eval(self) -> int:
        """Return the number of batches since the last `clear`."""
        return self.n


class HookRecorder(Callback):
    """A callback that records every hook call: its name, a copy of `cb_params` keys, and counters.

    Args:
        keys: Record the sorted `cb_params` keys at each call (slower).
        on: Optional `{hook name: function(run_context)}` run after recording, to
            act at a chosen point (request a stop, raise).
    """

    def __init__(
        self,
        keys: bool = False,
        on: dict[str, Callable[[RunContext], Any]] | None = None,
    ) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self._keys = keys
        self._on = dict(on or {})
        self._lock = threading.Lock()

    def names(self) -> list[str]:
        """Return the hook names called so far, in order."""
        return [name for name, _ in self.calls]

    def _record(self, name: str, run_context: RunContext) -> None:
        cb = run_context.original_args()
        info: dict[str, Any] = {
            "cur_epoch_num": cb.get("cur_epoch_num"),
            "cur_step_num": cb.get("cur_step_num"),
            "batch_num": cb.get("batch_num"),
            "mode": cb.get("mode"),
            "stop": run_context.get_stop_requested(),
        }
        if self._keys:
            info["keys"] = sorted(cb.keys())
        with self._lock:
            self.calls.append((name, info))
        action = self._on.get(name)
        if action is not None:
            action(run_context)

    def __enter__(self) -> Self:
        with self._lock:
            self.calls.append(("__enter__", {}))
        return self

    def __exit__(self, *exc_info: object) -> None:
        with self._lock:
            self.calls.append(("__exit__", {"exc_type": exc_info[0]}))


def _make_hook(name: str) -> Callable[[HookRecorder, RunContext], None]:
    def hook(self: HookRecorder, run_context: RunContext) -> None:
        self._record(name, run_context)

    hook.__name__ = hook.__qualname__ = name
    hook.__doc__ = f"Record a call of `{name}`."
    return hook


for _name in NEW_HOOKS:
    setattr(HookRecorder, _name, _make_hook(_name))


class EventRecorder:
    """A bus handler that keeps every event it receives (thread-safe).

    Example:
        >>> from cadence import EventBus, TrainEpochBegin
        >>> bus, rec = EventBus(), EventRecorder()
        >>> _ = bus.subscribe(TrainEpochBegin, rec)
        >>> bus.publish(TrainEpochBegin(epoch=1)); rec.names()
        ['TrainEpochBegin']
    """

    def __init__(self) -> None:
        self.events: list[
            Any
        ] = []  # Any: tests read the fields of the concrete event types
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        """Keep `event`."""
        with self._lock:
            self.events.append(event)

    def names(self) -> list[str]:
        """Return the class names of the events received, in order."""
        return [type(e).__name__ for e in self.events]


class ScriptedMetric:
    """A metric that reports chosen values, one per evaluation pass (for callbacks that watch metrics).

    Pass it to `Model(..., metrics={"acc": ScriptedMetric(0.5, 0.7)})`: the first
    evaluation reports 0.5, the second 0.7. Once the values are used up, `eval()`
    raises `IndexError` (a test sees an unexpected pass), or with `repeat_last`
    keeps reporting the last one.

    Args:
        *values: The values successive evaluation passes report.
        repeat_last: Report the last value forever instead of raising when they run out.

    Example:
        >>> from cadence.testing import ScriptedMetric
        >>> metric = ScriptedMetric(0.5, 0.7, repeat_last=True)
        >>> [metric.eval() for _ in range(3)]
        [0.5, 0.7, 0.7]
    """

    def __init__(self, *values: Any, repeat_last: bool = False) -> None:
        self.values = list(values)
        self.repeat_last = repeat_last

    def clear(self) -> None:
        """Start a pass (nothing to reset)."""

    def update(self, *inputs: object) -> None:
        """Take a batch's outputs (ignored: the values are scripted)."""

    def eval(self) -> Any:
        """Return this pass's value."""
        if self.repeat_last and len(self.values) == 1:
            return self.values[0]
        return self.values.pop(0)


# --- real-compute builders -----------------------------------------------------------------
# The networks and data many tests and benchmarks share, built in one place so that a change
# of shape or seed reaches every user. They import the compute packages only when called, so
# that `import cadence.testing` stays light.


def mnist_mlp() -> SequentialCell:
    """Return MindSpore's quickstart network, for 1x28x28 inputs.

    Flatten -> Dense(784, 512) -> ReLU -> Dense(512, 512) -> ReLU -> Dense(512, 10).
    """
    from . import nn

    return nn.SequentialCell(
        [
            nn.Flatten(),
            nn.Dense(784, 512),
            nn.ReLU(),
            nn.Dense(512, 512),
            nn.ReLU(),
            nn.Dense(512, 10),
        ]
    )


def lenet5(num_classes: int = 10, channels: int = 1) -> SequentialCell:
    """Return the model zoo's LeNet-5 for 32x32 inputs, with its parameter names.

    conv1 (5x5, 6) -> ReLU -> max-pool 2 -> conv2 (5x5, 16) -> ReLU -> max-pool 2 ->
    flatten -> fc1 (120) -> ReLU -> fc2 (84) -> ReLU -> fc3 (`num_classes`); the dense
    weights start from Normal(0.02). The parameters are named as in MindSpore's
    `LeNet5` (`conv1.weight`, ..., `fc3.bias`), so checkpoints move between the two.

    Raises:
        TypeError, ValueError: `num_classes` or `channels` is not an int > 0.
    """
    from collections import OrderedDict

    from . import nn
    from .common.initializer import Normal
    from .validation import check_positive_int

    check_positive_int(num_classes, "num_classes", "lenet5")
    check_positive_int(channels, "channels", "lenet5")

    def dense(n_in: int, n_out: int) -> nn.Dense:
        return nn.Dense(n_in, n_out, weight_init=Normal(0.02))

    layers: list[tuple[str, Any]] = []
    for stage, (n_in, n_out) in enumerate([(channels, 6), (6, 16)], start=1):
        layers += [
            (f"conv{stage}", nn.Conv2d(n_in, n_out, 5, pad_mode="valid")),
            (f"relu{stage}", nn.ReLU()),
            (f"pool{stage}", nn.MaxPool2d(kernel_size=2, stride=2)),
        ]
    layers += [
        ("flatten", nn.Flatten()),
        ("fc1", dense(16 * 5 * 5, 120)),
        ("relu3", nn.ReLU()),
        ("fc2", dense(120, 84)),
        ("relu4", nn.ReLU()),
        ("fc3", dense(84, num_classes)),
    ]
    return nn.SequentialCell(OrderedDict(layers))


def mnist_mlp_model(learning_rate: float = 0.01) -> Model:
    """Return `Model(mnist_mlp(), SoftmaxCrossEntropyWithLogits(sparse, mean), SGD)`."""
    from . import nn
    from .training._model import Model

    net = mnist_mlp()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return Model(net, loss, nn.SGD(net.trainable_params(), learning_rate=learning_rate))


def random_mnist_dataset(steps: int, batch: int, seed: int = 0) -> Any:
    """Return `steps` batches of `batch` random MNIST-shaped images and labels.

    Images are uniform float32 1x28x28, labels int32 in [0, 10), in the columns image and
    label of an unshuffled `NumpySlicesDataset`.
    """
    import numpy as np

    from .dataset import NumpySlicesDataset

    rng = np.random.default_rng(seed)
    images = rng.random((steps * batch, 1, 28, 28), dtype=np.float32)
    labels = rng.integers(0, 10, steps * batch).astype(np.int32)
    dataset = NumpySlicesDataset({"image": images, "label": labels}, shuffle=False)
    return dataset.batch(batch)


def small_regression_model(metrics: Any = None) -> Model:
    """Return a small seeded `Model` with real compute, fast enough for any test.

    Dense(3, 4) -> ReLU -> Dense(4, 2), MSELoss, Momentum (learning rate 0.1, momentum 0.9).
    """
    from . import nn
    from .compute._context import set_seed
    from .training._model import Model

    set_seed(1)
    net = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
    optimizer = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    return Model(net, nn.MSELoss(), optimizer, metrics=metrics)


def small_regression_dataset(steps: int = 3) -> Any:
    """Return `steps` seeded, unshuffled batches for `small_regression_model`.

    Each batch has 4 rows: x holds 3 standard normal floats, y holds 2.
    """
    import numpy as np

    from .dataset import NumpySlicesDataset

    rng = np.random.default_rng(0)
    x = rng.standard_normal((4 * steps, 3)).astype(np.float32)
    y = rng.standard_normal((4 * steps, 2)).astype(np.float32)
    return NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)
