# The CV scripts' conversion step: image files of class folders packed into MindRecord (the JPEG
# bytes and an int32 label, as the zoo's ImageNet converters store them), then read with
# MindDataset, decoded and resized in a map, normalized, batched and used to train a small
# convolutional classifier; a second MindDataset reads the evaluation shard.
# data: imagefolder
# expect: ^wrote 24 images, classes \['blue', 'green', 'red'\]$
# expect: ^columns: \['image', 'label'\], image column \|S\d+ \(1,\)$
# expect: ^train: 24 rows, 6 batches; batch image \(4, 3, 24, 24\) Float32, label \(4,\) Int32$
# expect: ^epoch: 2 step: 6, loss is \d+\.\d+(e-\d+)?$
# expect: ^eval rows per shard: \[12, 12\]$
import os

import mindspore as ms
import mindspore.nn as nn
import mindspore.dataset as ds
import mindspore.dataset.vision as vision
from mindspore.common import dtype as mstype
from mindspore.mindrecord import FileWriter
from mindspore.train import Model, LossMonitor


def images_to_mindrecord(image_dir, mindrecord_file):
    """Pack every class folder's files into one MindRecord file: image bytes and label."""
    classes = sorted(d for d in os.listdir(image_dir) if os.path.isdir(os.path.join(image_dir, d)))
    rows = []
    for label, name in enumerate(classes):
        folder = os.path.join(image_dir, name)
        for file_name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, file_name), "rb") as f:
                rows.append({"image": f.read(), "label": label, "file_name": file_name})
    writer = FileWriter(mindrecord_file, shard_num=1, overwrite=True)
    writer.add_schema({"image": {"type": "bytes"}, "label": {"type": "int32"}, "file_name": {"type": "string"}},
                      "image folder")
    writer.add_index(["label"])
    writer.write_raw_data(rows)
    writer.commit()
    return len(rows), classes


def create_dataset(mindrecord_file, batch_size, do_train, num_shards=None, shard_id=None):
    data_set = ds.MindDataset(mindrecord_file, columns_list=["image", "label"], shuffle=do_train,
                              num_shards=num_shards, shard_id=shard_id)
    trans = [vision.Decode(), vision.Resize((24, 24)),
             vision.Normalize(mean=[127.5, 127.5, 127.5], std=[127.5, 127.5, 127.5]), vision.HWC2CHW()]
    data_set = data_set.map(operations=trans, input_columns="image")
    data_set = data_set.map(operations=ds.transforms.TypeCast(mstype.int32), input_columns="label")
    return data_set.batch(batch_size, drop_remainder=True)


if __name__ == "__main__":
    ms.set_seed(3)
    count, classes = images_to_mindrecord("imagefolder", "images.mindrecord")
    print(f"wrote {count} images, classes {classes}")
    raw = ds.MindDataset("images.mindrecord", columns_list=["image", "label"], shuffle=False)
    image, _ = next(raw.create_tuple_iterator(output_numpy=True))
    print(f"columns: {raw.get_col_names()}, image column {image.dtype.str} {image.shape}")

    train = create_dataset("images.mindrecord", batch_size=4, do_train=True)
    image, label = next(train.create_tuple_iterator())
    print(f"train: {raw.get_dataset_size()} rows, {train.get_dataset_size()} batches; "
          f"batch image {image.shape} {image.dtype}, label {label.shape} {label.dtype}")
    net = nn.SequentialCell(nn.Conv2d(3, 4, 3, stride=2), nn.ReLU(), nn.Flatten(), nn.Dense(4 * 12 * 12, 3))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(net, loss, nn.Momentum(net.trainable_params(), 0.01, 0.9))
    model.train(2, train, callbacks=[LossMonitor(6)])
    shards = [ds.MindDataset("images.mindrecord", num_shards=2, shard_id=k).get_dataset_size() for k in range(2)]
    print("eval rows per shard:", shards)
