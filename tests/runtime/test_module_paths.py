"""MindSpore's module paths: each imports and holds the same objects as cadence's own names."""

from __future__ import annotations

import importlib
import inspect

import pytest

import cadence
import cadence.nn
from cadence import context
from tests.helpers.processes import run_python

# MindSpore path (with `mindspore` spelled `cadence`) -> names that must be the objects of cadence's own paths.
ALIASES: dict[str, dict[str, object]] = {
    "cadence.context": {
        "set_context": cadence.set_context,
        "get_context": cadence.get_context,
        "GRAPH_MODE": cadence.GRAPH_MODE,
        "PYNATIVE_MODE": cadence.PYNATIVE_MODE,
        "ParallelMode": cadence.ParallelMode,
        "set_auto_parallel_context": cadence.set_auto_parallel_context,
    },
    "cadence.common": {
        "set_seed": cadence.set_seed,
        "Tensor": cadence.Tensor,
        "Parameter": cadence.Parameter,
    },
    "cadence.common.dtype": {"float32": cadence.float32, "int32": cadence.int32},
    "cadence.common.tensor": {"Tensor": cadence.Tensor},
    "cadence.common.parameter": {
        "Parameter": cadence.Parameter,
        "ParameterTuple": cadence.ParameterTuple,
    },
    "cadence.common.api": {"jit": cadence.jit, "ms_function": cadence.ms_function},
    "cadence.nn.loss": {
        "SoftmaxCrossEntropyWithLogits": cadence.nn.SoftmaxCrossEntropyWithLogits
    },
    "cadence.nn.loss.loss": {"LossBase": cadence.nn.LossBase},
    "cadence.nn.optim": {"Momentum": cadence.nn.Momentum},
    "cadence.nn.optim.optimizer": {"Optimizer": cadence.nn.Optimizer},
    "cadence.nn.optim.momentum": {"Momentum": cadence.nn.Momentum},
    "cadence.nn.learning_rate_schedule": {"CosineDecayLR": cadence.nn.CosineDecayLR},
    "cadence.nn.dynamic_lr": {
        "piecewise_constant_lr": cadence.nn.piecewise_constant_lr
    },
    "cadence.nn.metrics": {"Accuracy": cadence.nn.Accuracy},
    "cadence.train.serialization": {
        "save_checkpoint": cadence.save_checkpoint,
        "load_checkpoint": cadence.load_checkpoint,
        "load_param_into_net": cadence.load_param_into_net,
    },
    "cadence.train.model": {"Model": cadence.Model},
    "cadence.ops.operations": {"ReduceMean": cadence.ops.ReduceMean},
    "cadence.ops.functional": {"depend": cadence.ops.depend},
    "cadence.ops.composite": {"GradOperation": cadence.ops.GradOperation},
}


@pytest.mark.parametrize("path", sorted(ALIASES))
def test_mindspore_paths_hold_cadence_objects(path):
    module = importlib.import_module(path)
    for name, obj in ALIASES[path].items():
        assert getattr(module, name) is obj, f"{path}.{name}"
    assert sorted(module.__all__) == sorted(set(module.__all__))
    for name in module.__all__:
        assert hasattr(module, name), f"{path}.{name} in __all__ but missing"


def test_nn_metrics_holds_every_metric_of_nn():
    import cadence.nn.metrics

    metrics = [
        n
        for n in cadence.nn.__all__
        if inspect.isclass(getattr(cadence.nn, n))
        and issubclass(getattr(cadence.nn, n), cadence.nn.Metric)
    ]
    assert "Accuracy" in metrics
    missing = [n for n in metrics if getattr(cadence.nn.metrics, n, None) is None]
    assert missing == [], "add them to cadence.nn.metrics"


def test_submodules_are_attributes_without_importing_them():
    # A fresh interpreter: `import mindspore as ms; ms.train.Metric` must work as is.
    code = (
        "import cadence as ms\n"
        "print(ms.train.Metric is ms.nn.Metric, ms.nn.Dense.__name__, "
        "ms.context.GRAPH_MODE, ms.common.dtype.float32, ms.ops.operations.Abs.__name__)"
    )
    out = run_python(code, check=True).stdout
    assert out.split() == ["True", "Dense", "0", "Float32", "Abs"]


def test_jit_and_ms_function_run_the_function_as_it_is():
    def double(x):
        return 2 * x

    assert cadence.jit(double) is double
    assert cadence.jit(jit_level="O1")(double) is double
    assert cadence.ms_function(double) is double
    assert cadence.ms_function(input_signature=None)(double) is double

    class Net(cadence.nn.Cell):
        @cadence.jit
        def construct(self, x):
            return x + 1

    assert Net()(cadence.Tensor([1.0])).asnumpy().tolist() == [2.0]
    with pytest.raises(TypeError, match=r"'jit'.*'function' must be callable.*got 3"):
        cadence.jit(3)  # type: ignore[call-overload]


def test_auto_parallel_context_single_process():
    try:
        assert context.get_auto_parallel_context("parallel_mode") == "stand_alone"
        context.set_auto_parallel_context(
            parallel_mode=context.ParallelMode.DATA_PARALLEL,
            gradients_mean=True,
            device_num=1,
        )
        assert context.get_auto_parallel_context("parallel_mode") == "data_parallel"
        assert context.get_auto_parallel_context("gradients_mean") is True
    finally:
        context.reset_auto_parallel_context()
    assert context.get_auto_parallel_context("gradients_mean") is False
    with pytest.raises(
        ValueError, match=r"'parallel_mode' must be one of.*got 'bogus'"
    ):
        context.set_auto_parallel_context(parallel_mode="bogus")
    with pytest.raises(ValueError, match="'device_num' must be an int >= 1, but got 0"):
        context.set_auto_parallel_context(device_num=0)
    with pytest.raises(
        TypeError, match="'gradients_mean' must be a bool, but got 1 of type 'int'"
    ):
        context.set_auto_parallel_context(gradients_mean=1)
    with pytest.raises(ValueError, match="'bogus' is not recognized"):
        context.set_auto_parallel_context(bogus=1)
    with pytest.raises(ValueError, match="'attr_key' must be one of"):
        context.get_auto_parallel_context("bogus")
    # Nothing is recorded when one key of the call is wrong.
    with pytest.raises(ValueError, match="device_num"):
        context.set_auto_parallel_context(gradients_mean=True, device_num=0)
    assert context.get_auto_parallel_context("gradients_mean") is False
