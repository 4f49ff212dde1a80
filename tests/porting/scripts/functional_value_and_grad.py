# MindSpore 2.x's functional training loop: ops.value_and_grad over a forward function
# with has_aux, a @ms.jit train step, and the tutorial's printed progress lines.
# expect: ^Epoch 1$
# expect: ^loss: \d+\.\d{6}  \[  0/ 10\]$
# expect: ^Epoch 2$
# expect: ^Test: Accuracy: \d+\.\d%$
import numpy as np
import mindspore
from mindspore import nn, ops

mindspore.set_seed(3)


rng = np.random.default_rng(11)
images = rng.normal(size=(160, 1, 4, 4)).astype(np.float32)
labels = (images[:, 0, :2, :].mean(axis=(1, 2)) > 0).astype(np.int32)
train_dataset = mindspore.dataset.NumpySlicesDataset(
    {"image": images, "label": labels}, shuffle=True).batch(16)
test_dataset = mindspore.dataset.NumpySlicesDataset(
    {"image": images[:64], "label": labels[:64]}, shuffle=False).batch(16)

model = nn.SequentialCell([nn.Flatten(), nn.Dense(4 * 4, 32), nn.ReLU(), nn.Dense(32, 2)])
loss_fn = nn.CrossEntropyLoss()
optimizer = nn.SGD(model.trainable_params(), 1e-1)


def forward_fn(data, label):
    logits = model(data)
    return loss_fn(logits, label), logits


grad_fn = ops.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)


@mindspore.jit
def train_step(data, label):
    (loss, logits), grads = grad_fn(data, label)
    loss = ops.depend(loss, optimizer(grads))
    return loss, logits


def train_loop(dataset):
    size = dataset.get_dataset_size()
    model.set_train()
    for step, batch in enumerate(dataset.create_dict_iterator()):
        loss, _ = train_step(batch["image"], batch["label"])
        if step % 5 == 0:
            print(f"loss: {loss.asnumpy():>7f}  [{step:>3d}/{size:>3d}]")


def test_loop(dataset):
    model.set_train(False)
    total, correct = 0, 0
    for batch in dataset.create_dict_iterator():
        pred = model(batch["image"])
        total += batch["image"].shape[0]
        correct += (pred.argmax(1) == batch["label"]).asnumpy().sum()
    print(f"Test: Accuracy: {(100 * correct / total):>0.1f}%")


for t in range(2):
    print(f"Epoch {t + 1}")
    train_loop(train_dataset)
test_loop(test_dataset)
