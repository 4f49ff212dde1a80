# expect: learning rates: \[0\.01, 0\.01, 0\.001, 0\.001, 0\.01, 0\.01\]
# expect: epoch: 1 step: 4, loss is \d
# expect: conv weight changed: True
"""Per-group learning rates and gradient centralization on a convolution backbone, as fine-tuning code does.

(MindSpore 2.10 runs grad_centralization on Ascend and GPU only; its CPU backend has no Centralization kernel.)
"""
import numpy as np

import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn
from mindspore.train import Model, LossMonitor


class Backbone(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, pad_mode='same', has_bias=True)
        self.conv2 = nn.Conv2d(16, 16, 3, pad_mode='same', has_bias=True)
        self.relu = nn.ReLU()
        self.pool = nn.AvgPool2d(kernel_size=8, stride=8)
        self.flatten = nn.Flatten()

    def construct(self, x):
        return self.flatten(self.pool(self.relu(self.conv2(self.relu(self.conv1(x))))))


class Classifier(nn.Cell):
    def __init__(self):
        super().__init__()
        self.backbone = Backbone()
        self.head = nn.Dense(16, 4)

    def construct(self, x):
        return self.head(self.backbone(x))


ms.set_seed(5)
net = Classifier()
conv2_params = list(filter(lambda x: 'conv2' in x.name, net.trainable_params()))
other_params = list(filter(lambda x: 'conv2' not in x.name, net.trainable_params()))
group_params = [{'params': other_params, 'lr': 0.01},
                {'params': conv2_params, 'lr': 0.001, 'grad_centralization': True},
                {'order_params': net.trainable_params()}]
opt = nn.SGD(group_params, learning_rate=0.1, momentum=0.9)
print("learning rates:", [round(float(lr.asnumpy()), 4) for lr in opt.get_lr()])

rng = np.random.default_rng(5)
images = rng.normal(size=(64, 3, 8, 8)).astype(np.float32)
labels = rng.integers(0, 4, 64).astype(np.int32)
dataset = ds.NumpySlicesDataset({"image": images, "label": labels}, shuffle=False).batch(16)
before = net.backbone.conv2.weight.asnumpy().copy()
model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean'), opt)
model.train(1, dataset, callbacks=[LossMonitor()])
print("conv weight changed:", bool(np.abs(net.backbone.conv2.weight.asnumpy() - before).max() > 0))
