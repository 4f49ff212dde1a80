# An older (MindSpore 1.x) CIFAR-10 script: the Python operations chained with
# py_transforms.Compose, ToPIL first, ToTensor then Normalize on CHW images, a
# one-hot label column, and nn.SoftmaxCrossEntropyWithLogits on dense labels.
# data: cifar10
# expect: ^columns: \['image', 'label'\]$
# expect: ^image: \(16, 3, 32, 32\) Float32, label: \(16, 10\) Float32$
# expect: ^epoch: 1 step: 12, loss is \d+\.\d+(e-\d+)?$
# expect: ^eval: \{'accuracy': (?:np\.float64\()?\d\.\d+\)?\}$
import mindspore
import mindspore.dataset as ds
import mindspore.dataset.transforms.c_transforms as C
import mindspore.dataset.transforms.py_transforms as P
import mindspore.dataset.vision.py_transforms as py_vision
from mindspore import nn
from mindspore.train.callback import LossMonitor
from mindspore.train import Model

mean = [0.4914, 0.4822, 0.4465]
std = [0.2470, 0.2435, 0.2616]


def create_dataset(data_home, usage, batch_size=16):
    data = ds.Cifar10Dataset(data_home, usage=usage, shuffle=(usage == "train"))
    if usage == "train":
        ops = [py_vision.ToPIL(), py_vision.RandomCrop(32, padding=4),
               py_vision.RandomHorizontalFlip(), py_vision.ToTensor(), py_vision.Normalize(mean, std)]
    else:
        ops = [py_vision.ToPIL(), py_vision.ToTensor(), py_vision.Normalize(mean, std)]
    data = data.map(operations=P.Compose(ops), input_columns="image")
    data = data.map(operations=[C.TypeCast(mindspore.int32), C.OneHot(10), C.TypeCast(mindspore.float32)],
                    input_columns="label")
    return data.batch(batch_size, drop_remainder=True)


class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2, pad_mode="same", has_bias=True)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(8 * 8 * 8, 10)

    def construct(self, x):
        return self.fc(self.flatten(self.pool(self.relu(self.conv(x)))))


if __name__ == "__main__":
    mindspore.set_seed(2)
    train_set = create_dataset("./cifar-10-batches-bin", "train")
    print("columns:", train_set.get_col_names())
    for image, label in train_set.create_tuple_iterator():
        print(f"image: {image.shape} {image.dtype}, label: {label.shape} {label.dtype}")
        break
    net = Net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=False, reduction="mean")
    opt = nn.Adam(net.trainable_params(), learning_rate=0.005)
    model = Model(net, loss, opt, metrics={"accuracy"})
    model.train(2, train_set, callbacks=[LossMonitor(12)])
    print("eval:", model.eval(create_dataset("./cifar-10-batches-bin", "test")))
