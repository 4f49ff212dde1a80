# A small self-attention classifier in the style of MindSpore's transformer code:
# BatchMatMul, Softmax, Transpose, Reshape, Tile, Select and GeLU as operator objects,
# a padding mask, trained with Model and evaluated with an Accuracy metric.
# expect: ^epoch: 1 step: 8, loss is \d+\.\d+
# expect: ^epoch: 4 step: 8, loss is \d+\.\d+
# expect: ^attention rows sum to 1: True$
# expect: ^\{'accuracy': (?:np\.float64\()?\d\.\d+\)?\}$
import math

import numpy as np
import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops
from mindspore import Tensor
from mindspore.train import Model, LossMonitor

ms.set_seed(0)
SEQ, DIM, HEADS = 6, 8, 2


class SelfAttention(nn.Cell):
    def __init__(self, dim, heads):
        super(SelfAttention, self).__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.query = nn.Dense(dim, dim)
        self.key = nn.Dense(dim, dim)
        self.value = nn.Dense(dim, dim)
        self.reshape = ops.Reshape()
        self.transpose = ops.Transpose()
        self.matmul_qk = ops.BatchMatMul(transpose_b=True)
        self.matmul_v = ops.BatchMatMul()
        self.softmax = ops.Softmax(axis=-1)
        self.select = ops.Select()
        self.tile = ops.Tile()
        self.expand_dims = ops.ExpandDims()
        self.scale = 1.0 / math.sqrt(self.head_dim)
        self.last_probs = None

    def split_heads(self, x, batch):
        x = self.reshape(x, (batch, SEQ, self.heads, self.head_dim))
        return self.transpose(x, (0, 2, 1, 3))

    def construct(self, x, mask):
        batch = x.shape[0]
        q = self.split_heads(self.query(x), batch)
        k = self.split_heads(self.key(x), batch)
        v = self.split_heads(self.value(x), batch)
        scores = self.matmul_qk(q, k) * self.scale
        keep = self.tile(self.expand_dims(self.expand_dims(mask, 1), 1), (1, self.heads, SEQ, 1))
        scores = self.select(keep, scores, ops.ones_like(scores) * -1e9)
        probs = self.softmax(scores)
        self.last_probs = probs
        out = self.transpose(self.matmul_v(probs, v), (0, 2, 1, 3))
        return self.reshape(out, (batch, SEQ, self.heads * self.head_dim))


class Classifier(nn.Cell):
    def __init__(self):
        super(Classifier, self).__init__()
        self.attention = SelfAttention(DIM, HEADS)
        self.gelu = ops.GeLU()
        self.head = nn.Dense(DIM, 2)
        self.mean = ops.ReduceMean(keep_dims=False)

    def construct(self, x, mask):
        h = self.gelu(self.attention(x, mask))
        return self.head(self.mean(h, 1))


class WithMaskLoss(nn.Cell):
    def __init__(self, net, loss):
        super(WithMaskLoss, self).__init__(auto_prefix=False)
        self.net, self.loss = net, loss

    def construct(self, x, mask, label):
        return self.loss(self.net(x, mask), label)


class EvalNet(nn.Cell):
    def __init__(self, net):
        super(EvalNet, self).__init__(auto_prefix=False)
        self.net = net

    def construct(self, x, mask, label):
        logits = self.net(x, mask)
        return logits, logits, label


rng = np.random.default_rng(5)
n = 128
x = rng.normal(size=(n, SEQ, DIM)).astype(np.float32)
lengths = rng.integers(2, SEQ + 1, size=n)
mask = np.arange(SEQ)[None, :] < lengths[:, None]
label = (x[:, 0, 0] > 0).astype(np.int32)
dataset = ms.dataset.NumpySlicesDataset({"x": x, "mask": mask, "label": label}, shuffle=True).batch(16)

net = Classifier()
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
train_net = nn.TrainOneStepCell(WithMaskLoss(net, loss), nn.Adam(net.trainable_params(), 0.01))
model = Model(train_net, eval_network=EvalNet(net), eval_indexes=[0, 1, 2], metrics={"accuracy": nn.Accuracy()})
model.train(4, dataset, callbacks=[LossMonitor(8)])

probs = net.attention.last_probs.asnumpy()
print("attention rows sum to 1:", bool(np.allclose(probs.sum(-1), 1.0, atol=1e-5)))
print(model.eval(dataset))
