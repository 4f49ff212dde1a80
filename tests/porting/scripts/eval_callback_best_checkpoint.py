# expect: ^epoch: 1, acc: [01]\.\d+, cost: \d+\.\d+$
# expect: ^update best acc: [01]\.\d+$
# expect: ^epoch: 2, acc: [01]\.\d+, cost: \d+\.\d+$
# expect: ^epoch: 3, acc: [01]\.\d+, cost: \d+\.\d+$
# expect: ^End training, the best acc is: [01]\.\d+, the best acc epoch is [123]$
# expect: ^best checkpoint loads: True$
"""Model-zoo style: an EvalCallBack evaluates through an eval function and saves the best checkpoint."""

import os
import stat
import time

import mindspore as ms
import numpy as np
from mindspore import dataset as ds, load_checkpoint, nn, save_checkpoint
from mindspore.train import Model
from mindspore.train.callback import Callback


def make_dataset(n, seed):
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 3, n).astype(np.int32)
    image = rng.standard_normal((n, 1, 6, 6)).astype(np.float32)
    image[np.arange(n), 0, label, label] += 3.0
    return ds.NumpySlicesDataset(
        (image, label), column_names=["image", "label"], shuffle=False
    ).batch(12)


class Net(nn.Cell):
    def __init__(self, num_classes=3):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(36, 24)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(24, num_classes)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(self.flatten(x))))


def apply_eval(eval_param):
    eval_model = eval_param["model"]
    eval_ds = eval_param["dataset"]
    metrics_name = eval_param["metrics_name"]
    res = eval_model.eval(eval_ds, dataset_sink_mode=False)
    return res[metrics_name]


class EvalCallBack(Callback):
    """Evaluate every `interval` epochs from `eval_start_epoch`, keep the best checkpoint."""

    def __init__(
        self,
        eval_function,
        eval_param_dict,
        interval=1,
        eval_start_epoch=1,
        save_best_ckpt=True,
        ckpt_directory="./",
        best_ckpt_name="best.ckpt",
        metrics_name="acc",
    ):
        super().__init__()
        self.eval_param_dict = eval_param_dict
        self.eval_function = eval_function
        self.eval_start_epoch = eval_start_epoch
        if interval < 1:
            raise ValueError("interval should >= 1.")
        self.interval = interval
        self.save_best_ckpt = save_best_ckpt
        self.best_res = 0
        self.best_epoch = 0
        if not os.path.isdir(ckpt_directory):
            os.makedirs(ckpt_directory)
        self.best_ckpt_path = os.path.join(ckpt_directory, best_ckpt_name)
        self.metrics_name = metrics_name

    def remove_ckpoint_file(self, file_name):
        os.chmod(file_name, stat.S_IWRITE)
        os.remove(file_name)

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        cur_epoch = cb_params.cur_epoch_num
        if (
            cur_epoch >= self.eval_start_epoch
            and (cur_epoch - self.eval_start_epoch) % self.interval == 0
        ):
            eval_start = time.time()
            res = self.eval_function(self.eval_param_dict)
            eval_cost = time.time() - eval_start
            print(
                f"epoch: {cur_epoch}, {self.metrics_name}: {res}, cost: {eval_cost:.2f}",
                flush=True,
            )
            if res >= self.best_res:
                self.best_res = res
                self.best_epoch = cur_epoch
                print(f"update best {self.metrics_name}: {res}", flush=True)
                if self.save_best_ckpt:
                    if os.path.exists(self.best_ckpt_path):
                        self.remove_ckpoint_file(self.best_ckpt_path)
                    save_checkpoint(cb_params.train_network, self.best_ckpt_path)

    def on_train_end(self, run_context):
        print(
            f"End training, the best {self.metrics_name} is: {self.best_res}, the best {self.metrics_name} epoch is {self.best_epoch}",
            flush=True,
        )


ms.set_seed(2)
net = Net()
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
model = Model(net, loss_fn=loss, optimizer=opt, metrics={"acc"})
eval_param_dict = {
    "model": model,
    "dataset": make_dataset(48, 7),
    "metrics_name": "acc",
}
eval_cb = EvalCallBack(
    apply_eval,
    eval_param_dict,
    interval=1,
    eval_start_epoch=1,
    ckpt_directory="./ckpt_best",
    best_ckpt_name="best_acc.ckpt",
)
model.train(3, make_dataset(120, 3), callbacks=[eval_cb], dataset_sink_mode=False)
param_dict = load_checkpoint("./ckpt_best/best_acc.ckpt")
print("best checkpoint loads:", any(name.endswith("fc1.weight") for name in param_dict))
