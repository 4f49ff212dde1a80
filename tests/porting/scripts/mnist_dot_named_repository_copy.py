# Many repositories ship MNIST in one folder with dot-named files
# (train-images.idx3-ubyte, t10k-labels.idx1-ubyte). This script lays its data out that
# way from the official download, then reads it with usage "train", "test" and "all".
# data: mnist
# expect: ^train 320, test 64, all 384$
# expect: ^all starts with the test rows: True$
# expect: ^epoch: 1 step: 10, loss is \d+\.\d+(e-\d+)?$
# expect: ^test accuracy > 0\.5: True$
import os
import shutil

import numpy as np
import mindspore as ms
import mindspore.dataset as ds
import mindspore.dataset.vision as vision
import mindspore.dataset.transforms as transforms
from mindspore import nn
from mindspore.train import Model, LossMonitor

os.makedirs("./data/mnist", exist_ok=True)
for split, prefix in (("train", "train"), ("test", "t10k")):
    for kind, ext in (("images", "idx3-ubyte"), ("labels", "idx1-ubyte")):
        shutil.copy(os.path.join("MNIST_Data", split, f"{prefix}-{kind}-{ext}"),
                    os.path.join("./data/mnist", f"{prefix}-{kind}.{ext}"))

train = ds.MnistDataset("./data/mnist", usage="train", shuffle=False)
test = ds.MnistDataset("./data/mnist", usage="test", shuffle=False)
everything = ds.MnistDataset("./data/mnist", shuffle=False)
print(f"train {train.get_dataset_size()}, test {test.get_dataset_size()}, all {everything.get_dataset_size()}")
first_all = next(everything.create_dict_iterator(output_numpy=True))["image"]
first_test = next(test.create_dict_iterator(output_numpy=True))["image"]
print("all starts with the test rows:", bool(np.array_equal(first_all, first_test)))


def prepare(dataset, batch_size=32):
    dataset = dataset.map([vision.Rescale(1.0 / 255.0, 0.0), vision.HWC2CHW()], input_columns="image")
    dataset = dataset.map(transforms.TypeCast(ms.int32), input_columns="label")
    return dataset.batch(batch_size)


ms.set_seed(5)
net = nn.SequentialCell(nn.Flatten(), nn.Dense(784, 10))
model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
              nn.Momentum(net.trainable_params(), 0.1, 0.9), metrics={"acc"})
model.train(2, prepare(ds.MnistDataset("./data/mnist", usage="train")), callbacks=[LossMonitor(10)])
print("test accuracy > 0.5:", model.eval(prepare(test))["acc"] > 0.5)
