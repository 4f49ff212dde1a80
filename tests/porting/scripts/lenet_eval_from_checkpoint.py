# Train, then evaluate from the saved checkpoint as the model zoo's eval.py does:
# a fresh network, load_checkpoint + load_param_into_net, Model.eval on MNIST_Data/test.
# data: mnist
# expect: ^============== Starting Testing ==============$
# expect: ^============== \{'Accuracy': (?:np\.float64\()?(0\.[5-9]\d*|1\.0)\)?\} ==============$
# expect: ^test images: 64$
import os

import mindspore as ms
import mindspore.nn as nn
import mindspore.dataset as ds
import mindspore.dataset.vision as vision
import mindspore.dataset.transforms as transforms
from mindspore import load_checkpoint, load_param_into_net
from mindspore.train import Model, ModelCheckpoint, CheckpointConfig


def create_dataset(data_path, usage, batch_size=32):
    data = ds.MnistDataset(data_path, usage=usage, shuffle=usage == "train")
    data = data.map([vision.Rescale(1.0 / 255.0, 0.0), vision.Normalize((0.1307,), (0.3081,)),
                     vision.HWC2CHW()], input_columns="image")
    data = data.map(transforms.TypeCast(ms.int32), input_columns="label")
    return data.batch(batch_size, drop_remainder=usage == "train")


class Net(nn.Cell):
    def __init__(self, num_class=10):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(28 * 28, 64)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(64, num_class)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(self.flatten(x))))


def train(ckpt_dir):
    ms.set_seed(1)
    network = Net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(network.trainable_params(), learning_rate=0.05, momentum=0.9)
    model = Model(network, loss, opt)
    config = CheckpointConfig(save_checkpoint_steps=10, keep_checkpoint_max=1)
    ckpt_cb = ModelCheckpoint(prefix="mnist_mlp", directory=ckpt_dir, config=config)
    model.train(3, create_dataset("MNIST_Data/train", "train"), callbacks=[ckpt_cb])
    return os.path.join(ckpt_dir, "mnist_mlp-3_10.ckpt")


if __name__ == "__main__":
    ckpt_path = train("./ckpt")
    network = Net()
    net_loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(network, net_loss, metrics={"Accuracy": nn.Accuracy()})

    print("============== Starting Testing ==============")
    param_dict = load_checkpoint(ckpt_path)
    load_param_into_net(network, param_dict)
    ds_eval = create_dataset(os.path.join("MNIST_Data", "test"), "test")
    acc = model.eval(ds_eval, dataset_sink_mode=False)
    print("============== {} ==============".format(acc))
    print("test images:", ds.MnistDataset("MNIST_Data/test").get_dataset_size())
