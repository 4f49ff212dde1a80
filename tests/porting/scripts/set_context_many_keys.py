# A launch script's configuration block: set_context with many of MindSpore 2.x's keys,
# the auto-parallel context for a one-device run, and the values read back.
# expect: ^device_target: CPU, device_id: 0, mode: PYNATIVE$
# expect: ^max_call_depth: 2000, save_graphs: 0, deterministic: ON$
# expect: ^parallel_mode: data_parallel, gradients_mean: True$
# expect: ^epoch: 1 step: 3, loss is \d+\.\d+
# expect: ^unknown key rejected: ValueError$
import numpy as np
import mindspore as ms
from mindspore import nn
from mindspore.train import Model, LossMonitor

ms.set_context(
    mode=ms.PYNATIVE_MODE,
    device_target="CPU",
    device_id=0,
    max_call_depth=2000,
    save_graphs=0,
    save_graphs_path="./graphs",
    deterministic="ON",
    pynative_synchronize=True,
    enable_compile_cache=False,
    compile_cache_path="./cache",
    inter_op_parallel_num=1,
    runtime_num_threads=1,
    memory_optimize_level="O1",
    max_device_memory="2GB",
    print_file_path="./print.log",
    check_bprop=False,
    jit_config={"jit_level": "O0"},
    disable_format_transform=True,
)
mode = "PYNATIVE" if ms.get_context("mode") == ms.PYNATIVE_MODE else "GRAPH"
print(f"device_target: {ms.get_context('device_target')}, device_id: {ms.get_context('device_id')}, mode: {mode}")
print(f"max_call_depth: {ms.get_context('max_call_depth')}, save_graphs: {ms.get_context('save_graphs')}, "
      f"deterministic: {ms.get_context('deterministic')}")

ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True, device_num=1)
print(f"parallel_mode: {ms.get_auto_parallel_context('parallel_mode')}, "
      f"gradients_mean: {ms.get_auto_parallel_context('gradients_mean')}")

ms.set_seed(0)
x = np.random.default_rng(0).normal(size=(48, 4)).astype(np.float32)
y = x @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)
dataset = ms.dataset.NumpySlicesDataset((x, y), column_names=["x", "y"], shuffle=False).batch(16)
net = nn.Dense(4, 1)
model = Model(net, nn.MSELoss(), nn.Adam(net.trainable_params(), 0.01))
model.train(1, dataset, callbacks=[LossMonitor()])

try:
    ms.set_context(device_targets="CPU")
except ValueError as err:
    print("unknown key rejected:", type(err).__name__)
