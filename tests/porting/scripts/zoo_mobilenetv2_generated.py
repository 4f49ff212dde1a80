# MobileNetV2 with the network written in the script, model-zoo style: a backbone of
# ConvBNReLU and InvertedResidual cells (depthwise convolutions through `group`, ReLU6), a head
# with global average pooling through ops.mean, weights set in a loop over cells_and_names()
# with set_data(initializer(...)), trained on images made by a random-access GeneratorDataset
# source, a piecewise-constant learning rate, label smoothing, checkpoints, then evaluation.
# timeout: 180
# expect: ^backbone parameters: 156, head parameters: 2$
# expect: ^epoch: 1 step: 8, loss is \d+\.\d+(e-\d+)?$
# expect: ^epoch: 3 step: 8, loss is \d+\.\d+(e-\d+)?$
# expect: ^loss fell: True$
# expect: ^checkpoint: mobilenetv2-3_8\.ckpt, 423 entries, network's all present: True$
# expect: ^eval: \{'acc': \d\.\d+, 'loss': \d+\.\d+\}$
import os

import numpy as np
import mindspore
import mindspore.nn as nn
import mindspore.ops as ops
import mindspore.dataset as ds
from mindspore import Tensor
from mindspore.common.initializer import initializer, HeNormal, Normal, One, Zero
from mindspore.train import Model, LambdaCallback, LossMonitor, ModelCheckpoint, CheckpointConfig
from mindspore.train.serialization import load_checkpoint


def _make_divisible(value, divisor=8, min_value=None):
    min_value = min_value or divisor
    new_value = max(min_value, int(value + divisor / 2) // divisor * divisor)
    if new_value < 0.9 * value:
        new_value += divisor
    return new_value


class ConvBNReLU(nn.Cell):
    """Convolution, batch norm and ReLU6; `groups=in_planes` makes the convolution depthwise."""

    def __init__(self, in_planes, out_planes, kernel_size=3, stride=1, groups=1):
        super(ConvBNReLU, self).__init__()
        padding = (kernel_size - 1) // 2
        conv = nn.Conv2d(in_planes, out_planes, kernel_size, stride, pad_mode="pad", padding=padding,
                         group=groups, has_bias=False)
        self.features = nn.SequentialCell([conv, nn.BatchNorm2d(out_planes), nn.ReLU6()])

    def construct(self, x):
        return self.features(x)


class InvertedResidual(nn.Cell):
    def __init__(self, inp, oup, stride, expand_ratio):
        super(InvertedResidual, self).__init__()
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(ConvBNReLU(inp, hidden_dim, kernel_size=1))
        layers.extend([
            ConvBNReLU(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim),
            nn.Conv2d(hidden_dim, oup, kernel_size=1, stride=1, has_bias=False),
            nn.BatchNorm2d(oup),
        ])
        self.conv = nn.SequentialCell(layers)

    def construct(self, x):
        identity = x
        x = self.conv(x)
        if self.use_res_connect:
            return ops.add(identity, x)
        return x


class MobileNetV2Backbone(nn.Cell):
    def __init__(self, width_mult=1.0, round_nearest=8, input_channel=32, last_channel=1280):
        super(MobileNetV2Backbone, self).__init__()
        # t (expansion), c (channels), n (repeats), s (stride of the first repeat)
        self.cfgs = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2],
                     [6, 96, 3, 1], [6, 160, 3, 2], [6, 320, 1, 1]]
        input_channel = _make_divisible(input_channel * width_mult, round_nearest)
        self.out_channels = _make_divisible(last_channel * max(1.0, width_mult), round_nearest)
        features = [ConvBNReLU(3, input_channel, stride=2)]
        for t, c, n, s in self.cfgs:
            output_channel = _make_divisible(c * width_mult, round_nearest)
            for i in range(n):
                features.append(InvertedResidual(input_channel, output_channel, s if i == 0 else 1, t))
                input_channel = output_channel
        features.append(ConvBNReLU(input_channel, self.out_channels, kernel_size=1))
        self.features = nn.SequentialCell(features)
        self._initialize_weights()

    def construct(self, x):
        return self.features(x)

    def _initialize_weights(self):
        for _, m in self.cells_and_names():
            if isinstance(m, nn.Conv2d):
                m.weight.set_data(initializer(HeNormal(mode="fan_out", nonlinearity="relu"),
                                              m.weight.shape, m.weight.dtype))
                if m.bias is not None:
                    m.bias.set_data(initializer(Zero(), m.bias.shape, m.bias.dtype))
            elif isinstance(m, nn.BatchNorm2d):
                m.gamma.set_data(initializer(One(), m.gamma.shape, m.gamma.dtype))
                m.beta.set_data(initializer("zeros", m.beta.shape, m.beta.dtype))


class MobileNetV2Head(nn.Cell):
    def __init__(self, input_channel=1280, num_classes=1000, has_dropout=False):
        super(MobileNetV2Head, self).__init__()
        head = [nn.Dropout(p=0.2), nn.Dense(input_channel, num_classes, has_bias=True)] if has_dropout \
            else [nn.Dense(input_channel, num_classes, has_bias=True)]
        self.head = nn.SequentialCell(head)
        self._initialize_weights()

    def construct(self, x):
        x = ops.mean(x, (2, 3))  # global average pooling
        return self.head(x)

    def _initialize_weights(self):
        for _, m in self.cells_and_names():
            if isinstance(m, nn.Dense):
                m.weight.set_data(Tensor(np.random.normal(0, 0.01, m.weight.data.shape).astype("float32")))
                m.bias.set_data(initializer("zeros", m.bias.shape, mindspore.float32))


class MobileNetV2Combine(nn.Cell):
    def __init__(self, backbone, head):
        super(MobileNetV2Combine, self).__init__(auto_prefix=False)
        self.backbone = backbone
        self.head = head

    def construct(self, x):
        return self.head(self.backbone(x))


class QuadrantImages:
    """Random-access source: the label says which quadrant of a 32x32 image holds a bright square."""

    def __init__(self, num, seed):
        rng = np.random.default_rng(seed)
        self.labels = rng.integers(0, 4, size=num).astype(np.int32)
        self.images = rng.normal(0.0, 0.3, size=(num, 3, 32, 32)).astype(np.float32)
        for image, label in zip(self.images, self.labels):
            top, left = 16 * (label // 2), 16 * (label % 2)
            image[:, top + 4:top + 12, left + 4:left + 12] += 2.0

    def __getitem__(self, index):
        return self.images[index], self.labels[index]

    def __len__(self):
        return len(self.labels)


def create_dataset(num, seed, batch_size, shuffle):
    dataset = ds.GeneratorDataset(QuadrantImages(num, seed), column_names=["image", "label"],
                                  shuffle=shuffle, num_parallel_workers=1)
    return dataset.batch(batch_size, drop_remainder=True)


if __name__ == "__main__":
    mindspore.set_seed(3)
    np.random.seed(3)
    mindspore.set_context(mode=mindspore.PYNATIVE_MODE, device_target="CPU")
    epochs, batch_size = 3, 16
    train_ds = create_dataset(128, seed=0, batch_size=batch_size, shuffle=True)
    step_size = train_ds.get_dataset_size()

    backbone = MobileNetV2Backbone(width_mult=0.5)
    head = MobileNetV2Head(input_channel=backbone.out_channels, num_classes=4)
    net = MobileNetV2Combine(backbone, head)
    print(f"backbone parameters: {len(backbone.trainable_params())}, head parameters: {len(head.trainable_params())}")

    lr = nn.piecewise_constant_lr([step_size * 2, step_size * epochs], [0.01, 0.001])
    loss = nn.CrossEntropyLoss(label_smoothing=0.1)
    opt = nn.Momentum(net.trainable_params(), learning_rate=lr, momentum=0.9, weight_decay=4e-5)
    model = Model(net, loss_fn=loss, optimizer=opt, metrics={"acc", "loss"})

    ckpt_dir = "./ckpt_mobilenetv2"
    config_ck = CheckpointConfig(save_checkpoint_steps=step_size, keep_checkpoint_max=1)
    step_losses = []
    record_loss = LambdaCallback(
        on_train_step_end=lambda run_context: step_losses.append(run_context.original_args().net_outputs.asnumpy()))
    callbacks = [LossMonitor(), record_loss,
                 ModelCheckpoint(prefix="mobilenetv2", directory=ckpt_dir, config=config_ck)]
    model.train(epochs, train_ds, callbacks=callbacks, dataset_sink_mode=False)
    epoch_means = np.array(step_losses).reshape(epochs, step_size).mean(axis=1)
    print("epoch mean losses:", [round(float(x), 3) for x in epoch_means])
    print("loss fell:", epoch_means[-1] < epoch_means[0])

    ckpt_name = os.listdir(ckpt_dir)[0]
    param_dict = load_checkpoint(os.path.join(ckpt_dir, ckpt_name))
    present = all(p.name in param_dict for p in net.get_parameters())
    print(f"checkpoint: {ckpt_name}, {len(param_dict)} entries, network's all present: {present}")

    eval_ds = create_dataset(64, seed=1, batch_size=batch_size, shuffle=False)
    result = model.eval(eval_ds, dataset_sink_mode=False)
    print("eval:", {key: round(float(value), 4) for key, value in sorted(result.items())})
