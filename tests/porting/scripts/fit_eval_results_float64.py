# expect: epoch 1 eval: mae=\d+\.\d+ \(float64\)
# expect: epoch 2 eval: mae=\d+\.\d+ \(float64\)
# expect: final: \{'mae': \d+\.\d+, 'loss': \d+\.\d+\}
"""Model.fit with validation: metric values arrive as numpy.float64 in cb_params.eval_results, as in MindSpore."""
import numpy as np

import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn
from mindspore.train import Model, Callback


class EvalResultPrinter(Callback):
    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        value = cb_params.eval_results["mae"]
        print("epoch %d eval: mae=%.4f (%s)" % (cb_params.cur_epoch_num, value, type(value).__name__))


def make_dataset(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3)).astype(np.float32)
    y = (x.sum(axis=1, keepdims=True) * 0.5 + 1.0).astype(np.float32)
    return ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(8)


ms.set_seed(9)
net = nn.Dense(3, 1)
model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), learning_rate=0.05),
              metrics={"mae": nn.MAE(), "loss": nn.Loss()})
model.fit(2, make_dataset(64, 0), make_dataset(32, 1), callbacks=[EvalResultPrinter()])
result = model.eval(make_dataset(32, 1))
print("final:", {k: round(float(v), 4) for k, v in result.items()})
