# expect: epoch: 1 step: \d+, loss is \d
# expect: \{'mae': \d+\.\d+, 'mse': \d+\.\d+\}
# expect: metric type: float64
# expect: fitted: w=(1\.9|2\.0)\d*
"""Linear fitting with MAE and MSE in eval, in the style of the linear regression tutorial."""
import numpy as np

import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn
from mindspore.common.initializer import Normal
from mindspore.train import MAE, MSE, LossMonitor, Model


def make_dataset(num, seed, batch_size=16, w=2.0, b=3.0):
    """Samples of y = w * x + b + noise, drawn at once as arrays."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-10.0, 10.0, size=(num, 1)).astype(np.float32)
    y = (w * x + b + 0.1 * rng.normal(size=(num, 1))).astype(np.float32)
    return ds.NumpySlicesDataset((x, y), column_names=["data", "label"], shuffle=True).batch(batch_size)


ms.set_seed(1)
train_dataset = make_dataset(1600, seed=1)
eval_dataset = make_dataset(160, seed=2)
net = nn.Dense(1, 1, Normal(0.02), Normal(0.02))
net_loss = nn.MSELoss()
opt = nn.Momentum(net.trainable_params(), learning_rate=0.005, momentum=0.9)
model = Model(net, net_loss, opt, metrics={"mae": MAE(), "mse": MSE()})
model.train(2, train_dataset, callbacks=[LossMonitor(50)])
result = model.eval(eval_dataset)
print({k: round(float(v), 4) for k, v in result.items()})
print("metric type:", type(result["mae"]).__name__)
w = net.trainable_params()[0].asnumpy()
print("fitted: w=%.4f" % w[0][0])
