# The data-loading tutorial's walk through MnistDataset on the official download:
# what a row holds, usage and num_samples, shuffle/batch/map, dict iteration.
# data: mnist
# expect: ^<class '[\w.]+\.MnistDataset'>$
# expect: ^\['image', 'label'\]$
# expect: ^Shape of image \[N, C, H, W\]: \(28, 28, 1\) UInt8$
# expect: ^Shape of label: \(\) UInt32$
# expect: ^train: 320 rows, test: 64 rows, first 10: 10 rows$
# expect: ^Shape of image \[N, C, H, W\]: \(32, 1, 28, 28\) Float32$
# expect: ^Shape of label: \(32,\) Int32$
# expect: ^batches: 10$
# expect: ^labels seen: \[0, 1, 2, 3, 4, 5, 6, 7, 8, 9\]$
import numpy as np

import mindspore
from mindspore.dataset import MnistDataset, transforms, vision

train_dataset = MnistDataset("MNIST_Data/train", shuffle=False)
print(type(train_dataset))
print(train_dataset.get_col_names())

for image, label in train_dataset.create_tuple_iterator():
    print(f"Shape of image [N, C, H, W]: {image.shape} {image.dtype}")
    print(f"Shape of label: {label.shape} {label.dtype}")
    break

test_dataset = MnistDataset("MNIST_Data/test", usage="test")
small = MnistDataset("MNIST_Data/train", usage="train", num_samples=10)
print(f"train: {train_dataset.get_dataset_size()} rows, test: {test_dataset.get_dataset_size()} rows, "
      f"first 10: {small.get_dataset_size()} rows")

train_dataset = train_dataset.shuffle(buffer_size=64)
train_dataset = train_dataset.map(vision.Rescale(1.0 / 255.0, 0), input_columns="image")
train_dataset = train_dataset.map(vision.HWC2CHW(), input_columns="image")
train_dataset = train_dataset.map(transforms.TypeCast(mindspore.int32), input_columns="label")
train_dataset = train_dataset.batch(batch_size=32)

for image, label in train_dataset.create_tuple_iterator():
    print(f"Shape of image [N, C, H, W]: {image.shape} {image.dtype}")
    print(f"Shape of label: {label.shape} {label.dtype}")
    break
print("batches:", train_dataset.get_dataset_size())

seen = set()
for data in train_dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
    seen.update(np.unique(data["label"]).tolist())
print("labels seen:", sorted(seen))
