# expect: MyMAE: 0\.1\d*
# expect: \{'my_mae': \d+\.\d+, 'max_error': \d+\.\d+\}
"""A user-defined Metric, the way MindSpore's documentation writes one (with rearrange_inputs and set_indexes)."""
import numpy as np

import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn, Tensor
from mindspore.train import Metric, Model, rearrange_inputs


class MyMAE(Metric):
    def __init__(self):
        super(MyMAE, self).__init__()
        self.clear()

    def clear(self):
        self.abs_error_sum = 0
        self.samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        error_abs = np.abs(y.reshape(y_pred.shape) - y_pred)
        self.abs_error_sum += error_abs.sum()
        self.samples_num += y.shape[0]

    def eval(self):
        return self.abs_error_sum / self.samples_num


class MaxError(Metric):
    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self.max_error = 0.0

    @rearrange_inputs
    def update(self, *inputs):
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        self.max_error = max(self.max_error, float(np.max(np.abs(y_pred - y.reshape(y_pred.shape)))))

    def eval(self):
        return self.max_error


class EvalNet(nn.Cell):
    """Returns (loss, prediction, label) so that metrics pick their inputs with set_indexes."""

    def __init__(self, network, loss_fn):
        super().__init__(auto_prefix=False)
        self.network = network
        self.loss_fn = loss_fn

    def construct(self, data, label):
        outputs = self.network(data)
        return self.loss_fn(outputs, label), outputs, label


x = Tensor(np.array([[0.1, 0.2, 0.6, 0.9], [0.1, 0.2, 0.6, 0.9]]), ms.float32)
y = Tensor(np.array([[0.1, 0.25, 0.7, 0.9], [0.1, 0.25, 0.7, 0.9]]), ms.float32)
error = MyMAE()
error.clear()
error.update(x, y)
print("MyMAE:", round(float(error.eval()), 4))

ms.set_seed(3)
rng = np.random.default_rng(3)
data = rng.normal(size=(64, 3)).astype(np.float32)
label = (data @ np.array([[0.5], [-1.0], [2.0]], np.float32)).astype(np.float32)
eval_ds = ds.NumpySlicesDataset({"data": data, "label": label}, shuffle=False).batch(16)
net = nn.Dense(3, 1)
eval_net = EvalNet(net, nn.MSELoss())
model = Model(net, eval_network=eval_net,
              metrics={"my_mae": MyMAE().set_indexes([1, 2]), "max_error": MaxError().set_indexes([1, 2])})
result = model.eval(eval_ds)
print({k: round(float(v), 4) for k, v in result.items()})
