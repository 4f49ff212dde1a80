# Model.fit on the official MNIST layout: MNIST_Data/train for training and
# MNIST_Data/test for the per-epoch validation, as in the "train and eval" tutorial.
# data: mnist
# expect: ^epoch: 1 step: 10, loss is \d+\.\d+(e-\d+)?$
# expect: ^Eval result: epoch 1, metrics: \{'accuracy': (?:np\.float64\()?\d\.\d+\)?\}$
# expect: ^epoch: 2 step: 10, loss is \d+\.\d+(e-\d+)?$
# expect: ^Eval result: epoch 2, metrics: \{'accuracy': (?:np\.float64\()?\d\.\d+\)?\}$
import mindspore as ms
from mindspore import nn
from mindspore.dataset import MnistDataset, vision, transforms
from mindspore.train import Model, LossMonitor


def datapipe(path, batch_size):
    # One Rescale does both steps: (x / 255 - mean) / std = x * (1 / (255 * std)) - mean / std.
    mean, std = 0.1307, 0.3081
    dataset = MnistDataset(path)
    dataset = dataset.map(operations=[vision.Rescale(1.0 / (255.0 * std), -mean / std), vision.HWC2CHW()],
                          input_columns="image")
    dataset = dataset.map(operations=transforms.TypeCast(ms.int32), input_columns="label")
    return dataset.batch(batch_size, drop_remainder=False)


ms.set_seed(4)
train_dataset = datapipe("MNIST_Data/train", 32)
test_dataset = datapipe("MNIST_Data/test", 32)
network = nn.SequentialCell(nn.Flatten(), nn.Dense(784, 64), nn.ReLU(), nn.Dense(64, 10))
loss_fn = nn.CrossEntropyLoss()
optimizer = nn.SGD(network.trainable_params(), 0.1)
trainer = Model(network, loss_fn=loss_fn, optimizer=optimizer, metrics={"accuracy"})
trainer.fit(2, train_dataset, test_dataset, callbacks=[LossMonitor(10)])
