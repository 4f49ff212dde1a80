# MindSpore 1.x style: `from mindspore import context` configuration, old operator names
# (TensorAdd, Pack), an @ms_function inference helper, SoftmaxCrossEntropyWithLogits from
# nn.loss, Momentum from nn.optim, Accuracy from nn.metrics, Model from train.model.
# expect: ^epoch: 1 step: 5, loss is \d+\.\d+
# expect: ^epoch: 2 step: 5, loss is \d+\.\d+
# expect: ^\{'acc': (?:np\.float64\()?\d\.\d+\)?\}$
# expect: ^packed shape: \(2, 4, 3\)$
import numpy as np
from mindspore import context, Tensor
import mindspore.nn as nn
import mindspore.ops.operations as P
from mindspore.common.api import ms_function
from mindspore.common import dtype as mstype
from mindspore.nn.loss import SoftmaxCrossEntropyWithLogits
from mindspore.nn.optim import Momentum
from mindspore.nn.metrics import Accuracy
from mindspore.train.model import Model
from mindspore.train.callback import LossMonitor
import mindspore.dataset as ds
import mindspore.dataset.transforms as transforms

context.set_context(mode=context.GRAPH_MODE, device_target="CPU", save_graphs=False)


class ResidualMLP(nn.Cell):
    def __init__(self):
        super(ResidualMLP, self).__init__()
        self.fc1 = nn.Dense(3, 3)
        self.fc2 = nn.Dense(3, 3)
        self.add = P.TensorAdd()
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.fc2(self.add(x, self.relu(self.fc1(x))))


def create_dataset(num, batch_size):
    np.random.seed(5)
    data = np.random.randn(num, 3).astype(np.float32)
    label = np.argmax(data, axis=1).astype(np.int64)
    dataset = ds.NumpySlicesDataset({"data": data, "label": label}, shuffle=False)
    dataset = dataset.map(operations=transforms.TypeCast(mstype.int32), input_columns="label")
    return dataset.batch(batch_size, drop_remainder=True)


@ms_function
def packed(a, b):
    return P.Pack(axis=0)((a, b))


net = ResidualMLP()
loss = SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
opt = Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
model = Model(net, loss, opt, metrics={"acc": Accuracy()})
model.train(2, create_dataset(80, 16), callbacks=[LossMonitor(5)], dataset_sink_mode=False)
print(model.eval(create_dataset(80, 16), dataset_sink_mode=False))
a = Tensor(np.ones((4, 3)), mstype.float32)
print("packed shape:", packed(a, a).shape)
