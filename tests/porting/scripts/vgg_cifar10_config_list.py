# A VGG-style CIFAR-10 script: the feature extractor built by a make_layers helper from a config
# list ('M' for nn.MaxPool2d), a classifier of nn.Flatten, nn.Dense and nn.Dropout(p=...),
# weights initialized in a loop over cells_and_names() with XavierUniform / TruncatedNormal
# through initializer(...) and set_data, a warm-up + cosine learning rate list, Momentum with
# weight decay, Model(..., amp_level="O0", metrics={"acc"}) and model.train(...,
# dataset_sink_mode=False), then Model.eval on the test batch file.
# data: cifar10
# expect: ^features: 15 cells, classifier: 5 cells$
# expect: ^initialized: 4 conv \(XavierUniform\), 2 dense \(TruncatedNormal\)$
# expect: ^lr: 30 values, warm-up 0\.0\d+ -> 0\.05, last 0\.0\d+$
# expect: ^epoch: 1 step: 6, loss is \d+\.\d+
# expect: ^epoch: 5 step: 6, loss is \d+\.\d+
# expect: ^eval: \{'acc': (?:np\.float64\()?\d\.\d+\)?\}$
# expect: ^predictions in range: True$
import argparse
import math

import numpy as np
import mindspore as ms
import mindspore.nn as nn
import mindspore.dataset as ds
import mindspore.dataset.vision as vision
import mindspore.dataset.transforms as transforms
from mindspore import dtype as mstype
from mindspore.common.initializer import initializer, TruncatedNormal, XavierUniform
from mindspore.train import Model, LossMonitor

parser = argparse.ArgumentParser(description="VGG CIFAR-10")
parser.add_argument("--data_dir", type=str, default="./cifar-10-batches-bin")
parser.add_argument("--num_samples", type=int, default=None)
parser.add_argument("--epochs", type=int, default=5)
parser.add_argument("--batch_size", type=int, default=32)
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--warmup_epochs", type=int, default=1)
args = parser.parse_args()

cfg = {"vgg_tiny": [16, "M", 32, "M", 32, 32, "M"]}


def make_layers(config, in_channels=3, batch_norm=True):
    layers = []
    for v in config:
        if v == "M":
            layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
        else:
            conv2d = nn.Conv2d(in_channels, v, kernel_size=3, padding=1, pad_mode="pad", has_bias=True)
            if batch_norm:
                layers += [conv2d, nn.BatchNorm2d(v), nn.ReLU()]
            else:
                layers += [conv2d, nn.ReLU()]
            in_channels = v
    return nn.SequentialCell(layers)


class Vgg(nn.Cell):
    def __init__(self, config, num_classes=10, batch_norm=False, dropout=0.5):
        super(Vgg, self).__init__()
        self.features = make_layers(config, batch_norm=batch_norm)
        self.classifier = nn.SequentialCell([
            nn.Flatten(),
            nn.Dense(32 * 4 * 4, 64),
            nn.ReLU(),
            nn.Dropout(p=dropout),
            nn.Dense(64, num_classes),
        ])
        self.custom_init_weight()

    def construct(self, x):
        return self.classifier(self.features(x))

    def custom_init_weight(self):
        counts = {"conv": 0, "dense": 0}
        for _, cell in self.cells_and_names():
            if isinstance(cell, nn.Conv2d):
                cell.weight.set_data(initializer(XavierUniform(), cell.weight.shape, cell.weight.dtype))
                if cell.bias is not None:
                    cell.bias.set_data(initializer("zeros", cell.bias.shape, cell.bias.dtype))
                counts["conv"] += 1
            elif isinstance(cell, nn.Dense):
                cell.weight.set_data(initializer(TruncatedNormal(0.02), cell.weight.shape, cell.weight.dtype))
                cell.bias.set_data(initializer("zeros", cell.bias.shape, cell.bias.dtype))
                counts["dense"] += 1
        self.init_counts = counts


def warmup_cosine_lr(base_lr, steps_per_epoch, epochs, warmup_epochs):
    total, warmup = steps_per_epoch * epochs, steps_per_epoch * warmup_epochs
    lr_each_step = []
    for i in range(total):
        if i < warmup:
            lr = base_lr * (i + 1) / warmup
        else:
            lr = 0.5 * base_lr * (1 + math.cos(math.pi * (i - warmup) / (total - warmup)))
        lr_each_step.append(lr)
    return np.array(lr_each_step, dtype=np.float32)


def create_dataset(data_dir, usage, batch_size, num_samples=None):
    data_set = ds.Cifar10Dataset(data_dir, usage=usage, shuffle=usage == "train", num_samples=num_samples)
    trans = []
    if usage == "train":
        trans += [vision.RandomCrop((32, 32), (4, 4, 4, 4)), vision.RandomHorizontalFlip(prob=0.5)]
    trans += [
        vision.Resize((32, 32)),
        vision.Rescale(1.0 / 255.0, 0.0),
        vision.Normalize([0.4914, 0.4822, 0.4465], [0.2023, 0.1994, 0.2010]),
        vision.HWC2CHW(),
    ]
    data_set = data_set.map(operations=trans, input_columns="image")
    data_set = data_set.map(operations=transforms.TypeCast(mstype.int32), input_columns="label")
    return data_set.batch(batch_size, drop_remainder=True)


if __name__ == "__main__":
    ms.set_seed(3)
    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
    train_ds = create_dataset(args.data_dir, "train", args.batch_size, args.num_samples)
    steps = train_ds.get_dataset_size()

    net = Vgg(cfg["vgg_tiny"], num_classes=10, batch_norm=True, dropout=0.5)
    print(f"features: {len(net.features)} cells, classifier: {len(net.classifier)} cells")
    print("initialized: {conv} conv (XavierUniform), {dense} dense (TruncatedNormal)".format(**net.init_counts))

    lr = warmup_cosine_lr(args.lr, steps, args.epochs, args.warmup_epochs)
    print(f"lr: {len(lr)} values, warm-up {lr[0]:.4f} -> {lr[steps - 1]:.2f}, last {lr[-1]:.4f}")
    opt = nn.Momentum(net.trainable_params(), learning_rate=ms.Tensor(lr), momentum=0.9, weight_decay=5e-4)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(net, loss_fn=loss, optimizer=opt, amp_level="O0", metrics={"acc"})
    model.train(args.epochs, train_ds, callbacks=[LossMonitor(per_print_times=steps)], dataset_sink_mode=False)

    eval_ds = create_dataset(args.data_dir, "test", args.batch_size, args.num_samples)
    print("eval:", model.eval(eval_ds, dataset_sink_mode=False))
    images = next(eval_ds.create_tuple_iterator())[0]
    predicted = model.predict(images).asnumpy().argmax(axis=1)
    print("predictions in range:", bool(((predicted >= 0) & (predicted < 10)).all()))
