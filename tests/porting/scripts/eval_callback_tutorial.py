# expect: epoch: 1 step: \d+, loss is \d
# expect: ^\{'Accuracy': (?:np\.float64\()?0\.\d+\)?\}$
# expect: epoch: 2 step: \d+, loss is \d
# expect: ^\{'Accuracy': (?:np\.float64\()?[01]\.\d+\)?\}$
# expect: ^epochs evaluated: \[1, 2\]$
"""Evaluating the model during training: an EvalCallBack validates every epoch and keeps the accuracy curve."""

import mindspore as ms
import mindspore.dataset as ds
import numpy as np
from mindspore import nn
from mindspore.train import Accuracy, Callback, LossMonitor, Model


def create_dataset(num_samples, seed, batch_size=16):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 4, num_samples).astype(np.int32)
    centers = np.eye(4, 16, dtype=np.float32) * 4.0
    data = centers[labels] + rng.standard_normal((num_samples, 16)).astype(np.float32)
    dataset = ds.NumpySlicesDataset({"data": data, "label": labels}, shuffle=False)
    return dataset.batch(batch_size, drop_remainder=True)


class EvalCallBack(Callback):
    def __init__(self, model, eval_dataset, eval_per_epoch, epoch_per_eval):
        super().__init__()
        self.model = model
        self.eval_dataset = eval_dataset
        self.eval_per_epoch = eval_per_epoch
        self.epoch_per_eval = epoch_per_eval

    def on_train_epoch_end(self, run_context):
        cb_param = run_context.original_args()
        cur_epoch = cb_param.cur_epoch_num
        if cur_epoch % self.eval_per_epoch == 0:
            acc = self.model.eval(self.eval_dataset, dataset_sink_mode=False)
            self.epoch_per_eval["epoch"].append(cur_epoch)
            self.epoch_per_eval["acc"].append(acc["Accuracy"])
            print(acc)


ms.set_seed(1)
network = nn.SequentialCell([nn.Dense(16, 32), nn.ReLU(), nn.Dense(32, 4)])
net_loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
net_opt = nn.Momentum(network.trainable_params(), learning_rate=0.05, momentum=0.9)
model = Model(network, net_loss, net_opt, metrics={"Accuracy": Accuracy()})

ds_train = create_dataset(256, seed=0)
ds_eval = create_dataset(64, seed=1)
epoch_per_eval = {"epoch": [], "acc": []}
eval_cb = EvalCallBack(model, ds_eval, 1, epoch_per_eval)
model.train(2, ds_train, callbacks=[LossMonitor(8), eval_cb], dataset_sink_mode=False)
print("epochs evaluated:", epoch_per_eval["epoch"])
