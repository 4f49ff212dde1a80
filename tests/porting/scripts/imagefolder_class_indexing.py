# ImageFolderDataset with decode=True, an explicit class_indexing and an extensions
# filter, images of mixed sizes made uniform with Resize + CenterCrop, ToTensor.
# data: imagefolder
# expect: ^class indexing: \{'red': 0, 'green': 1, 'blue': 2\}$
# expect: ^images: 24, first row: image \(\d+, \d+, 3\) uint8, label int32$
# expect: ^batch: \(8, 3, 16, 16\) float32 \(8,\) int32$
# expect: ^epoch: 3 step: 3, loss is \d+\.\d+(e-\d+)?$
# expect: ^accuracy on the training images: \d\.\d+$
import mindspore as ms
from mindspore import nn
import mindspore.dataset as ds
import mindspore.dataset.vision as vision
import mindspore.dataset.transforms as transforms
from mindspore.train import Model, LossMonitor

class_indexing = {"red": 0, "green": 1, "blue": 2}
dataset = ds.ImageFolderDataset("./imagefolder", extensions=[".jpg", ".JPEG"], class_indexing=class_indexing,
                                decode=True, shuffle=False)
print("class indexing:", dataset.get_class_indexing())
row = next(dataset.create_dict_iterator(output_numpy=True))
print(f"images: {dataset.get_dataset_size()}, first row: image {row['image'].shape} {row['image'].dtype}, "
      f"label {row['label'].dtype}")

pipeline = dataset.map([vision.Resize(18), vision.CenterCrop(16), vision.ToTensor()], input_columns="image")
pipeline = pipeline.map(transforms.TypeCast(ms.int32), input_columns="label")
pipeline = pipeline.shuffle(24).batch(8)
image, label = next(pipeline.create_tuple_iterator(output_numpy=True))
print("batch:", image.shape, image.dtype, label.shape, label.dtype)

ms.set_seed(3)
net = nn.SequentialCell([nn.Flatten(), nn.Dense(3 * 16 * 16, 3)])
model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
              nn.Momentum(net.trainable_params(), 0.05, 0.9), metrics={"acc"})
model.train(3, pipeline, callbacks=[LossMonitor(3)])
print("accuracy on the training images:", model.eval(pipeline)["acc"])
