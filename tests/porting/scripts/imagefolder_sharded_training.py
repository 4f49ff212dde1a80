# ImageNet-style training data read with ImageFolderDataset, split into shards the way
# data-parallel scripts do (num_shards / shard_id from RANK_SIZE / RANK_ID), with the
# model zoo's ImageNet chain: RandomCropDecodeResize and flips for training, Decode,
# Resize and CenterCrop for evaluation, then Normalize and HWC2CHW.
# data: imagefolder
# expect: ^rank 0 of 2: 12 images$
# expect: ^rank 1 of 2: 12 images$
# expect: ^shards overlap: False$
# expect: ^epoch: 1 step: 3, loss is \d+\.\d+(e-\d+)?$
# expect: ^epoch: 2 step: 3, loss is \d+\.\d+(e-\d+)?$
import os

import mindspore as ms
import mindspore.nn as nn
import mindspore.dataset as ds
from mindspore.train import Model, LossMonitor


def _get_rank_info():
    """Get rank size and rank id from the environment, as the model zoo does."""
    rank_size = int(os.environ.get("RANK_SIZE", 2))
    rank_id = int(os.environ.get("RANK_ID", 0))
    return rank_size, rank_id


def create_dataset(dataset_path, do_train, batch_size=4, image_size=24, device_num=1, rank_id=0):
    if device_num == 1:
        data_set = ds.ImageFolderDataset(dataset_path, num_parallel_workers=2, shuffle=True)
    else:
        data_set = ds.ImageFolderDataset(dataset_path, num_parallel_workers=2, shuffle=True,
                                         num_shards=device_num, shard_id=rank_id)
    mean = [0.485 * 255, 0.456 * 255, 0.406 * 255]
    std = [0.229 * 255, 0.224 * 255, 0.225 * 255]
    if do_train:
        trans = [
            ds.vision.RandomCropDecodeResize(image_size, scale=(0.08, 1.0), ratio=(0.75, 1.333)),
            ds.vision.RandomHorizontalFlip(prob=0.5)
        ]
    else:
        trans = [
            ds.vision.Decode(),
            ds.vision.Resize(image_size + 4),
            ds.vision.CenterCrop(image_size)
        ]
    trans += [ds.vision.Normalize(mean=mean, std=std), ds.vision.HWC2CHW()]
    data_set = data_set.map(operations=trans, input_columns="image", num_parallel_workers=2)
    data_set = data_set.map(operations=ds.transforms.TypeCast(ms.int32), input_columns="label")
    return data_set.batch(batch_size, drop_remainder=True)


def file_signature(dataset):
    return {(row["image"].tobytes(), int(row["label"]))
            for row in dataset.create_dict_iterator(num_epochs=1, output_numpy=True)}


if __name__ == "__main__":
    ms.set_seed(0)
    device_num, rank_id = _get_rank_info()
    seen = []
    for rank in range(device_num):
        shard = ds.ImageFolderDataset("./imagefolder", num_shards=device_num, shard_id=rank, shuffle=False)
        print(f"rank {rank} of {device_num}: {shard.get_dataset_size()} images")
        seen.append(file_signature(shard))
    print("shards overlap:", bool(seen[0] & seen[1]))

    train_ds = create_dataset("./imagefolder", True, device_num=device_num, rank_id=rank_id)
    net = nn.SequentialCell([nn.Conv2d(3, 8, 3, stride=2), nn.ReLU(), nn.Flatten(),
                             nn.Dense(8 * 12 * 12, 3)])
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    model = Model(net, loss, opt, metrics={"acc"})
    model.train(2, train_ds, callbacks=[LossMonitor()])
    eval_ds = create_dataset("./imagefolder", False, device_num=device_num, rank_id=rank_id)
    print("eval:", model.eval(eval_ds))
