# MindSpore 2.x's functional style in GRAPH_MODE: a random-access Python class as the
# GeneratorDataset source for training and an iterable one for evaluation, create_tuple_iterator,
# a forward_fn returning (loss, logits), ms.value_and_grad(forward_fn, None, optimizer.parameters,
# has_aux=True), a @ms.jit train_step with MindSpore 2.x's functional loss scaling (amp.DynamicLossScaler's
# scale/unscale/adjust and amp.all_finite) tying the update to the loss with ops.depend, precision,
# recall and accuracy counted by hand, and ms.save_checkpoint of a list of {"name", "data"} dicts
# (weights plus the epoch and the best accuracy), read back with ms.load_checkpoint.
# expect: ^train source: 192 samples, eval source: 64 samples$
# expect: ^columns: \['features', 'label'\], batch: \(32, 8\) Float32, \(32,\) Int32$
# expect: ^epoch 1: loss \d+\.\d{4}, accuracy 0\.\d{4}$
# expect: ^epoch 4: loss \d+\.\d{4}, accuracy 0\.\d{4}$
# expect: ^loss fell: True$
# expect: ^loss scale after 24 steps: 4096\.0$
# expect: ^eval: accuracy (?:0\.\d{4}|1\.0000), precision (?:0\.\d{4}|1\.0000), recall (?:0\.\d{4}|1\.0000), 64 samples$
# expect: ^checkpoint entries: \['body\.0\.weight', 'body\.0\.bias', 'head\.weight', 'head\.bias', 'epoch', 'best_acc'\]$
# expect: ^epoch from checkpoint: 4, weights equal: True$
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor
import mindspore.dataset as ds
from mindspore.amp import DynamicLossScaler, all_finite

ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
ms.set_seed(5)


class RandomAccessSource:
    """Samples by index: the label says whether the first four features outweigh the last four."""

    def __init__(self, num, seed):
        rng = np.random.default_rng(seed)
        self._features = rng.normal(size=(num, 8)).astype(np.float32)
        self._labels = (self._features[:, :4].sum(1) > self._features[:, 4:].sum(1)).astype(np.int32)

    def __getitem__(self, index):
        return self._features[index], self._labels[index]

    def __len__(self):
        return len(self._labels)


class IterableSource:
    """The same kind of samples, produced one after another."""

    def __init__(self, num, seed):
        self._inner = RandomAccessSource(num, seed)
        self._index = 0

    def __iter__(self):
        self._index = 0
        return self

    def __next__(self):
        if self._index >= len(self._inner):
            raise StopIteration
        item = self._inner[self._index]
        self._index += 1
        return item

    def __len__(self):
        return len(self._inner)


class Net(nn.Cell):
    def __init__(self, hidden=16):
        super().__init__()
        self.body = nn.SequentialCell([nn.Dense(8, hidden), nn.ReLU()])
        self.head = nn.Dense(hidden, 2)

    def construct(self, x):
        return self.head(self.body(x))


train_source, eval_source = RandomAccessSource(192, 0), IterableSource(64, 1)
print(f"train source: {len(train_source)} samples, eval source: {len(eval_source)} samples")
train_ds = ds.GeneratorDataset(train_source, column_names=["features", "label"], shuffle=True).batch(32)
eval_ds = ds.GeneratorDataset(eval_source, column_names=["features", "label"], shuffle=False).batch(32)
first = next(train_ds.create_tuple_iterator())
print(f"columns: {train_ds.get_col_names()}, batch: {first[0].shape} {first[0].dtype}, {first[1].shape} {first[1].dtype}")

net = Net()
loss_fn = nn.CrossEntropyLoss()
optimizer = nn.Adam(net.trainable_params(), learning_rate=0.01)


loss_scaler = DynamicLossScaler(scale_value=2 ** 10, scale_factor=2, scale_window=10)


def forward_fn(data, label):
    logits = net(data)
    loss = loss_fn(logits, label)
    return loss_scaler.scale(loss), ops.argmax(logits, dim=1)


grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)


@ms.jit
def train_step(data, label):
    (loss, predicted), grads = grad_fn(data, label)
    loss = loss_scaler.unscale(loss)
    is_finite = all_finite(grads)
    if is_finite:
        grads = loss_scaler.unscale(grads)
        loss = ops.depend(loss, optimizer(grads))
    loss_scaler.adjust(is_finite)
    return loss, predicted


epoch_losses = []
for epoch in range(1, 5):
    net.set_train()
    total_loss, correct, seen = 0.0, 0, 0
    for data, label in train_ds.create_tuple_iterator():
        loss, predicted = train_step(data, label)
        total_loss += float(loss.asnumpy()) * label.shape[0]
        correct += int((predicted == label).sum().asnumpy())
        seen += label.shape[0]
    epoch_losses.append(total_loss / seen)
    print(f"epoch {epoch}: loss {epoch_losses[-1]:.4f}, accuracy {correct / seen:.4f}")
print("loss fell:", epoch_losses[-1] < epoch_losses[0])
print(f"loss scale after 24 steps: {float(loss_scaler.scale_value.asnumpy())}")

net.set_train(False)
tp = fp = fn = correct = total = 0
for data, label in eval_ds.create_tuple_iterator():
    pred = ops.argmax(net(data), dim=1).asnumpy()
    truth = label.asnumpy()
    tp += int(((pred == 1) & (truth == 1)).sum())
    fp += int(((pred == 1) & (truth == 0)).sum())
    fn += int(((pred == 0) & (truth == 1)).sum())
    correct += int((pred == truth).sum())
    total += len(truth)
accuracy = correct / total
precision = tp / max(tp + fp, 1)
recall = tp / max(tp + fn, 1)
print(f"eval: accuracy {accuracy:.4f}, precision {precision:.4f}, recall {recall:.4f}, {total} samples")

save_list = [{"name": p.name, "data": p} for p in net.trainable_params()]
save_list.append({"name": "epoch", "data": Tensor(4, ms.int32)})
save_list.append({"name": "best_acc", "data": Tensor(accuracy, ms.float32)})
ms.save_checkpoint(save_list, "functional.ckpt")
param_dict = ms.load_checkpoint("functional.ckpt")
print("checkpoint entries:", list(param_dict.keys()))
same = all(np.array_equal(param_dict[p.name].asnumpy(), p.asnumpy()) for p in net.trainable_params())
print(f"epoch from checkpoint: {int(param_dict['epoch'].asnumpy())}, weights equal: {same}")
