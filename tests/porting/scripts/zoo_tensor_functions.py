# A model-zoo style script on less common tensor functions: a tiny segmentation
# decoder that upsamples with ops.interpolate, a causal mask from ops.tril, position ids
# from ops.Range, L2-normalized embeddings ranked with ops.cdist and ops.sort, per-sample
# statistics from ops.std/ops.var, plus the zoo's module paths and switches
# (nn.wrap.grad_reducer, Cell.recompute, set_ps_context) in a one-device run.
# expect: ^epoch: 1 step: 4, loss is \d+\.\d+
# expect: ^epoch: 3 step: 4, loss is \d+\.\d+
# expect: ^nearest neighbours: \[\[0, \d\], \[1, \d\], \[2, \d\], \[3, \d\]\]$
# expect: ^mask rows: \[1\.0, 2\.0, 3\.0, 4\.0\] positions: \[0, 1, 2, 3\]$
# expect: ^loss went down: True$
import numpy as np
import mindspore as ms
import mindspore.dataset as ds
from mindspore import Tensor, nn, ops
from mindspore.nn.wrap.grad_reducer import DistributedGradReducer  # noqa: F401 (the zoo's import)
from mindspore.train import LossMonitor, Model

ms.set_seed(0)
ms.set_ps_context(enable_ps=False)


class TinySegmenter(nn.Cell):
    """Downsample by a strided convolution, upsample back with bilinear interpolation."""

    def __init__(self):
        super(TinySegmenter, self).__init__()
        self.encode = nn.Conv2d(1, 4, 3, stride=2, pad_mode="same", has_bias=True)
        self.relu = nn.ReLU()
        self.head = nn.Conv2d(4, 2, 1, has_bias=True)
        self.encode.recompute()  # a memory switch in MindSpore's graph mode

    def construct(self, x):
        features = self.relu(self.encode(x))
        spread = ops.std(features, (2, 3), keepdims=True) + ops.var(features, (2, 3), keepdims=True)
        logits = self.head(features / (spread + 1.0))
        return ops.interpolate(logits, size=x.shape[2:], mode="bilinear", align_corners=False)


class PixelLoss(nn.Cell):
    def __init__(self):
        super(PixelLoss, self).__init__()
        self.ce = nn.CrossEntropyLoss()
        self.transpose = ops.Transpose()

    def construct(self, logits, labels):
        flat = self.transpose(logits, (0, 2, 3, 1)).reshape((-1, 2))
        return self.ce(flat, labels.reshape((-1,)))


rng = np.random.default_rng(0)
images = rng.normal(size=(16, 1, 8, 8)).astype(np.float32)
labels = (images[:, 0] > 0).astype(np.int32)
data = ds.NumpySlicesDataset({"image": images, "label": labels}, shuffle=False).batch(4)

net, loss = TinySegmenter(), PixelLoss()
before = float(loss(net(Tensor(images)), Tensor(labels)).asnumpy())
model = Model(net, loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))
model.train(3, data, callbacks=[LossMonitor(4)])
after = float(loss(net(Tensor(images)), Tensor(labels)).asnumpy())

embeddings = ops.L2Normalize(axis=1)(Tensor(rng.normal(size=(4, 6)).astype(np.float32)))
_, order = ops.sort(ops.cdist(embeddings, embeddings), axis=1)
print("nearest neighbours:", order[:, :2].asnumpy().tolist())
positions = ops.Range()(Tensor(0, ms.int32), Tensor(4, ms.int32), Tensor(1, ms.int32))
causal = ops.tril(ops.ones((4, 4), ms.float32))
print("mask rows:", causal.sum(axis=1).asnumpy().tolist(), "positions:", positions.asnumpy().tolist())
print("loss went down:", after < before)
