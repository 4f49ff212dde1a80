# The quick start's network and Model flow on data generated in the script
# (no download): `ms.dataset` and `ms.train` are used without importing them first.
# expect: ^epoch: 1 step: 1, loss is \d+\.\d+
# expect: ^epoch: 2 step: 8, loss is \d+\.\d+
# expect: ^Accuracy: 0\.\d+|^Accuracy: 1\.0
import numpy as np
import mindspore as ms
from mindspore import nn

ms.set_seed(1)


def make_blobs(num, seed):
    """Four Gaussian blobs in 16 dimensions, one per class."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(0, 3, size=(4, 16)).astype(np.float32)
    labels = rng.integers(0, 4, size=num).astype(np.int32)
    images = centers[labels] + rng.normal(0, 1, size=(num, 16)).astype(np.float32)
    return images, labels


def datapipe(num, batch_size, seed):
    images, labels = make_blobs(num, seed)
    dataset = ms.dataset.NumpySlicesDataset((images, labels), column_names=["image", "label"], shuffle=True)
    return dataset.batch(batch_size)


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(16, 64),
            nn.ReLU(),
            nn.Dense(64, 64),
            nn.ReLU(),
            nn.Dense(64, 4)
        )

    def construct(self, x):
        logits = self.dense_relu_sequential(x)
        return logits


model = Network()
loss_fn = nn.CrossEntropyLoss()
optimizer = nn.SGD(model.trainable_params(), 1e-1)

train_dataset = datapipe(256, 32, seed=0)
test_dataset = datapipe(128, 32, seed=0)
trainer = ms.train.Model(model, loss_fn=loss_fn, optimizer=optimizer, metrics={"accuracy"})
trainer.train(2, train_dataset, callbacks=[ms.train.LossMonitor(1)])
acc = trainer.eval(test_dataset)
print("Accuracy: {:.4f}".format(acc["accuracy"]))
