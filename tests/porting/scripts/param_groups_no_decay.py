# expect: decay: 3 params, no decay: 5 params
# expect: epoch: 1 step: \d+, loss is \d
# expect: epoch: 2 step: \d+, loss is \d
# expect: \{'acc': \d\.\d+\}
"""Parameter groups in the style of the model zoo: weight decay on weights only, not on biases or BatchNorm."""
import numpy as np

import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn
from mindspore.train import Model, LossMonitor


class Net(nn.Cell):
    def __init__(self, num_classes=2):
        super(Net, self).__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode='same', has_bias=True)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(4 * 4 * 4, 16)
        self.fc2 = nn.Dense(16, num_classes)

    def construct(self, x):
        x = self.pool(self.relu(self.bn(self.conv(x))))
        x = self.relu(self.fc1(self.flatten(x)))
        return self.fc2(x)


def get_param_groups(network):
    """Biases and BatchNorm's beta/gamma get no weight decay."""
    decay_params = []
    no_decay_params = []
    for x in network.trainable_params():
        parameter_name = x.name
        if parameter_name.endswith('.bias') or parameter_name.endswith('.gamma') or parameter_name.endswith('.beta'):
            no_decay_params.append(x)
        else:
            decay_params.append(x)
    return [{'params': no_decay_params, 'weight_decay': 0.0}, {'params': decay_params}]


ms.set_seed(4)
rng = np.random.default_rng(4)
images = rng.normal(size=(128, 1, 8, 8)).astype(np.float32)
labels = (images[:, 0, :4, :].mean(axis=(1, 2)) > images[:, 0, 4:, :].mean(axis=(1, 2))).astype(np.int32)
train_ds = ds.NumpySlicesDataset({"image": images, "label": labels}, shuffle=True).batch(16)

net = Net()
group_params = get_param_groups(net)
print("decay: %d params, no decay: %d params" % (len(group_params[1]['params']), len(group_params[0]['params'])))
group_params.append({'order_params': net.trainable_params()})
opt = nn.Momentum(group_params, learning_rate=0.05, momentum=0.9, weight_decay=1e-4)
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
model = Model(net, loss_fn=loss, optimizer=opt, metrics={'acc'})
model.train(2, train_ds, callbacks=[LossMonitor(4)])
print({k: round(float(v), 2) for k, v in model.eval(train_ds).items()})
