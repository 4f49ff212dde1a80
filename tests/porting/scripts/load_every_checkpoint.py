# expect: epoch: 2 step: 6, loss is \d
# expect: files: \['mlp-1_3\.ckpt', 'mlp-1_6\.ckpt', 'mlp-2_3\.ckpt', 'mlp-2_6\.ckpt'\]
# expect: mlp-1_3\.ckpt \{'accuracy': \d\.\d+\}
# expect: mlp-2_6\.ckpt \{'accuracy': \d\.\d+\}
# expect: best: mlp-\d_\d\.ckpt
"""Evaluate every checkpoint a training run left in its directory, as evaluation scripts loop over them."""
import os

import numpy as np

import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn
from mindspore.train import Model, CheckpointConfig, ModelCheckpoint, LossMonitor


def mlp():
    """4 features -> 16 hidden units -> 3 classes, with the ReLU inside the first Dense."""
    return nn.SequentialCell([nn.Dense(4, 16, activation="relu"), nn.Dense(16, 3)])


def create_dataset(n, seed, batch_size=16):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, n).astype(np.int32)
    data = (rng.normal(size=(n, 4)) + labels[:, None]).astype(np.float32)
    return ds.NumpySlicesDataset({"data": data, "label": labels}, shuffle=False).batch(batch_size)


ms.set_seed(7)
ckpt_dir = "./checkpoints"
net = mlp()
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
model = Model(net, loss, nn.Momentum(net.trainable_params(), 0.05, 0.9), metrics={"accuracy"})
config_ck = CheckpointConfig(save_checkpoint_steps=3, keep_checkpoint_max=10)
ckpoint_cb = ModelCheckpoint(prefix="mlp", directory=ckpt_dir, config=config_ck)
model.train(2, create_dataset(96, 0), callbacks=[ckpoint_cb, LossMonitor(3)])

print("files:", sorted(os.listdir(ckpt_dir)))
eval_dataset = create_dataset(48, 1)
results = {}
for file_name in sorted(os.listdir(ckpt_dir)):
    param_dict = ms.load_checkpoint(os.path.join(ckpt_dir, file_name))
    eval_net = mlp()
    ms.load_param_into_net(eval_net, param_dict)
    eval_model = Model(eval_net, loss, metrics={"accuracy"})
    acc = eval_model.eval(eval_dataset)
    results[file_name] = acc["accuracy"]
    print(file_name, {k: round(float(v), 3) for k, v in acc.items()})
print("best:", max(results, key=results.get))
