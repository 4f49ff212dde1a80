# LeNet-5 written the early-tutorial way: Parameters for the weights and the operator
# classes Conv2D, MaxPool, ReLU, Reshape, MatMul and BiasAdd, trained with
# WithLossCell and TrainOneStepCell on 32x32 images generated in the script.
# expect: ^step 1, loss \d+\.\d{4}$
# expect: ^step 8, loss \d+\.\d{4}$
# expect: ^output shape: \(8, 10\)$
# expect: ^loss went down: True$
import numpy as np
import mindspore
import mindspore.nn as nn
import mindspore.ops as ops
from mindspore import Tensor, Parameter
from mindspore.common.initializer import initializer, HeUniform

mindspore.set_seed(0)


def weight(shape, name):
    return Parameter(initializer(HeUniform(), shape, mindspore.float32), name=name)


class LeNet5(nn.Cell):
    def __init__(self, num_class=10):
        super(LeNet5, self).__init__()
        self.conv1_w = weight([6, 1, 5, 5], "conv1_w")
        self.conv2_w = weight([16, 6, 5, 5], "conv2_w")
        self.fc1_w = weight([16 * 5 * 5, 120], "fc1_w")
        self.fc2_w = weight([120, 84], "fc2_w")
        self.fc3_w = weight([84, num_class], "fc3_w")
        self.fc3_b = Parameter(initializer("zeros", [num_class], mindspore.float32), name="fc3_b")
        self.conv1 = ops.Conv2D(out_channel=6, kernel_size=5, pad_mode="valid")
        self.conv2 = ops.Conv2D(out_channel=16, kernel_size=5, pad_mode="valid")
        self.pool = ops.MaxPool(kernel_size=2, strides=2)
        self.relu = ops.ReLU()
        self.reshape = ops.Reshape()
        self.matmul = ops.MatMul()
        self.bias_add = ops.BiasAdd()

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x, self.conv1_w)))
        x = self.pool(self.relu(self.conv2(x, self.conv2_w)))
        x = self.reshape(x, (-1, 16 * 5 * 5))
        x = self.relu(self.matmul(x, self.fc1_w))
        x = self.relu(self.matmul(x, self.fc2_w))
        return self.bias_add(self.matmul(x, self.fc3_w), self.fc3_b)


rng = np.random.RandomState(1)
labels = rng.randint(0, 10, size=8).astype(np.int32)
images = rng.rand(8, 1, 32, 32).astype(np.float32) * 0.1
for i, c in enumerate(labels):
    images[i, 0, 3 * c:3 * c + 3, 4:28] += 1.0  # the class decides which rows are bright

net = LeNet5()
loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
train_net = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), optimizer)
train_net.set_train()

x, y = Tensor(images), Tensor(labels)
losses = []
for step in range(1, 9):
    losses.append(float(train_net(x, y).asnumpy()))
    if step in (1, 8):
        print("step %d, loss %.4f" % (step, losses[-1]))
print("output shape:", net(x).shape)
print("loss went down:", losses[-1] < losses[0])
