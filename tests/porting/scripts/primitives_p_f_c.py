# A network, a loss and a training step written with the operator classes of
# mindspore.ops.operations (P), the functions of mindspore.ops.functional (F) and
# GradOperation from mindspore.ops.composite (C), as MindSpore 1.x code writes them.
# expect: ^step 0, loss \d+\.\d{4}$
# expect: ^step 30, loss \d+\.\d{4}$
# expect: ^loss went down: True$
# expect: ^argmax agrees with the labels on \d+ of 32 samples$
import numpy as np
import mindspore
import mindspore.nn as nn
from mindspore import Tensor, Parameter, ParameterTuple
from mindspore.ops import operations as P
from mindspore.ops import functional as F
from mindspore.ops import composite as C
from mindspore.common.initializer import initializer, XavierUniform

mindspore.set_seed(2)


class MLP(nn.Cell):
    def __init__(self, in_dim, hidden, out_dim):
        super(MLP, self).__init__()
        self.w1 = Parameter(initializer(XavierUniform(), [in_dim, hidden], mindspore.float32), name="w1")
        self.b1 = Parameter(initializer("zeros", [hidden], mindspore.float32), name="b1")
        self.w2 = Parameter(initializer(XavierUniform(), [hidden, out_dim], mindspore.float32), name="w2")
        self.b2 = Parameter(initializer("zeros", [out_dim], mindspore.float32), name="b2")
        self.matmul = P.MatMul()
        self.bias_add = P.BiasAdd()
        self.relu = P.ReLU()
        self.reshape = P.Reshape()
        self.shape = P.Shape()

    def construct(self, x):
        x = self.reshape(x, (self.shape(x)[0], -1))
        h = self.relu(self.bias_add(self.matmul(x, self.w1), self.b1))
        return self.bias_add(self.matmul(h, self.w2), self.b2)


class SoftmaxLoss(nn.Cell):
    """Mean cross-entropy from log-softmax and one-hot labels, with primitives only."""

    def __init__(self, num_classes):
        super(SoftmaxLoss, self).__init__()
        self.log_softmax = P.LogSoftmax(axis=-1)
        self.one_hot = P.OneHot()
        self.reduce_sum = P.ReduceSum(keep_dims=False)
        self.reduce_mean = P.ReduceMean()
        self.on_value = Tensor(1.0, mindspore.float32)
        self.off_value = Tensor(0.0, mindspore.float32)
        self.num_classes = num_classes

    def construct(self, logits, label):
        one_hot = self.one_hot(label, self.num_classes, self.on_value, self.off_value)
        per_sample = -self.reduce_sum(F.mul(self.log_softmax(logits), one_hot), 1)
        return self.reduce_mean(per_sample)


class WithLoss(nn.Cell):
    def __init__(self, net, loss):
        super(WithLoss, self).__init__(auto_prefix=False)
        self.net = net
        self.loss = loss

    def construct(self, x, y):
        return self.loss(self.net(x), y)


net = MLP(2 * 4, 16, 3)
net_with_loss = WithLoss(net, SoftmaxLoss(3))
weights = ParameterTuple(net.trainable_params())
grad_op = C.GradOperation(get_by_list=True)
assign_sub = P.AssignSub()
lr = Tensor(0.5, mindspore.float32)

rng = np.random.RandomState(0)
x_np = rng.randn(32, 2, 4).astype(np.float32)
y_np = np.argmax(x_np.reshape(32, -1)[:, :3], axis=1).astype(np.int32)
x, y = Tensor(x_np), Tensor(y_np)

losses = []
for step in range(31):
    loss = net_with_loss(x, y)
    grads = grad_op(net_with_loss, weights)(x, y)
    for w, g in zip(weights, grads):
        assign_sub(w, F.cast(g * lr, mindspore.float32))
    losses.append(float(loss.asnumpy()))
    if step % 10 == 0:
        print("step %d, loss %.4f" % (step, losses[-1]))
print("loss went down:", losses[-1] < losses[0])
pred = P.Argmax(axis=1, output_type=mindspore.int32)(net(x))
correct = P.ReduceSum()(P.Cast()(P.Equal()(pred, y), mindspore.float32))
print("argmax agrees with the labels on %d of 32 samples" % int(correct.asnumpy()))
