# expect: epoch: 2 step: \d+, loss is \d
# expect: \{'Accuracy': \d\.\d+, 'Loss': \d+\.\d+, 'Top1': \d\.\d+, 'Top2': \d\.\d+\}
# expect: precision per class: \[\d\.\d+, \d\.\d+, \d\.\d+\]
# expect: recall average: 0\.\d+
"""Evaluating a classifier with several metrics at once (accuracy, loss, top-k, precision, recall)."""
import numpy as np

import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn
from mindspore.train import Model, LossMonitor, Precision, Recall, TopKCategoricalAccuracy, Top1CategoricalAccuracy


def make_blobs(n, seed):
    rng = np.random.default_rng(seed)
    centers = np.array([[2.0, 0.0], [-2.0, 0.0], [0.0, 2.5]], np.float32)
    labels = rng.integers(0, 3, n)
    points = centers[labels] + rng.normal(0, 0.8, (n, 2)).astype(np.float32)
    return points.astype(np.float32), labels.astype(np.int32)


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense1 = nn.Dense(2, 16)
        self.relu = nn.ReLU()
        self.dense2 = nn.Dense(16, 3)

    def construct(self, x):
        return self.dense2(self.relu(self.dense1(x)))


ms.set_seed(2)
x_train, y_train = make_blobs(480, 0)
x_test, y_test = make_blobs(120, 1)
train_ds = ds.NumpySlicesDataset({"data": x_train, "label": y_train}, shuffle=True).batch(32)
test_ds = ds.NumpySlicesDataset({"data": x_test, "label": y_test}, shuffle=False).batch(32)

net = MLP()
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
optim = nn.Adam(net.trainable_params(), learning_rate=0.01)
metrics = {
    "Accuracy": nn.Accuracy(),
    "Loss": nn.Loss(),
    "Top1": Top1CategoricalAccuracy(),
    "Top2": TopKCategoricalAccuracy(2),
}
model = Model(net, loss_fn=loss, optimizer=optim, metrics=metrics)
model.train(2, train_ds, callbacks=[LossMonitor(15)])
acc = model.eval(test_ds)
print({k: round(float(v), 3) for k, v in sorted(acc.items())})

precision, recall = Precision('classification'), Recall('classification')
for batch in test_ds.create_dict_iterator():
    logits = model.predict(batch["data"])
    precision.update(logits, batch["label"])
    recall.update(logits, batch["label"])
print("precision per class:", [round(float(p), 3) for p in precision.eval()])
print("recall average:", round(float(recall.eval(average=True)), 3))
