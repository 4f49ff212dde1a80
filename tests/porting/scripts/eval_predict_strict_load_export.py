# An eval.py / export.py pair in one script, as model-zoo repositories ship them: a short
# training run leaves a checkpoint; then a fresh network is restored with load_checkpoint and
# load_param_into_net(strict_load=True), a checkpoint filtered with choice_func is loaded
# leniently (the head stays as initialized), model.predict gives logits turned into
# probabilities by ops.Softmax and classes by ops.argmax, accuracy is counted with Tensor.asnumpy,
# and the network is exported with ms.export to ONNX (MINDIR needs MindSpore's graph compiler).
# data: mnist
# expect: ^epoch: 1 step: 10, loss is \d+\.\d+
# expect: ^checkpoint: cnn-1_10\.ckpt, 23 entries$
# expect: ^strict load: parameters not loaded \[\], checkpoint entries not used \['global_step', 'learning_rate', 'momentum', 'moments\.features\.0\.0\.weight', .*'moments\.head\.bias'\]$
# expect: ^without the head: 19 entries, not loaded \['head\.weight', 'head\.bias'\]$
# expect: ^predict: logits \(64, 10\) Float32, probabilities sum to 1: True$
# expect: ^same predictions as the trained network: True$
# expect: ^accuracy from predictions: (?:0\.\d{4}|1\.0000)$
# expect: ^top-1 probability in \(0, 1\]: True$
# expect: ^exported: cnn\.onnx True$
import os

import numpy as np
import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops
import mindspore.dataset as ds
import mindspore.dataset.vision as vision
import mindspore.dataset.transforms as transforms
from mindspore import Tensor, load_checkpoint, load_param_into_net, export
from mindspore.common.initializer import Normal
from mindspore.train import Model, LossMonitor, ModelCheckpoint, CheckpointConfig


def conv_bn_relu(in_channels, out_channels):
    return nn.SequentialCell([nn.Conv2d(in_channels, out_channels, 3, pad_mode="same", has_bias=False),
                              nn.BatchNorm2d(out_channels), nn.ReLU()])


class SmallCNN(nn.Cell):
    """Two conv-BN-ReLU blocks with pooling, a spatial mean, and a linear head."""

    def __init__(self, num_class=10):
        super(SmallCNN, self).__init__()
        self.features = nn.SequentialCell([conv_bn_relu(1, 8), nn.MaxPool2d(2, 2), conv_bn_relu(8, 16), nn.MaxPool2d(2, 2)])
        self.mean = ops.ReduceMean(keep_dims=False)
        self.head = nn.Dense(16, num_class, weight_init=Normal(0.02))

    def construct(self, x):
        return self.head(self.mean(self.features(x), (2, 3)))


def create_dataset(data_path, batch_size=32):
    image_pipeline = transforms.Compose([vision.ToTensor(), vision.Normalize(mean=(0.1307,), std=(0.3081,), is_hwc=False)])
    data_set = ds.MnistDataset(data_path, shuffle=False)
    data_set = data_set.map(image_pipeline, "image").map(transforms.TypeCast(ms.int32), "label")
    return data_set.batch(batch_size, drop_remainder=True)


if __name__ == "__main__":
    ms.set_seed(0)
    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")

    # train.py: one epoch, one checkpoint
    train_net = SmallCNN()
    opt = nn.Momentum(train_net.trainable_params(), learning_rate=0.05, momentum=0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    config = CheckpointConfig(save_checkpoint_steps=10, keep_checkpoint_max=1)
    ckpt_cb = ModelCheckpoint(prefix="cnn", directory="./ckpt", config=config)
    Model(train_net, loss, opt).train(1, create_dataset("MNIST_Data/train"), callbacks=[LossMonitor(), ckpt_cb],
                                      dataset_sink_mode=False)

    # eval.py
    ckpt_file = os.path.join("./ckpt", sorted(f for f in os.listdir("./ckpt") if f.endswith(".ckpt"))[-1])
    param_dict = load_checkpoint(ckpt_file)
    print(f"checkpoint: {os.path.basename(ckpt_file)}, {len(param_dict)} entries")
    net = SmallCNN()
    param_not_load, ckpt_not_load = load_param_into_net(net, param_dict, strict_load=True)
    print(f"strict load: parameters not loaded {param_not_load}, checkpoint entries not used {ckpt_not_load}")

    # fine-tuning a new head: neither the old head nor the optimizer's moments for it
    backbone_dict = load_checkpoint(ckpt_file, choice_func=lambda name: not name.startswith(("head.", "moments.head.")))
    partial = SmallCNN()
    partial_not_load, _ = load_param_into_net(partial, backbone_dict, strict_load=False)
    print(f"without the head: {len(backbone_dict)} entries, not loaded {partial_not_load}")

    net.set_train(False)
    train_net.set_train(False)
    model = Model(net)
    softmax = ops.Softmax(axis=1)
    correct = total = 0
    for images, labels in create_dataset("MNIST_Data/test", batch_size=64).create_tuple_iterator():
        logits = model.predict(images)
        probs = softmax(logits)
        predicted = ops.argmax(probs, dim=1)
        print(f"predict: logits {logits.shape} {logits.dtype}, probabilities sum to 1: "
              f"{np.allclose(probs.asnumpy().sum(axis=1), 1.0, atol=1e-5)}")
        same = np.array_equal(predicted.asnumpy(), train_net(images).asnumpy().argmax(axis=1))
        print("same predictions as the trained network:", same)
        correct += int((predicted.asnumpy() == labels.asnumpy()).sum())
        total += labels.shape[0]
        top = probs.max(axis=1).asnumpy()
    print(f"accuracy from predictions: {correct / total:.4f}")
    print("top-1 probability in (0, 1]:", bool(((top > 0) & (top <= 1)).all()))

    # export.py
    export(net, Tensor(np.zeros([1, 1, 28, 28], np.float32)), file_name="cnn", file_format="ONNX")
    print("exported: cnn.onnx", os.path.getsize("cnn.onnx") > 0)
