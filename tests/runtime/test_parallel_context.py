"""The auto-parallel context and the communication API in one process, without `init()`."""

from __future__ import annotations

import os

import numpy as np
import pytest

import cadence as ms
from cadence import dataset as ds, nn, ops
from cadence.communication import GlobalComm, get_group_size, get_rank, init, release
from tests.helpers.parallel import parallel_context_seen


@pytest.fixture(autouse=True)
def _reset():
    yield
    ms.reset_auto_parallel_context()


def test_defaults_are_mindspores():
    assert (
        ms.get_auto_parallel_context("parallel_mode")
        == ms.ParallelMode.STAND_ALONE
        == "stand_alone"
    )
    assert ms.get_auto_parallel_context("gradients_mean") is False
    assert ms.get_auto_parallel_context("device_num") == 1
    assert ms.get_auto_parallel_context("global_rank") == 0


def test_set_and_reset():
    ms.set_auto_parallel_context(
        parallel_mode=ms.ParallelMode.DATA_PARALLEL,
        gradients_mean=True,
        device_num=4,
        full_batch=True,
    )
    assert ms.get_auto_parallel_context("parallel_mode") == "data_parallel"
    assert ms.get_auto_parallel_context("gradients_mean") is True
    assert ms.get_auto_parallel_context("device_num") == 4
    ms.reset_auto_parallel_context()
    assert ms.get_auto_parallel_context("parallel_mode") == "stand_alone"
    assert ms.get_auto_parallel_context("device_num") == 1


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"parallel_mode": "model_parallel"},
            ValueError,
            r"'parallel_mode' must be one of \[.*\], but got 'model_parallel'",
        ),
        (
            {"parallel_mode": ms.ParallelMode.SEMI_AUTO_PARALLEL},
            ValueError,
            "cadence trains data-parallel only",
        ),
        ({"parallel_mode": 1}, TypeError, "'parallel_mode' must be a str"),
        (
            {"gradients_mean": 1},
            TypeError,
            "'gradients_mean' must be a bool, but got 1",
        ),
        ({"device_num": 0}, ValueError, "'device_num' must be an int >= 1, but got 0"),
        (
            {"device_nums": 2},
            ValueError,
            "keyword argument 'device_nums' is not recognized",
        ),
    ],
)
def test_bad_settings_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        ms.set_auto_parallel_context(**kwargs)
    assert (
        ms.get_auto_parallel_context("parallel_mode") == "stand_alone"
    )  # nothing half-applied


def test_unknown_key_to_get():
    with pytest.raises(ValueError, match="'attr_key' must be one of"):
        ms.get_auto_parallel_context("nope")


def test_without_init_communication_says_what_to_do():
    assert GlobalComm.INITED is False
    for fn in (get_rank, get_group_size, release):
        with pytest.raises(
            RuntimeError, match=r"call `cadence.communication.init\(\)` first"
        ):
            fn()
    with pytest.raises(RuntimeError, match="not initialized"):
        ops.AllReduce()
    with pytest.raises(RuntimeError, match="not initialized"):
        nn.DistributedGradReducer([])


def test_init_arguments_are_checked():
    with pytest.raises(ValueError, match="'backend_name' must be one of"):
        init("gloo")
    with pytest.raises(TypeError, match="'backend_name' must be a str or None"):
        init(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'timeout' must be positive, but got 0"):
        init(timeout=0)
    with pytest.raises(ValueError, match="'group' must name the world group"):
        get_rank("my_group")


def test_data_parallel_mode_without_init_trains_as_one_process():
    # Scripts set the mode before init(); without init() nothing is reduced.
    ms.set_auto_parallel_context(
        parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True
    )
    net = nn.Dense(3, 1)
    step = nn.TrainOneStepCell(
        nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1)
    )
    assert not step.reducer_flag
    grads = (ms.Tensor(np.ones(3, np.float32)),)
    assert step.grad_reducer(grads) is grads  # passes the gradients through
    x, y = (
        ms.Tensor(np.ones((4, 3), np.float32)),
        ms.Tensor(np.zeros((4, 1), np.float32)),
    )
    assert float(step(x, y)) >= 0


def test_cb_params_report_the_parallel_context():
    net = nn.Dense(4, 2)
    model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
    data = {"x": np.ones((8, 4), np.float32), "y": np.zeros((8, 2), np.float32)}
    seen = parallel_context_seen(model, ds.NumpySlicesDataset(data).batch(4))
    assert seen == {"device_number": 1, "parallel_mode": "stand_alone"}


def test_buckets_overlap_backward_only_with_spare_cores():
    from cadence.nn._buckets import DEFAULT_BUCKET_BYTES, ONE_BUCKET
    from cadence.nn._distributed import default_bucket_bytes

    assert default_bucket_bytes(10**6) == ONE_BUCKET  # far fewer cores than ranks
    cores = os.cpu_count() or 1
    expected = DEFAULT_BUCKET_BYTES if cores >= 2 else ONE_BUCKET
    assert default_bucket_bytes(1) == expected
