# The model zoo's gradient-clipping training cell: a MultitypeFuncGraph registered per
# argument type, applied to every gradient with HyperMap and F.partial, then the update.
# expect: ^epoch: 1 step: 1, loss is \d+\.\d+
# expect: ^epoch: 2 step: 6, loss is \d+\.\d+
# expect: ^largest clipped gradient: 0\.1000$
import numpy as np
import mindspore.nn as nn
from mindspore import Tensor, Model, set_seed
from mindspore.ops import composite as C
from mindspore.ops import functional as F
from mindspore.ops import operations as P
from mindspore.train.callback import LossMonitor
from mindspore.dataset import NumpySlicesDataset

GRADIENT_CLIP_TYPE = 0
GRADIENT_CLIP_VALUE = 0.1

clip_grad = C.MultitypeFuncGraph("clip_grad")


@clip_grad.register("Number", "Number", "Tensor")
def _clip_grad(clip_type, clip_value, grad):
    """Clip a gradient by value when clip_type is 0; other types leave it unchanged here."""
    if clip_type != 0:
        return grad
    dt = F.dtype(grad)
    low = F.cast(F.tuple_to_array((-clip_value,)), dt)
    high = F.cast(F.tuple_to_array((clip_value,)), dt)
    return C.clip_by_value(grad, low, high)


class TrainOneStepWithClipCell(nn.Cell):
    def __init__(self, network, optimizer):
        super(TrainOneStepWithClipCell, self).__init__(auto_prefix=False)
        self.network = network
        self.network.set_grad()
        self.weights = optimizer.parameters
        self.optimizer = optimizer
        self.grad = C.GradOperation(get_by_list=True)
        self.hyper_map = C.HyperMap()

    def construct(self, *inputs):
        loss = self.network(*inputs)
        grads = self.grad(self.network, self.weights)(*inputs)
        grads = self.hyper_map(F.partial(clip_grad, GRADIENT_CLIP_TYPE, GRADIENT_CLIP_VALUE), grads)
        return F.depend(loss, self.optimizer(grads))


set_seed(4)
rng = np.random.RandomState(4)
data = (rng.randn(96, 5) * 10).astype(np.float32)
label = (data @ rng.randn(5, 1)).astype(np.float32)
dataset = NumpySlicesDataset((data, label), column_names=["data", "label"], shuffle=False).batch(16)

net = nn.Dense(5, 1)
train_net = TrainOneStepWithClipCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.01))
model = Model(train_net)
model.train(2, dataset, callbacks=[LossMonitor()])
grads = C.GradOperation(get_by_list=True)(train_net.network, train_net.weights)(Tensor(data[:16]), Tensor(label[:16]))
clipped = C.HyperMap()(F.partial(clip_grad, GRADIENT_CLIP_TYPE, GRADIENT_CLIP_VALUE), grads)
print("largest clipped gradient: %.4f" % max(float(P.ReduceMax()(P.Abs()(g)).asnumpy()) for g in clipped))
