# Imports through every module path that MindSpore 1.x and 2.x code uses,
# then a small training, a checkpoint round trip and an evaluation with them.
# expect: ^mode: 0 target: CPU parallel: stand_alone$
# expect: ^epoch: 1 step: 4, loss is \d+\.\d+
# expect: ^reloaded: 5 parameters, same predictions: True$
# expect: ^\{'acc': (?:np\.float64\()?\d\.\d+\)?\}$
import os

import numpy as np
import mindspore
from mindspore import context
from mindspore.context import ParallelMode
from mindspore.common import set_seed
import mindspore.common.dtype as mstype
from mindspore.common.tensor import Tensor
from mindspore.common.parameter import Parameter, ParameterTuple
from mindspore.common.initializer import TruncatedNormal
from mindspore.common.api import jit
import mindspore.nn as nn
from mindspore.nn.loss import SoftmaxCrossEntropyWithLogits
from mindspore.nn.optim import Momentum
from mindspore.nn.metrics import Accuracy
from mindspore.train.model import Model
from mindspore.train.callback import LossMonitor
from mindspore.train.serialization import save_checkpoint, load_checkpoint, load_param_into_net
from mindspore.dataset import NumpySlicesDataset
from mindspore.ops import operations as P
from mindspore.ops import functional as F
from mindspore.ops import composite as C

context.set_context(mode=context.GRAPH_MODE, device_target="CPU")
context.set_auto_parallel_context(parallel_mode=ParallelMode.STAND_ALONE)
set_seed(1)
print("mode:", context.get_context("mode"), "target:", context.get_context("device_target"),
      "parallel:", context.get_auto_parallel_context("parallel_mode"))


class Net(nn.Cell):
    def __init__(self, num_class=2):
        super(Net, self).__init__()
        self.fc1 = nn.Dense(8, 16, weight_init=TruncatedNormal(0.02))
        self.fc2 = nn.Dense(16, num_class, weight_init=TruncatedNormal(0.02))
        self.relu = P.ReLU()
        self.scale = Parameter(Tensor(np.ones([1], np.float32)), name="scale", requires_grad=False)

    def construct(self, x):
        x = self.relu(self.fc1(x))
        return F.mul(self.fc2(x), self.scale)


@jit
def predict(net, x):
    return P.Argmax(output_type=mstype.int32)(net(x))


rng = np.random.default_rng(3)
data = rng.normal(size=(64, 8)).astype(np.float32)
label = (data.sum(axis=1) > 0).astype(np.int32)
train_ds = NumpySlicesDataset((data, label), column_names=["data", "label"], shuffle=False).batch(16)

net = Net()
opt = Momentum(ParameterTuple(net.trainable_params()), 0.1, 0.9)
model = Model(net, SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt,
              metrics={"acc": Accuracy()})
model.train(1, train_ds, callbacks=[LossMonitor(4)])

save_checkpoint(net, "net.ckpt")
fresh = Net()
param_not_load, _ = load_param_into_net(fresh, load_checkpoint("net.ckpt"))
x = Tensor(data[:16], mstype.float32)
same = bool((predict(fresh, x) == predict(net, x)).all())
print("reloaded: %d parameters, same predictions: %s" % (len(fresh.parameters_dict()) - len(param_not_load), same))
assert os.path.exists("net.ckpt") and C.GradOperation is not None
print(model.eval(train_ds))
