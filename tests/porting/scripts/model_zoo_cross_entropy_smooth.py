# The model zoo's label-smoothing loss (a LossBase from mindspore.nn.loss.loss with
# ops.OneHot and SoftmaxCrossEntropyWithLogits), a piecewise learning rate from
# mindspore.nn.dynamic_lr, and Model.train with LossMonitor and TimeMonitor.
# expect: ^epoch: 1 step: 6, loss is \d+\.\d+
# expect: ^Train epoch time: \d+\.\d+ ms, per step time: \d+\.\d+ ms
# expect: ^epoch: 3 step: 6, loss is \d+\.\d+
# expect: ^learning rate after training: 0\.0100$
import numpy as np
import mindspore.nn as nn
from mindspore import Tensor, set_seed
from mindspore.common import dtype as mstype
from mindspore.nn.loss.loss import LossBase
from mindspore.nn.dynamic_lr import piecewise_constant_lr
from mindspore.ops import functional as F
from mindspore.ops import operations as P
from mindspore.train.model import Model
from mindspore.train.callback import LossMonitor, TimeMonitor
import mindspore.dataset as ds


class CrossEntropySmooth(LossBase):
    """Cross entropy against labels smoothed by `smooth_factor`."""

    def __init__(self, sparse=True, reduction="mean", smooth_factor=0.0, num_classes=1000):
        super(CrossEntropySmooth, self).__init__()
        self.onehot = P.OneHot()
        self.sparse = sparse
        self.on_value = Tensor(1.0 - smooth_factor, mstype.float32)
        self.off_value = Tensor(1.0 * smooth_factor / (num_classes - 1), mstype.float32)
        self.ce = nn.SoftmaxCrossEntropyWithLogits(reduction=reduction)

    def construct(self, logit, label):
        if self.sparse:
            label = self.onehot(label, F.shape(logit)[1], self.on_value, self.off_value)
        loss = self.ce(logit, label)
        return loss


def create_dataset(batch_size=16):
    rng = np.random.RandomState(8)
    data = rng.rand(96, 12).astype(np.float32)
    label = (data[:, :5].sum(axis=1) > 2.5).astype(np.int32) + (data[:, 5] > 0.7).astype(np.int32)
    dataset = ds.NumpySlicesDataset({"data": data, "label": label}, shuffle=True)
    return dataset.batch(batch_size, drop_remainder=True)


set_seed(10)
train_ds = create_dataset()
step_size = train_ds.get_dataset_size()
lr = piecewise_constant_lr([step_size, 2 * step_size, 3 * step_size], [0.1, 0.05, 0.01])

net = nn.SequentialCell([nn.Dense(12, 24), nn.ReLU(), nn.Dense(24, 3)])
loss = CrossEntropySmooth(sparse=True, reduction="mean", smooth_factor=0.1, num_classes=3)
opt = nn.Momentum(net.trainable_params(), Tensor(lr, mstype.float32), 0.9)
model = Model(net, loss_fn=loss, optimizer=opt)
model.train(3, train_ds, callbacks=[TimeMonitor(step_size), LossMonitor(step_size)], dataset_sink_mode=False)
print("learning rate after training: %.4f" % float(opt.get_lr().asnumpy()))
