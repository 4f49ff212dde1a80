# A small ResNet on CIFAR-10's binary files, written the way public training scripts do: an
# argparse config, context.set_context, a create_dataset helper (RandomCrop with padding,
# RandomHorizontalFlip, Rescale, Normalize, HWC2CHW, TypeCast), residual blocks with HeNormal
# and TruncatedNormal initializers, a warm-up + cosine learning rate computed per step in numpy,
# Momentum with weight decay, LossMonitor, TimeMonitor(data_size=...), ModelCheckpoint with a
# CheckpointConfig, then load_checkpoint + load_param_into_net into a fresh network and
# Model.eval with Accuracy.
# data: cifar10
# expect: ^steps per epoch: 6, first lr: 0\.0\d+, peak lr: 0\.1, last lr: 0\.0\d+$
# expect: ^batch: image \(32, 3, 32, 32\) float32, label \(32,\) int32$
# expect: ^epoch: 1 step: 6, loss is \d+\.\d+
# expect: ^Train epoch time: \d+\.\d+ ms, per step time: \d+\.\d+ ms$
# expect: ^epoch: 3 step: 6, loss is \d+\.\d+
# expect: ^checkpoints: \['resnet_cifar-2_6\.ckpt', 'resnet_cifar-3_6\.ckpt'\]$
# expect: ^parameters not loaded: \[\]$
# expect: ^============== \{'Accuracy': (?:np\.float64\()?\d\.\d+\)?\} ==============$
import argparse
import math
import os

import numpy as np

import mindspore
import mindspore.nn as nn
import mindspore.ops as ops
import mindspore.dataset as ds
import mindspore.dataset.vision as vision
import mindspore.dataset.transforms as transforms
from mindspore import context, Tensor
from mindspore import dtype as mstype
from mindspore.common import set_seed
from mindspore.common.initializer import HeNormal, TruncatedNormal
from mindspore.train import Model, Accuracy
from mindspore.train.callback import LossMonitor, TimeMonitor, ModelCheckpoint, CheckpointConfig
from mindspore.train.serialization import load_checkpoint, load_param_into_net

parser = argparse.ArgumentParser(description="ResNet CIFAR-10")
parser.add_argument("--data_path", type=str, default="./cifar-10-batches-bin")
parser.add_argument("--device_target", type=str, default="CPU", choices=["Ascend", "GPU", "CPU"])
parser.add_argument("--epoch_size", type=int, default=3)
parser.add_argument("--batch_size", type=int, default=32)
parser.add_argument("--lr_max", type=float, default=0.1)
parser.add_argument("--warmup_epochs", type=int, default=1)
parser.add_argument("--ckpt_path", type=str, default="./ckpt")
args, _ = parser.parse_known_args()

set_seed(1)
context.set_context(mode=context.GRAPH_MODE, device_target=args.device_target, save_graphs=False)


def create_dataset(data_path, do_train=True, batch_size=32, repeat_num=1):
    usage = "train" if do_train else "test"
    data_set = ds.Cifar10Dataset(data_path, usage=usage, shuffle=do_train, num_parallel_workers=2)
    trans = []
    if do_train:
        trans += [vision.RandomCrop(32, padding=4), vision.RandomHorizontalFlip()]
    trans += [
        vision.Rescale(1.0 / 255.0, 0.0),
        vision.Normalize(mean=[0.4914, 0.4822, 0.4465], std=[0.2023, 0.1994, 0.2010]),
        vision.HWC2CHW(),
    ]
    type_cast_op = transforms.TypeCast(mstype.int32)
    data_set = data_set.map(operations=type_cast_op, input_columns="label", num_parallel_workers=2)
    data_set = data_set.map(operations=trans, input_columns="image", num_parallel_workers=2)
    if do_train:
        data_set = data_set.shuffle(buffer_size=100)
    data_set = data_set.batch(batch_size, drop_remainder=do_train)
    data_set = data_set.repeat(repeat_num)
    return data_set


def get_lr(lr_max, warmup_epochs, total_epochs, steps_per_epoch):
    """Linear warm-up, then cosine decay to zero, one value per step."""
    lr_each_step = []
    total_steps = steps_per_epoch * total_epochs
    warmup_steps = steps_per_epoch * warmup_epochs
    for i in range(total_steps):
        if i < warmup_steps:
            lr = lr_max * (i + 1) / warmup_steps
        else:
            progress = (i - warmup_steps) / (total_steps - warmup_steps)
            lr = 0.5 * lr_max * (1 + math.cos(math.pi * progress))
        lr_each_step.append(lr)
    return np.array(lr_each_step).astype(np.float32)


def conv3x3(in_channel, out_channel, stride=1):
    return nn.Conv2d(in_channel, out_channel, kernel_size=3, stride=stride, padding=1,
                     pad_mode="pad", has_bias=False, weight_init=HeNormal(mode="fan_out", nonlinearity="relu"))


class ResidualBlock(nn.Cell):
    def __init__(self, in_channel, out_channel, stride=1):
        super(ResidualBlock, self).__init__()
        self.conv1 = conv3x3(in_channel, out_channel, stride)
        self.bn1 = nn.BatchNorm2d(out_channel, momentum=0.9)
        self.conv2 = conv3x3(out_channel, out_channel)
        self.bn2 = nn.BatchNorm2d(out_channel, momentum=0.9)
        self.relu = nn.ReLU()
        self.down_sample = stride != 1 or in_channel != out_channel
        if self.down_sample:
            self.down_sample_layer = nn.SequentialCell([
                nn.Conv2d(in_channel, out_channel, 1, stride=stride, has_bias=False),
                nn.BatchNorm2d(out_channel, momentum=0.9),
            ])
        self.add = ops.Add()

    def construct(self, x):
        shortcut = self.down_sample_layer(x) if self.down_sample else x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(self.add(out, shortcut))


class ResNetSmall(nn.Cell):
    def __init__(self, num_classes=10):
        super(ResNetSmall, self).__init__()
        self.conv1 = conv3x3(3, 8)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(kernel_size=2, stride=2, pad_mode="same")
        self.layer1 = ResidualBlock(8, 8)
        self.layer2 = ResidualBlock(8, 16, stride=2)
        self.mean = ops.ReduceMean(keep_dims=True)
        self.flatten = nn.Flatten()
        self.end_point = nn.Dense(16, num_classes, weight_init=TruncatedNormal(0.02), has_bias=True)

    def construct(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer2(self.layer1(x))
        x = self.mean(x, (2, 3))
        return self.end_point(self.flatten(x))


if __name__ == "__main__":
    train_ds = create_dataset(args.data_path, do_train=True, batch_size=args.batch_size)
    step_size = train_ds.get_dataset_size()
    lr = get_lr(args.lr_max, args.warmup_epochs, args.epoch_size, step_size)
    print(f"steps per epoch: {step_size}, first lr: {lr[0]:.4f}, peak lr: {lr.max():.1f}, "
          f"last lr: {lr[-1]:.4f}")
    batch = next(train_ds.create_dict_iterator(output_numpy=True, num_epochs=1))
    print(f"batch: image {batch['image'].shape} {batch['image'].dtype}, "
          f"label {batch['label'].shape} {batch['label'].dtype}")

    net = ResNetSmall(num_classes=10)
    decayed = list(filter(lambda x: "beta" not in x.name and "gamma" not in x.name and "bias" not in x.name,
                          net.trainable_params()))
    decayed_names = [x.name for x in decayed]
    others = [x for x in net.trainable_params() if x.name not in decayed_names]
    group_params = [{"params": decayed, "weight_decay": 1e-4},
                    {"params": others, "weight_decay": 0.0},
                    {"order_params": net.trainable_params()}]
    opt = nn.Momentum(group_params, learning_rate=Tensor(lr), momentum=0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(net, loss_fn=loss, optimizer=opt, metrics={"acc"}, amp_level="O0")

    config_ck = CheckpointConfig(save_checkpoint_steps=step_size, keep_checkpoint_max=2)
    ckpt_cb = ModelCheckpoint(prefix="resnet_cifar", directory=args.ckpt_path, config=config_ck)
    cb = [TimeMonitor(data_size=step_size), LossMonitor(step_size), ckpt_cb]
    model.train(args.epoch_size, train_ds, callbacks=cb, dataset_sink_mode=False)
    print("checkpoints:", sorted(f for f in os.listdir(args.ckpt_path) if f.endswith(".ckpt")))

    # Evaluation, as a separate eval.py would do it: a fresh network from the last checkpoint.
    eval_net = ResNetSmall(num_classes=10)
    ckpt_file = os.path.join(args.ckpt_path, f"resnet_cifar-{args.epoch_size}_{step_size}.ckpt")
    param_dict = load_checkpoint(ckpt_file)
    not_loaded = load_param_into_net(eval_net, param_dict)
    print("parameters not loaded:", not_loaded[0] if isinstance(not_loaded, tuple) else not_loaded)
    eval_net.set_train(False)
    eval_ds = create_dataset(args.data_path, do_train=False, batch_size=args.batch_size)
    eval_model = Model(eval_net, loss_fn=loss, metrics={"Accuracy": Accuracy()})
    acc = eval_model.eval(eval_ds, dataset_sink_mode=False)
    print("============== {} ==============".format(acc))
