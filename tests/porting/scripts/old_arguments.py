# Arguments that MindSpore 1.x-era training scripts still pass: the context keys of
# their launch code, get_context("enable_ge"), SoftmaxCrossEntropyWithLogits(is_grad=False),
# and LossMonitor(has_trained_epoch=) when training resumes after two epochs.
# expect: ^enable_ge: False$
# expect: ^epoch: 3 step: 1, loss is \d+\.\d+
# expect: ^epoch: 4 step: 5, loss is \d+\.\d+
import numpy as np
from mindspore import context, nn, Model
from mindspore.train.callback import LossMonitor
from mindspore.common import set_seed
import mindspore.dataset as ds

context.set_context(mode=context.GRAPH_MODE, device_target="CPU", device_id=0, save_graphs=False,
                    max_call_depth=10000, enable_graph_kernel=False, enable_reduce_precision=True,
                    variable_memory_max_size="30GB", reserve_class_name_in_scope=False)
print("enable_ge:", context.get_context("enable_ge"))
set_seed(1)

rng = np.random.RandomState(1)
data = rng.randn(80, 6).astype(np.float32)
label = (data[:, 0] > data[:, 1]).astype(np.int32)
train_ds = ds.NumpySlicesDataset({"data": data, "label": label}, shuffle=True).batch(16, drop_remainder=True)

net = nn.SequentialCell([nn.Dense(6, 12), nn.Tanh(), nn.Dense(12, 2)])
loss = nn.SoftmaxCrossEntropyWithLogits(is_grad=False, sparse=True, reduction="mean")
opt = nn.Momentum(filter(lambda p: p.requires_grad, net.get_parameters()), 0.1, 0.9)
model = Model(net, loss_fn=loss, optimizer=opt)
model.train(2, train_ds, callbacks=[LossMonitor(has_trained_epoch=2)], dataset_sink_mode=False)
