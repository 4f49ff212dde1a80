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
    image_transforms = [
        vision.Rescale(1.0 / 255.0, 0),
        vision.Normalize(mean=(0.1307,), std=(0.3081,)),
        vision.HWC2CHW()
    ]
    label_transform = transforms.TypeCast(ms.int32)

    dataset = MnistDataset(path)
    dataset = dataset.map(image_transforms, 'image')
    dataset = dataset.map(label_transform, 'label')
    dataset = dataset.batch(batch_size)
    return dataset


ms.set_seed(4)
train_dataset = datapipe("MNIST_Data/train", 32)
test_dataset = datapipe("MNIST_Data/test", 32)
network = nn.SequentialCell(nn.Flatten(), nn.Dense(784, 64), nn.ReLU(), nn.Dense(64, 10))
loss_fn = nn.CrossEntropyLoss()
optimizer = nn.SGD(network.trainable_params(), 0.1)
trainer = Model(network, loss_fn=loss_fn, optimizer=optimizer, metrics={"accuracy"})
trainer.fit(2, train_dataset, test_dataset, callbacks=[LossMonitor(10)])
