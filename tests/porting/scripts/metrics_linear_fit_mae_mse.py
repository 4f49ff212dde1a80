# expect: epoch: 1 step: \d+, loss is \d
# expect: \{'mae': \d+\.\d+, 'mse': \d+\.\d+\}
# expect: metric type: float64
# expect: fitted: w=(1\.9|2\.0)\d*
"""Linear fitting with MAE and MSE in eval, in the style of the linear regression tutorial."""
import numpy as np

import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn
from mindspore.train import MAE, MSE, LossMonitor, Model


def get_data(num, w=2.0, b=3.0, seed=1):
    rng = np.random.default_rng(seed)
    for _ in range(num):
        x = rng.uniform(-10.0, 10.0)
        noise = rng.normal(0, 1) * 0.1
        y = x * w + b + noise
        yield np.array([x]).astype(np.float32), np.array([y]).astype(np.float32)


def create_dataset(num_data, batch_size=16, repeat_size=1):
    input_data = ds.GeneratorDataset(list(get_data(num_data)), column_names=['data', 'label'])
    input_data = input_data.batch(batch_size)
    input_data = input_data.repeat(repeat_size)
    return input_data


class LinearNet(nn.Cell):
    def __init__(self):
        super(LinearNet, self).__init__()
        self.fc = nn.Dense(1, 1, ms.common.initializer.Normal(0.02), ms.common.initializer.Normal(0.02))

    def construct(self, x):
        return self.fc(x)


ms.set_seed(1)
train_dataset = create_dataset(1600, batch_size=16)
eval_dataset = create_dataset(160, batch_size=16)
net = LinearNet()
net_loss = nn.MSELoss()
opt = nn.Momentum(net.trainable_params(), learning_rate=0.005, momentum=0.9)
model = Model(net, net_loss, opt, metrics={"mae": MAE(), "mse": MSE()})
model.train(2, train_dataset, callbacks=[LossMonitor(50)])
result = model.eval(eval_dataset)
print({k: round(float(v), 4) for k, v in result.items()})
print("metric type:", type(result["mae"]).__name__)
w = net.trainable_params()[0].asnumpy()
print("fitted: w=%.4f" % w[0][0])
