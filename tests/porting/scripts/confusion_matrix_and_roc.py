# expect: confusion matrix:
# expect: \[\[\d+\.0? +\d+\.0?\]
# expect: sensitivity: \[0\.\d+\]
# expect: auc: 0\.\d+
"""Binary classifier evaluation: ConfusionMatrix, ConfusionMatrixMetric, ROC and auc on model.predict outputs."""
import numpy as np

import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn, ops, Tensor
from mindspore.train import Model, ConfusionMatrix, ConfusionMatrixMetric, ROC, auc

ms.set_seed(8)
rng = np.random.default_rng(8)
features = rng.normal(size=(200, 5)).astype(np.float32)
labels = (features[:, 0] + 0.5 * features[:, 1] + rng.normal(0, 0.5, 200) > 0).astype(np.int32)
train_ds = ds.NumpySlicesDataset({"x": features[:150], "y": labels[:150]}, shuffle=True).batch(25)

net = nn.Dense(5, 2)
model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
              nn.Adam(net.trainable_params(), 0.05))
model.train(2, train_ds)

logits = model.predict(Tensor(features[150:]))
probs = ops.softmax(logits, axis=1).asnumpy()
y_true = labels[150:]

metric = ConfusionMatrix(num_classes=2, normalize="no_norm", threshold=0.5)
metric.clear()
metric.update(logits, Tensor(y_true))
print("confusion matrix:")
print(metric.eval())

one_hot_pred = np.eye(2)[probs.argmax(axis=1)][:, :, None]
one_hot_true = np.eye(2)[y_true][:, :, None]
sensitivity = ConfusionMatrixMetric(skip_channel=True, metric_name="sensitivity", calculation_method=False)
sensitivity.update(Tensor(one_hot_pred), Tensor(one_hot_true))
print("sensitivity:", np.round(sensitivity.eval(), 3))

roc = ROC(pos_label=1)
roc.clear()
roc.update(Tensor(probs[:, 1]), Tensor(y_true))
fpr, tpr, thresholds = roc.eval()
print("auc:", round(float(auc(fpr, tpr)), 3))
