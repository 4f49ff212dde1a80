# A data-parallel MNIST run as distributed training scripts are written: launched on 2 ranks
# (`mpiexec -n 2 python train.py`), init() and the rank and group size from
# mindspore.communication.management, DEVICE_ID read from the environment,
# set_auto_parallel_context(DATA_PARALLEL, gradients_mean=True, device_num=...), each rank
# reading its shard of MnistDataset (num_shards/shard_id), a per-rank checkpoint directory,
# then ops.AllGather to show that the ranks hold the same weights, and Model.eval on rank 0.
# ranks: 2
# data: mnist
# expect: ^rank 0/2: 10 steps per epoch, global batch 32$
# expect: ^epoch: 2 step: 10, loss is \d+\.\d+
# expect: ^rank 0 checkpoints: \['lenet_rank0-2_10\.ckpt'\]$
# expect: ^weights equal on every rank: True$
# expect: ^rank 0 eval: \{'accuracy': (?:np\.float64\()?\d\.\d+\)?\}$
# expect: ^loss fell on rank 0: True$
import os

import numpy as np

import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops
import mindspore.dataset as ds
import mindspore.dataset.vision as vision
import mindspore.dataset.transforms as transforms
from mindspore import context
from mindspore.context import ParallelMode
from mindspore.common.initializer import Normal
from mindspore.communication.management import init, get_rank, get_group_size
from mindspore.train import Model, Callback, LossMonitor, ModelCheckpoint, CheckpointConfig


def create_dataset(data_path, batch_size=16, rank_id=0, rank_size=1, training=True):
    if training:
        data_set = ds.MnistDataset(data_path, num_shards=rank_size, shard_id=rank_id, shuffle=True)
    else:
        data_set = ds.MnistDataset(data_path, shuffle=False)
    image_ops = [vision.Rescale(1.0 / 255.0, 0.0), vision.Normalize(mean=(0.1307,), std=(0.3081,)),
                 vision.HWC2CHW()]
    data_set = data_set.map(operations=image_ops, input_columns="image")
    data_set = data_set.map(operations=transforms.TypeCast(ms.int32), input_columns="label")
    return data_set.batch(batch_size, drop_remainder=training)


class SmallLeNet(nn.Cell):
    def __init__(self, num_class=10):
        super(SmallLeNet, self).__init__()
        self.conv1 = nn.Conv2d(1, 4, 5, pad_mode="valid", weight_init=Normal(0.02))
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=4, stride=4)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(4 * 6 * 6, num_class, weight_init=Normal(0.02))

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        return self.fc(self.flatten(x))


class LossRecorder(Callback):
    def __init__(self):
        super(LossRecorder, self).__init__()
        self.losses = []

    def on_train_step_end(self, run_context):
        self.losses.append(float(run_context.original_args().net_outputs.asnumpy()))


if __name__ == "__main__":
    device_id = int(os.getenv("DEVICE_ID", "0"))
    context.set_context(mode=context.GRAPH_MODE, device_target="CPU")
    init()
    rank_id = get_rank()
    rank_size = get_group_size()
    context.set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, gradients_mean=True,
                                      device_num=rank_size)
    ms.set_seed(1)

    per_rank_batch = 32 // rank_size
    train_ds = create_dataset("./MNIST_Data/train", per_rank_batch, rank_id, rank_size)
    steps = train_ds.get_dataset_size()
    if rank_id == 0:
        print(f"rank {rank_id}/{rank_size}: {steps} steps per epoch, global batch {per_rank_batch * rank_size}")

    net = SmallLeNet()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    model = Model(net, loss_fn=loss, optimizer=opt, metrics={"accuracy"})

    ckpt_dir = os.path.join("./checkpoints", "rank_" + str(rank_id))
    config_ck = CheckpointConfig(save_checkpoint_steps=steps, keep_checkpoint_max=1)
    ckpt_cb = ModelCheckpoint(prefix="lenet_rank" + str(rank_id), directory=ckpt_dir, config=config_ck)
    recorder = LossRecorder()
    callbacks = [recorder, ckpt_cb]
    if rank_id == 0:
        callbacks.append(LossMonitor(steps))
    model.train(2, train_ds, callbacks=callbacks, dataset_sink_mode=False)
    if rank_id == 0:
        print(f"rank {rank_id} checkpoints:", sorted(f for f in os.listdir(ckpt_dir) if f.endswith(".ckpt")))

    # Data parallelism keeps one model: every rank must end with the same weights.
    flat = ops.concat([p.reshape(-1) for p in net.trainable_params()])
    gathered = ops.AllGather()(ops.expand_dims(flat, 0)).asnumpy()
    if rank_id == 0:
        print("weights equal on every rank:", bool(np.allclose(gathered[0], gathered[1:], atol=1e-6)))
        eval_ds = create_dataset("./MNIST_Data/test", training=False)
        print(f"rank {rank_id} eval:", model.eval(eval_ds, dataset_sink_mode=False))
        first, last = np.mean(recorder.losses[:steps]), np.mean(recorder.losses[-steps:])
        print(f"loss fell on rank {rank_id}: {last < first}")
