# ResNet-18 trained on CIFAR-10's binary files the way a model-zoo train.py + eval.py pair does
# it: an argparse config, Cifar10Dataset with padded RandomCrop and flips, a cosine learning-rate
# list, Momentum with weight decay and a loss scale, FixedLossScaleManager, ModelCheckpoint, then
# a fresh network restored with load_checkpoint + load_param_into_net and scored by Model.eval.
# The network is the zoo's ResNet-18 (ImageNet stem: 7x7 convolution of stride 2, max-pool),
# so a 32x32 image reaches the four stages at 8, 4, 2 and 1 pixels.
# lr_max 0.01 (the zoo uses 0.1 at batch 256): at batch 16 on 80 images, 0.05 and 0.02 bounced
# the loss between 0.7 and 8 and whether epoch 3 ended below epoch 1 hung on float32 rounding;
# at 0.01 the epoch means go about 2.4 -> 1.8 with either Winograd transform set.
# data: cifar10_small
# timeout: 180
# expect: ^steps per epoch: 5$
# expect: ^epoch: 1 step: 5, loss is \d+\.\d+(e-\d+)?$
# expect: ^epoch: 3 step: 5, loss is \d+\.\d+(e-\d+)?$
# expect: ^loss fell: True$
# expect: ^checkpoints: \['resnet18-2_5\.ckpt', 'resnet18-3_5\.ckpt'\]$
# expect: ^network parameters: 102, in the checkpoint: 102, all loaded: True$
# expect: ^eval: acc=\d\.\d+ top_5=\d\.\d+$
import argparse
import os

import numpy as np
import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops
import mindspore.dataset as ds
import mindspore.dataset.vision as vision
import mindspore.dataset.transforms as transforms
from mindspore import Tensor, load_checkpoint, load_param_into_net
from mindspore.amp import FixedLossScaleManager
from mindspore.train import Model, Callback, LossMonitor, TimeMonitor, ModelCheckpoint, CheckpointConfig


def parse_args():
    parser = argparse.ArgumentParser(description="ResNet-18 on CIFAR-10")
    parser.add_argument("--data_path", type=str, default="./cifar-10-batches-bin")
    parser.add_argument("--ckpt_dir", type=str, default="./ckpt_resnet18")
    parser.add_argument("--epoch_size", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=16)
    parser.add_argument("--lr_max", type=float, default=0.01)
    parser.add_argument("--lr_end", type=float, default=0.0001)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--weight_decay", type=float, default=1e-4)
    parser.add_argument("--loss_scale", type=float, default=1024.0)
    parser.add_argument("--keep_checkpoint_max", type=int, default=2)
    return parser.parse_args()


def create_dataset(data_path, do_train, batch_size=32):
    data_set = ds.Cifar10Dataset(data_path, usage="train" if do_train else "test",
                                 num_parallel_workers=2, shuffle=do_train)
    trans = []
    if do_train:
        trans += [vision.RandomCrop((32, 32), (4, 4, 4, 4)),
                  vision.RandomHorizontalFlip(prob=0.5)]
    trans += [
        vision.Rescale(1.0 / 255.0, 0.0),
        vision.Normalize([0.4914, 0.4822, 0.4465], [0.2023, 0.1994, 0.2010]),
        vision.HWC2CHW(),
    ]
    data_set = data_set.map(operations=transforms.TypeCast(ms.int32), input_columns="label",
                            num_parallel_workers=2)
    data_set = data_set.map(operations=trans, input_columns="image", num_parallel_workers=2)
    return data_set.batch(batch_size, drop_remainder=True)


def _conv_weight(shape):
    """He-normal weights drawn with numpy, as the zoo's ResNet files do."""
    fan_in = shape[1] * shape[2] * shape[3]
    return Tensor(np.random.normal(0, np.sqrt(2.0 / fan_in), shape).astype(np.float32))


def _conv(in_channel, out_channel, kernel_size, stride):
    weight = _conv_weight((out_channel, in_channel, kernel_size, kernel_size))
    return nn.Conv2d(in_channel, out_channel, kernel_size=kernel_size, stride=stride,
                     padding=kernel_size // 2, pad_mode="pad", weight_init=weight)


def _bn(channel):
    return nn.BatchNorm2d(channel, eps=1e-4, momentum=0.9, gamma_init=1, beta_init=0,
                          moving_mean_init=0, moving_var_init=1)


class ResidualBlockBase(nn.Cell):
    expansion = 1

    def __init__(self, in_channel, out_channel, stride=1):
        super(ResidualBlockBase, self).__init__()
        self.conv1 = _conv(in_channel, out_channel, 3, stride)
        self.bn1d = _bn(out_channel)
        self.conv2 = _conv(out_channel, out_channel, 3, 1)
        self.bn2d = _bn(out_channel)
        self.relu = nn.ReLU()
        self.down_sample = stride != 1 or in_channel != out_channel
        self.down_sample_layer = None
        if self.down_sample:
            self.down_sample_layer = nn.SequentialCell([_conv(in_channel, out_channel, 1, stride),
                                                        _bn(out_channel)])

    def construct(self, x):
        identity = x
        out = self.relu(self.bn1d(self.conv1(x)))
        out = self.bn2d(self.conv2(out))
        if self.down_sample:
            identity = self.down_sample_layer(identity)
        return self.relu(out + identity)


class ResNet(nn.Cell):
    def __init__(self, layer_nums, in_channels, out_channels, strides, num_classes):
        super(ResNet, self).__init__()
        self.conv1 = _conv(3, 64, 7, 2)
        self.bn1 = _bn(64)
        self.relu = ops.ReLU()
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same")
        self.layer1 = self._make_layer(layer_nums[0], in_channels[0], out_channels[0], strides[0])
        self.layer2 = self._make_layer(layer_nums[1], in_channels[1], out_channels[1], strides[1])
        self.layer3 = self._make_layer(layer_nums[2], in_channels[2], out_channels[2], strides[2])
        self.layer4 = self._make_layer(layer_nums[3], in_channels[3], out_channels[3], strides[3])
        self.mean = ops.ReduceMean(keep_dims=True)
        self.flatten = nn.Flatten()
        self.end_point = nn.Dense(out_channels[3], num_classes, has_bias=True)

    @staticmethod
    def _make_layer(layer_num, in_channel, out_channel, stride):
        layers = [ResidualBlockBase(in_channel, out_channel, stride)]
        for _ in range(1, layer_num):
            layers.append(ResidualBlockBase(out_channel, out_channel, 1))
        return nn.SequentialCell(layers)

    def construct(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        c5 = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        out = self.mean(c5, (2, 3))
        return self.end_point(self.flatten(out))


def resnet18(class_num=10):
    return ResNet([2, 2, 2, 2], [64, 64, 128, 256], [64, 128, 256, 512], [1, 2, 2, 2], class_num)


class LossRecorder(Callback):
    """Keeps every step's loss under its epoch number, to tell whether training went anywhere."""

    def __init__(self):
        super(LossRecorder, self).__init__()
        self.by_epoch = {}

    def on_train_step_end(self, run_context):
        cb_params = run_context.original_args()
        self.by_epoch.setdefault(cb_params.cur_epoch_num, []).append(float(cb_params.net_outputs.asnumpy()))

    def epoch_mean(self, epoch):
        return np.mean(self.by_epoch[epoch])


def train(args):
    dataset = create_dataset(args.data_path, do_train=True, batch_size=args.batch_size)
    step_size = dataset.get_dataset_size()
    print("steps per epoch:", step_size)
    net = resnet18(class_num=10)
    total_steps = step_size * args.epoch_size
    lr = nn.cosine_decay_lr(args.lr_end, args.lr_max, total_steps, step_size, args.epoch_size)
    decayed, no_decayed = [], []
    for param in net.trainable_params():
        if "beta" in param.name or "gamma" in param.name or "bias" in param.name:
            no_decayed.append(param)
        else:
            decayed.append(param)
    group_params = [{"params": decayed, "weight_decay": args.weight_decay},
                    {"params": no_decayed},
                    {"order_params": net.trainable_params()}]
    opt = nn.Momentum(group_params, Tensor(np.array(lr, np.float32)), args.momentum,
                      loss_scale=args.loss_scale)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    loss_scale = FixedLossScaleManager(args.loss_scale, drop_overflow_update=False)
    model = Model(net, loss_fn=loss, optimizer=opt, loss_scale_manager=loss_scale,
                  metrics={"acc"}, amp_level="O0")
    config_ck = CheckpointConfig(save_checkpoint_steps=step_size,
                                 keep_checkpoint_max=args.keep_checkpoint_max)
    ckpt_cb = ModelCheckpoint(prefix="resnet18", directory=args.ckpt_dir, config=config_ck)
    recorder = LossRecorder()
    model.train(args.epoch_size, dataset,
                callbacks=[TimeMonitor(data_size=step_size), LossMonitor(), ckpt_cb, recorder],
                dataset_sink_mode=False)
    print("loss fell:", bool(recorder.epoch_mean(args.epoch_size) < recorder.epoch_mean(1)))
    return step_size


def evaluate(args, step_size):
    names = sorted(f for f in os.listdir(args.ckpt_dir) if f.endswith(".ckpt"))
    print("checkpoints:", names)
    net = resnet18(class_num=10)
    param_dict = load_checkpoint(os.path.join(args.ckpt_dir, f"resnet18-{args.epoch_size}_{step_size}.ckpt"))
    param_not_load, _ = load_param_into_net(net, param_dict)
    own = [p.name for p in net.get_parameters()]
    print(f"network parameters: {len(own)}, in the checkpoint: {sum(n in param_dict for n in own)}, "
          f"all loaded: {not param_not_load}")
    net.set_train(False)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(net, loss_fn=loss, metrics={"top_1_accuracy", "top_5_accuracy"})
    dataset = create_dataset(args.data_path, do_train=False, batch_size=8)
    res = model.eval(dataset, dataset_sink_mode=False)
    print(f"eval: acc={res['top_1_accuracy']:.4f} top_5={res['top_5_accuracy']:.4f}")


if __name__ == "__main__":
    ms.set_seed(1)
    np.random.seed(1)
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    args_opt = parse_args()
    steps = train(args_opt)
    evaluate(args_opt, steps)
