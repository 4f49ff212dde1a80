# A text classifier trained the way MindSpore users write one by hand: PyNative mode, reviews
# read from TSV files by a Python class, a vocabulary built with dataset.text.Vocab, the tokens
# mapped to ids with text.Lookup and padded with transforms.PadEnd, a custom nn.Cell with
# nn.Embedding(padding_idx=0), a bidirectional nn.LSTM given its lengths (seq_length) and
# nn.Dropout(p=), a hand-written WithLossCell and TrainOneStepCell (ops.GradOperation with
# get_by_list, gradient clipping, ops.depend), a manual epoch loop over create_dict_iterator,
# then a fine-tuning pass of the head alone with mindspore.value_and_grad, and a checkpoint.
# data: sentiment
# expect: ^vocabulary size: 29, <pad> id: 0, <unk> id: 1$
# expect: ^ids: \[\d+( +\d+)*( +0)+\] label 0$
# expect: ^epoch 1, step 8: loss \d\.\d{4}$
# expect: ^epoch 6: train loss \d\.\d{4}, test accuracy \d\.\d{4}$
# expect: ^loss fell: True, accuracy above 0\.8: True$
# expect: ^fine-tune: embedding and LSTM unchanged: True, head changed: True$
# expect: ^restored logits equal: True$
import numpy as np

import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn, ops, Tensor, ParameterTuple
from mindspore.dataset import text, transforms

ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
ms.set_seed(2)

MAX_LEN = 12
BATCH_SIZE = 16


class ReviewData:
    """Random-access source over a `label<TAB>sentence` file."""

    def __init__(self, path):
        self.texts, self.labels = [], []
        with open(path, encoding="utf-8") as f:
            for line in f:
                label, sentence = line.rstrip("\n").split("\t")
                self.texts.append(sentence.lower().split())
                self.labels.append(int(label))

    def __getitem__(self, index):
        return np.array(self.texts[index]), np.int32(self.labels[index])

    def __len__(self):
        return len(self.labels)


def build_vocab(source):
    words = sorted({w for sentence in source.texts for w in sentence})
    return text.Vocab.from_list(words, special_tokens=["<pad>", "<unk>"], special_first=True)


def create_dataset(source, vocab, shuffle):
    dataset = ds.GeneratorDataset(source, column_names=["text", "label"], shuffle=shuffle)
    lookup_op = text.Lookup(vocab, unknown_token="<unk>")
    pad_op = transforms.PadEnd([MAX_LEN], pad_value=vocab.tokens_to_ids("<pad>"))
    dataset = dataset.map(operations=[lookup_op, pad_op], input_columns=["text"])
    dataset = dataset.map(operations=transforms.TypeCast(ms.int32), input_columns=["label"])
    return dataset.batch(BATCH_SIZE, drop_remainder=True)


class LSTMClassifier(nn.Cell):
    def __init__(self, vocab_size, embed_size, hidden_size, num_classes):
        super(LSTMClassifier, self).__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size, padding_idx=0)
        self.lstm = nn.LSTM(embed_size, hidden_size, num_layers=1, has_bias=True,
                            batch_first=True, bidirectional=True)
        self.dropout = nn.Dropout(p=0.2)
        self.fc = nn.Dense(hidden_size * 2, num_classes)
        self.not_equal = ops.NotEqual()
        self.reduce_sum = ops.ReduceSum()
        self.concat = ops.Concat(axis=1)

    def construct(self, ids):
        lengths = self.reduce_sum(self.not_equal(ids, 0).astype(ms.int32), 1)
        embedded = self.embedding(ids)
        _, (h_n, _) = self.lstm(embedded, seq_length=lengths)
        # h_n: (num_directions, batch, hidden); join the forward and backward final states.
        hidden = self.concat((h_n[0], h_n[1]))
        return self.fc(self.dropout(hidden))


class WithLossCell(nn.Cell):
    def __init__(self, backbone, loss_fn, auto_prefix=False):
        # auto_prefix=False: the parameters keep the backbone's names in checkpoints.
        super(WithLossCell, self).__init__(auto_prefix=auto_prefix)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, ids, label):
        logits = self._backbone(ids)
        return self._loss_fn(logits, label)


class TrainOneStepCell(nn.Cell):
    def __init__(self, network, optimizer, clip_norm=1.0):
        super(TrainOneStepCell, self).__init__(auto_prefix=False)
        self.optimizer = optimizer
        self.weights = ParameterTuple(network.trainable_params())
        self.network = network
        self.network.set_grad()
        self.grad = ops.GradOperation(get_by_list=True)
        self.clip_norm = clip_norm

    def construct(self, ids, label):
        loss = self.network(ids, label)
        grads = self.grad(self.network, self.weights)(ids, label)
        grads = ops.clip_by_global_norm(grads, self.clip_norm)
        loss = ops.depend(loss, self.optimizer(grads))
        return loss


def evaluate(net, dataset):
    net.set_train(False)
    correct, total = 0, 0
    for batch in dataset.create_dict_iterator():
        logits = net(batch["text"])
        pred = logits.argmax(axis=1)
        correct += int((pred == batch["label"]).sum().asnumpy())
        total += batch["label"].shape[0]
    net.set_train(True)
    return correct / total


train_source = ReviewData("sentiment/train.tsv")
test_source = ReviewData("sentiment/test.tsv")
vocab = build_vocab(train_source)
print(f"vocabulary size: {len(vocab.vocab())}, <pad> id: {vocab.tokens_to_ids('<pad>')}, "
      f"<unk> id: {vocab.tokens_to_ids('<unk>')}")
train_ds = create_dataset(train_source, vocab, shuffle=True)
test_ds = create_dataset(test_source, vocab, shuffle=False)
first = next(test_ds.create_tuple_iterator(output_numpy=True))
print("ids:", np.array2string(first[0][0]), "label", first[1][0])

net = LSTMClassifier(len(vocab.vocab()), embed_size=16, hidden_size=16, num_classes=2)
loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
optimizer = nn.Adam(net.trainable_params(), learning_rate=0.01)
train_net = TrainOneStepCell(WithLossCell(net, loss_fn), optimizer)
train_net.set_train()

epoch_losses = []
for epoch in range(1, 7):
    losses = []
    for step, data in enumerate(train_ds.create_dict_iterator(), start=1):
        loss = train_net(data["text"], data["label"])
        losses.append(loss.asnumpy())
        if epoch == 1 and step == train_ds.get_dataset_size():
            print(f"epoch {epoch}, step {step}: loss {loss.asnumpy():.4f}")
    epoch_losses.append(float(np.mean(losses)))
    if epoch == 6:
        accuracy = evaluate(net, test_ds)
        print(f"epoch {epoch}: train loss {epoch_losses[-1]:.4f}, test accuracy {accuracy:.4f}")
print(f"loss fell: {epoch_losses[-1] < epoch_losses[0]}, accuracy above 0.8: {accuracy > 0.8}")

# Fine-tune the head alone, the functional way.
for param in net.get_parameters():
    param.requires_grad = param.name.startswith("fc.")
head_params = net.trainable_params()
head_optimizer = nn.SGD(head_params, learning_rate=0.05)
frozen_before = {p.name: p.asnumpy().copy() for p in net.get_parameters() if not p.name.startswith("fc.")}
head_before = net.fc.weight.asnumpy().copy()


def forward_fn(ids, label):
    logits = net(ids)
    return loss_fn(logits, label), logits


grad_fn = ms.value_and_grad(forward_fn, None, head_optimizer.parameters, has_aux=True)
for data in train_ds.create_dict_iterator():
    (loss, _), grads = grad_fn(data["text"], data["label"])
    head_optimizer(grads)
unchanged = all(np.array_equal(frozen_before[p.name], p.asnumpy())
                for p in net.get_parameters() if p.name in frozen_before)
print(f"fine-tune: embedding and LSTM unchanged: {unchanged}, "
      f"head changed: {not np.array_equal(head_before, net.fc.weight.asnumpy())}")

ms.save_checkpoint(net, "lstm_classifier.ckpt")
restored = LSTMClassifier(len(vocab.vocab()), embed_size=16, hidden_size=16, num_classes=2)
ms.load_param_into_net(restored, ms.load_checkpoint("lstm_classifier.ckpt"))
net.set_train(False)
restored.set_train(False)
ids = Tensor(first[0], ms.int32)
print("restored logits equal:", np.allclose(net(ids).asnumpy(), restored(ids).asnumpy()))
