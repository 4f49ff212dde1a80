# The idioms of the model zoo's MobileNetV2, LSTM and Transformer scripts that are not layers:
# a backbone that initializes its weights in a loop over cells_and_names() after
# init_parameters_data(), zeroing biases with mindspore.numpy.zeros and reading kernel_size and
# out_channels; set_jit_config(JitConfig(jit_level="O2")) before Model; a @constexpr helper; one
# beam-search step with ops.TopK and ops.GatherNd; gradient rescaling with nn.ClipByNorm and
# ops.norm; an adaptive max-pooled head. It trains a few steps and checks what each idiom gives.
# expect: ^initialized 2 convolutions, 2 batch norms, 1 dense; biases zero: True$
# expect: ^constexpr shape: \(2, 4\)$
# expect: ^beam step: ids \[\[3, 2\], \[0, 1\]\], scores \[\[0\.9, 0\.8\], \[0\.7, 0\.6\]\]$
# expect: ^gathered: \[\[3, 0\], \[5, 6\]\]$
# expect: ^clipped norm: 1\.0000, top-2 norms: \[\d\.\d{4}, \d\.\d{4}\]$
# expect: ^epoch: 1 step: 4, loss is \d+\.\d+(e-\d+)?$
# expect: ^epoch: 3 step: 4, loss is \d+\.\d+(e-\d+)?$
# expect: ^loss fell: True$
import numpy as np
import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops
import mindspore.dataset as ds
from mindspore import Tensor
from mindspore.common import JitConfig
from mindspore.ops.primitive import constexpr
from mindspore.train import Model, LossMonitor, LambdaCallback

ms.set_seed(7)


@constexpr
def flat_shape(batch, beam, vocab):
    return (batch, beam * vocab)


class Net(nn.Cell):
    def __init__(self, classes=3):
        super(Net, self).__init__()
        self.features = nn.SequentialCell([
            nn.Conv2d(3, 8, 3, pad_mode="pad", padding=1, has_bias=True), nn.BatchNorm2d(8), nn.ReLU6(),
            nn.Conv2d(8, 8, 3, pad_mode="pad", padding=1, group=8, has_bias=True), nn.BatchNorm2d(8), nn.ReLU6(),
        ])
        self.pool = nn.AdaptiveMaxPool2d((2, 2))
        self.flatten = nn.Flatten(start_dim=1, end_dim=-1)
        self.dense = nn.Dense(32, classes)
        self._initialize_weights()

    def construct(self, x):
        return self.dense(self.flatten(self.pool(self.features(x))))

    def _initialize_weights(self):
        self.init_parameters_data()
        counts = {"conv": 0, "bn": 0, "dense": 0}
        for _, m in self.cells_and_names():
            if isinstance(m, nn.Conv2d):
                n = m.kernel_size[0] * m.kernel_size[1] * m.out_channels
                m.weight.set_data(Tensor(np.random.normal(0, np.sqrt(2. / n), m.weight.data.shape).astype("float32")))
                m.bias.set_data(ms.numpy.zeros(m.bias.data.shape, dtype="float32"))
                counts["conv"] += 1
            elif isinstance(m, nn.BatchNorm2d):
                m.gamma.set_data(Tensor(np.ones(m.gamma.data.shape, dtype="float32")))
                m.beta.set_data(ms.numpy.zeros(m.beta.data.shape, dtype="float32"))
                counts["bn"] += 1
            elif isinstance(m, nn.Dense):
                m.weight.set_data(Tensor(np.random.normal(0, 0.01, m.weight.data.shape).astype("float32")))
                m.bias.set_data(ms.numpy.zeros(m.bias.data.shape, dtype="float32"))
                counts["dense"] += 1
        zero = all(not m.bias.asnumpy().any() for _, m in self.cells_and_names() if isinstance(m, nn.Conv2d))
        print(f"initialized {counts['conv']} convolutions, {counts['bn']} batch norms, "
              f"{counts['dense']} dense; biases zero: {zero}")


net = Net()
print("constexpr shape:", flat_shape(2, 2, 2))

# One beam-search step, as the zoo's Transformer decoder takes it: top-k over beam x vocab, then
# the chosen beams' rows through GatherNd with (batch id, beam id) index pairs.
log_probs = Tensor(np.array([[[0.1, 0.2], [0.8, 0.9]], [[0.7, 0.6], [0.3, 0.2]]], np.float32))
scores, ids = ops.TopK(sorted=True)(ops.reshape(log_probs, flat_shape(2, 2, 2)), 2)
print(f"beam step: ids {ids.asnumpy().tolist()}, "
      f"scores {[[round(float(v), 4) for v in row] for row in scores.asnumpy()]}")
sequences = Tensor(np.array([[[1, 2], [3, 0]], [[5, 6], [7, 8]]], np.int32))
pairs = Tensor(np.array([[[0, 1], [0, 0]], [[1, 0], [1, 1]]], np.int32))
print("gathered:", ops.GatherNd()(sequences, pairs)[:, 0].asnumpy().tolist())

# Rescale a gradient-like tensor to norm 1, and compare the rows' norms.
grad = Tensor(np.array([[3.0, 4.0], [6.0, 8.0]], np.float32))
clipped = nn.ClipByNorm()(grad, Tensor(1.0, ms.float32))
rows = ops.norm(clipped, dim=1)
print(f"clipped norm: {float(ops.norm(clipped).asnumpy()):.4f}, "
      f"top-2 norms: {[round(float(v), 4) for v in ops.topk(rows, 2)[0].asnumpy()]}")

rng = np.random.default_rng(0)
labels = rng.integers(0, 3, 32).astype(np.int32)
images = (rng.normal(size=(32, 3, 6, 6)) + labels[:, None, None, None]).astype(np.float32)
data = ds.NumpySlicesDataset({"image": images, "label": labels}, shuffle=False).batch(8)

net.set_jit_config(JitConfig(jit_level="O2"))
losses = []
model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
              nn.Momentum(net.trainable_params(), 0.05, 0.9))
record = LambdaCallback(on_train_epoch_end=lambda run: losses.append(float(run.original_args().net_outputs.asnumpy())))
model.train(3, data, callbacks=[LossMonitor(4), record], dataset_sink_mode=False)
print("loss fell:", losses[-1] < losses[0])
