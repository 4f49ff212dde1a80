# A custom loss in the style of MindSpore's "loss function" tutorial: a LossBase subclass
# from mindspore.nn.loss built on ops.Abs() and self.get_loss, plus a multi-label
# loss wrapper, trained through Model with the loss as loss_fn.
# expect: ^epoch: 1 step: 1, loss is \d+\.\d+
# expect: ^epoch: 3 step: 10, loss is \d+\.\d+
# expect: ^MAE on the training data: \d+\.\d{4}$
import numpy as np
import mindspore as ms
from mindspore import ops, nn
from mindspore.nn.loss import LossBase
from mindspore.train import Model, LossMonitor
import mindspore.dataset as ds


class MAELoss(LossBase):
    """Mean absolute error."""

    def __init__(self, reduction="mean"):
        super(MAELoss, self).__init__(reduction)
        self.abs = ops.Abs()

    def construct(self, base, target):
        x = self.abs(base - target)
        return self.get_loss(x)


class MAELossForMultiLabel(LossBase):
    """Sum of the mean absolute errors of two outputs."""

    def __init__(self, reduction="mean"):
        super(MAELossForMultiLabel, self).__init__(reduction)
        self.abs = ops.Abs()

    def construct(self, base, target1, target2):
        x1 = self.abs(base - target1)
        x2 = self.abs(base - target2)
        return self.get_loss(x1) / 2 + self.get_loss(x2) / 2


class LinearData:
    """A random-access source: sample i is (x, 2x + 3 + noise)."""

    def __init__(self, num, seed=1):
        rng = np.random.default_rng(seed)
        self.x = rng.uniform(-10.0, 10.0, size=(num, 1)).astype(np.float32)
        self.y = (self.x * 2.0 + 3.0 + rng.normal(size=(num, 1))).astype(np.float32)

    def __getitem__(self, index):
        return self.x[index], self.y[index]

    def __len__(self):
        return len(self.x)


ms.set_seed(1)
train_dataset = ds.GeneratorDataset(LinearData(160), column_names=["data", "label"]).batch(16)

net = nn.Dense(1, 1)
loss = MAELoss()
opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
model = Model(net, loss_fn=loss, optimizer=opt)
model.train(3, train_dataset, callbacks=[LossMonitor(1)])

multi = MAELossForMultiLabel()
total, count = 0.0, 0
for data, label in train_dataset.create_tuple_iterator():
    total += float(multi(net(data), label, label).asnumpy())
    count += 1
print("MAE on the training data: %.4f" % (total / count))
