# A hand-written TrainOneStepCell in MindSpore's documented style (GradOperation with
# get_by_list and sens_param, ops.fill, ops.depend), trained through Model with LossMonitor,
# then checked step by step against the built-in nn.TrainOneStepCell.
# expect: ^epoch: 1 step: 1, loss is \d+\.\d+
# expect: ^epoch: 2 step: 4, loss is \d+\.\d+
# expect: ^same losses as nn.TrainOneStepCell: True$
import numpy as np
import mindspore as ms
from mindspore import nn, ops
from mindspore.train import Model, LossMonitor
import mindspore.dataset as ds


class CustomTrainOneStepCell(nn.Cell):
    """One training step: forward, gradients of the weights, optimizer update."""

    def __init__(self, network, optimizer, sens=1.0):
        super(CustomTrainOneStepCell, self).__init__(auto_prefix=False)
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = self.optimizer.parameters
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)
        self.sens = sens

    def construct(self, *inputs):
        loss = self.network(*inputs)
        sens = ops.fill(loss.dtype, loss.shape, self.sens)
        grads = self.grad(self.network, self.weights)(*inputs, sens)
        loss = ops.depend(loss, self.optimizer(grads))
        return loss


def build(step_cell):
    ms.set_seed(42)
    net = nn.SequentialCell([nn.Dense(10, 32), nn.ReLU(), nn.Dense(32, 3)])
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    return step_cell(nn.WithLossCell(net, loss_fn), optimizer)


rng = np.random.default_rng(7)
features = rng.normal(size=(64, 10)).astype(np.float32)
targets = (features[:, 0] > 0).astype(np.int32) + (features[:, 1] > 1).astype(np.int32)
dataset = ds.NumpySlicesDataset({"data": features, "label": targets}, shuffle=False).batch(16)

train_net = build(CustomTrainOneStepCell)
model = Model(train_net)
model.train(2, dataset, callbacks=[LossMonitor()], dataset_sink_mode=False)

custom, builtin = build(CustomTrainOneStepCell), build(nn.TrainOneStepCell)
x, y = ms.Tensor(features[:16]), ms.Tensor(targets[:16])
same = all(
    np.allclose(custom(x, y).asnumpy(), builtin(x, y).asnumpy(), rtol=1e-6) for _ in range(5)
)
print("same losses as nn.TrainOneStepCell:", same)
