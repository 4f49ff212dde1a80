# expect: ^cur epoch 1, cur_step 10, top1 accuracy 0\.\d+, eval batches 4$
# expect: ^cur epoch 2, cur_step 20, top1 accuracy [01]\.\d+, eval batches 4$
# expect: ^train steps seen by the training callback: 20$
"""Evaluate every N training steps from `on_train_step_end`, with a callback of the evaluation's own."""

import mindspore
import mindspore.dataset as ds
import mindspore.nn as nn
import numpy as np
from mindspore import Model
from mindspore.train.callback import Callback


def generator(n, seed):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        label = rng.integers(0, 2)
        yield (
            (rng.standard_normal(8).astype(np.float32) + 2.0 * label).astype(
                np.float32
            ),
            np.int32(label),
        )


class CountBatches(Callback):
    def on_eval_begin(self, run_context):
        self.batches = 0

    def on_eval_step_end(self, run_context):
        self.batches += 1


class CountTrainSteps(Callback):
    def __init__(self):
        super().__init__()
        self.steps = 0
        self.eval_steps = 0

    def on_train_step_end(self, run_context):
        self.steps += 1

    def on_eval_step_end(self, run_context):
        self.eval_steps += 1  # never: the nested evaluation has its own callbacks


class EvaluateCallBack(Callback):
    def __init__(self, model, eval_dataset, per_print_time=10):
        super().__init__()
        self.model = model
        self.per_print_time = per_print_time
        self.eval_dataset = eval_dataset
        self.counter = CountBatches()

    def on_train_step_end(self, run_context):
        cb_params = run_context.original_args()
        if cb_params.cur_step_num % self.per_print_time == 0:
            result = self.model.eval(
                self.eval_dataset, callbacks=[self.counter], dataset_sink_mode=False
            )
            print(
                "cur epoch {}, cur_step {}, top1 accuracy {}, eval batches {}".format(
                    cb_params.cur_epoch_num,
                    cb_params.cur_step_num,
                    result["top_1_accuracy"],
                    self.counter.batches,
                )
            )


mindspore.set_seed(3)
train_ds = ds.GeneratorDataset(
    list(generator(80, 0)), ["data", "label"], shuffle=False
).batch(8)
eval_ds = ds.GeneratorDataset(
    list(generator(32, 1)), ["data", "label"], shuffle=False
).batch(8)
net = nn.Dense(8, 2)
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
model = Model(net, loss, opt, metrics={"top_1_accuracy": nn.Top1CategoricalAccuracy()})
steps = CountTrainSteps()
model.train(
    2,
    train_ds,
    callbacks=[EvaluateCallBack(model, eval_ds), steps],
    dataset_sink_mode=False,
)
assert steps.eval_steps == 0
print("train steps seen by the training callback:", steps.steps)
