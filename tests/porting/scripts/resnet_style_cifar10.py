# A ResNet-style CIFAR-10 run as the model zoo writes it: Cifar10Dataset with RandomCrop
# padding and horizontal flips for training, Normalize with CIFAR's statistics, a small
# residual network with BatchNorm, then Model.eval on the test batch.
# data: cifar10
# expect: ^train steps per epoch: 6$
# expect: ^epoch: 1 step: 6, loss is \d+\.\d+(e-\d+)?$
# expect: ^epoch: 2 step: 6, loss is \d+\.\d+(e-\d+)?$
# expect: ^result: \{'acc': (?:np\.float64\()?\d\.\d+\)?\}$
import mindspore as ms
import mindspore.nn as nn
import mindspore.dataset as ds
from mindspore.train import Model, LossMonitor, TimeMonitor


def create_dataset(dataset_path, do_train, batch_size=32, image_size=16, device_num=1, rank_id=0):
    usage = "train" if do_train else "test"
    ds.config.set_prefetch_size(64)
    if device_num == 1:
        data_set = ds.Cifar10Dataset(dataset_path, usage=usage, num_parallel_workers=8, shuffle=True)
    else:
        data_set = ds.Cifar10Dataset(dataset_path, usage=usage, num_parallel_workers=8, shuffle=True,
                                     num_shards=device_num, shard_id=rank_id)

    trans = []
    if do_train:
        trans += [
            ds.vision.RandomCrop((32, 32), (4, 4, 4, 4)),
            ds.vision.RandomHorizontalFlip(prob=0.5)
        ]
    trans += [
        ds.vision.Resize((image_size, image_size)),
        ds.vision.Rescale(1.0 / 255.0, 0.0),
        ds.vision.Normalize([0.4914, 0.4822, 0.4465], [0.2023, 0.1994, 0.2010]),
        ds.vision.HWC2CHW()
    ]
    type_cast_op = ds.transforms.TypeCast(ms.int32)
    data_set = data_set.map(operations=type_cast_op, input_columns="label", num_parallel_workers=8)
    data_set = data_set.map(operations=trans, input_columns="image", num_parallel_workers=8)
    data_set = data_set.batch(batch_size, drop_remainder=True)
    return data_set


class ResidualBlock(nn.Cell):
    def __init__(self, channels):
        super(ResidualBlock, self).__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, pad_mode="same")
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, pad_mode="same")
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()

    def construct(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class TinyResNet(nn.Cell):
    def __init__(self, num_classes=10):
        super(TinyResNet, self).__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2, pad_mode="same")
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.block = ResidualBlock(8)
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(8 * 4 * 4, num_classes)

    def construct(self, x):
        x = self.relu(self.bn(self.conv(x)))
        x = self.pool(self.block(x))
        return self.fc(self.flatten(x))


if __name__ == "__main__":
    ms.set_seed(1)
    dataset = create_dataset("./cifar-10-batches-bin", do_train=True)
    step_size = dataset.get_dataset_size()
    print("train steps per epoch:", step_size)
    net = TinyResNet()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    lr = nn.cosine_decay_lr(0.0, 0.05, step_size * 2, step_size, 2)
    opt = nn.Momentum(net.trainable_params(), lr, 0.9, weight_decay=1e-4)
    model = Model(net, loss_fn=loss, optimizer=opt, metrics={"acc"})
    model.train(2, dataset, callbacks=[TimeMonitor(data_size=step_size), LossMonitor()],
                dataset_sink_mode=False)
    eval_dataset = create_dataset("./cifar-10-batches-bin", do_train=False, batch_size=8)
    res = model.eval(eval_dataset)
    print("result:", res)
