# The linear-fitting tutorial: a custom Python generator as the dataset source,
# an initializer from mindspore.common.initializer, MSELoss and Momentum, then the fitted weights.
# expect: ^epoch: 1 step: 10, loss is \d+\.\d+
# expect: ^epoch: 1 step: 100, loss is \d+\.\d+
# expect: ^weight: (1\.9\d|2\.0\d)$
# expect: ^bias: (2\.9\d|3\.0\d)$
import numpy as np
import mindspore as ms
from mindspore import nn
import mindspore.dataset as ds
from mindspore.common.initializer import Normal
from mindspore.train import Model, LossMonitor

ms.set_seed(0)


def get_data(num, w=2.0, b=3.0):
    for _ in range(num):
        x = np.random.uniform(-10.0, 10.0)
        noise = np.random.normal(0, 0.01)
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
        self.fc = nn.Dense(1, 1, Normal(0.02), Normal(0.02))

    def construct(self, x):
        x = self.fc(x)
        return x


np.random.seed(0)
data_number = 1600
batch_number = 16
repeat_number = 1
ds_train = create_dataset(data_number, batch_size=batch_number, repeat_size=repeat_number)

net = LinearNet()
net_loss = nn.loss.MSELoss()
opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
model = Model(net, net_loss, opt)
model.train(1, ds_train, callbacks=[LossMonitor(10)], dataset_sink_mode=False)

for param in net.trainable_params():
    print(f"{param.name.split('.')[-1]}: {param.asnumpy().item():.2f}")
