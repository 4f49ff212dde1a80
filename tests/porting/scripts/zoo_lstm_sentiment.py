# A sentiment classifier in the model zoo's LSTM style: an Embedding whose table comes from a
# numpy array (pretrained word vectors, frozen), a bidirectional two-layer nn.LSTM with
# batch_first=True and explicit zero initial states, the first and the last outputs concatenated
# into an nn.Dense decoder. Adam, the Accuracy metric, model.fit with a validation set and a
# custom callback printing each epoch's eval accuracy, checkpoints, then model.eval on a network
# restored from the last checkpoint.
# expect: ^vocabulary: 40 words, embedding table \(40, 16\), trainable: False$
# expect: ^epoch: 1 step: 12, loss is \d+\.\d+(e-\d+)?$
# expect: ^epoch 1: eval accuracy \d\.\d{4}$
# expect: ^Eval result: epoch 1, metrics: \{'acc': \d\.\d+\}$
# expect: ^epoch: 4 step: 12, loss is \d+\.\d+(e-\d+)?$
# expect: ^epoch 4: eval accuracy \d\.\d{4}$
# expect: ^loss fell: True, accuracy rose: True$
# expect: ^checkpoint entries: 59, parameters not loaded: \[\]$
# expect: ^restored network: acc=\d\.\d{4}, same as the last epoch's: True$
import os

import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor
import mindspore.dataset as ds
from mindspore.common.initializer import Uniform
from mindspore.train import Model, Callback, LossMonitor, Accuracy, ModelCheckpoint, CheckpointConfig

VOCAB = ["<pad>", "<unk>"] + [f"good{i}" for i in range(8)] + [f"bad{i}" for i in range(8)] + \
        [f"word{i}" for i in range(22)]
MAX_LEN = 12
BATCH_SIZE = 16


def word_vectors(vocab, dim, seed):
    """Stand-in for GloVe: positive and negative words point in opposite directions."""
    rng = np.random.default_rng(seed)
    table = rng.normal(0, 0.1, (len(vocab), dim)).astype(np.float32)
    for i, word in enumerate(vocab):
        if word.startswith("good"):
            table[i, 0] += 1.0
        elif word.startswith("bad"):
            table[i, 0] -= 1.0
    table[0] = 0.0
    return table


def make_reviews(num, seed):
    """Token ids of reviews padded to MAX_LEN; the label is 1 when positive words outnumber negative ones."""
    rng = np.random.default_rng(seed)
    ids = np.zeros((num, MAX_LEN), np.int32)
    labels = rng.integers(0, 2, num).astype(np.int32)
    for row, label in enumerate(labels):
        length = rng.integers(6, MAX_LEN + 1)
        words = rng.integers(18, len(VOCAB), length)
        marked = rng.choice(length, 3, replace=False)
        words[marked[:2]] = rng.integers(2, 10, 2) + (0 if label else 8)
        words[marked[2]] = rng.integers(2, 10) + (8 if label else 0)
        ids[row, :length] = words
    return ids, labels


def create_dataset(num, seed, shuffle):
    ids, labels = make_reviews(num, seed)
    data_set = ds.NumpySlicesDataset({"feature": ids, "label": labels}, shuffle=shuffle)
    return data_set.batch(BATCH_SIZE, drop_remainder=True)


class SentimentNet(nn.Cell):
    """Embedding + bidirectional LSTM; the first and last time steps feed the decoder."""

    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, bidirectional, num_classes,
                 weight, batch_size):
        super(SentimentNet, self).__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size, embedding_table=weight)
        self.embedding.embedding_table.requires_grad = False
        self.encoder = nn.LSTM(input_size=embed_size, hidden_size=num_hiddens, num_layers=num_layers,
                               has_bias=True, batch_first=True, bidirectional=bidirectional, dropout=0.0)
        num_directions = 2 if bidirectional else 1
        state_shape = (num_layers * num_directions, batch_size, num_hiddens)
        self.h = Tensor(np.zeros(state_shape).astype(np.float32))
        self.c = Tensor(np.zeros(state_shape).astype(np.float32))
        self.concat = ops.Concat(1)
        self.squeeze = ops.Squeeze(axis=1)
        self.decoder = nn.Dense(num_hiddens * num_directions * 2, num_classes,
                                weight_init=Uniform(0.1))

    def construct(self, inputs):
        embeddings = self.embedding(inputs)
        output, _ = self.encoder(embeddings, (self.h, self.c))
        first, last = ops.split(output, [1, MAX_LEN - 2, 1], axis=1)[::2]
        encoding = self.concat((self.squeeze(first), self.squeeze(last)))
        return self.decoder(encoding)


class EvalAccuracyPrinter(Callback):
    """Prints the accuracy that model.fit measured on the validation set after each epoch."""

    def __init__(self):
        super(EvalAccuracyPrinter, self).__init__()
        self.accuracies, self.losses, self._step_losses = [], [], []

    def on_train_step_end(self, run_context):
        self._step_losses.append(run_context.original_args().net_outputs.asnumpy())

    def on_train_epoch_end(self, run_context):
        self.losses.append(np.mean(self._step_losses))
        self._step_losses = []

    def on_eval_end(self, run_context):
        cb_params = run_context.original_args()
        acc = cb_params.eval_results["acc"]
        self.accuracies.append(acc)
        print(f"epoch {cb_params.cur_epoch_num}: eval accuracy {acc:.4f}", flush=True)


if __name__ == "__main__":
    ms.set_seed(5)
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    embed_size, num_hiddens, num_layers, epochs = 16, 24, 2, 4
    table = word_vectors(VOCAB, embed_size, seed=0)
    net = SentimentNet(vocab_size=len(VOCAB), embed_size=embed_size, num_hiddens=num_hiddens,
                       num_layers=num_layers, bidirectional=True, num_classes=2,
                       weight=Tensor(table), batch_size=BATCH_SIZE)
    print(f"vocabulary: {len(VOCAB)} words, embedding table {net.embedding.embedding_table.shape}, "
          f"trainable: {net.embedding.embedding_table.requires_grad}")
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Adam(net.trainable_params(), learning_rate=0.01)
    model = Model(net, loss, opt, metrics={"acc": Accuracy()})

    train_ds = create_dataset(192, seed=1, shuffle=True)
    eval_ds = create_dataset(96, seed=2, shuffle=False)
    eval_cb = EvalAccuracyPrinter()
    config_ck = CheckpointConfig(save_checkpoint_steps=train_ds.get_dataset_size(), keep_checkpoint_max=1)
    ckpt_cb = ModelCheckpoint(prefix="lstm", directory="./ckpt_lstm", config=config_ck)
    model.fit(epochs, train_ds, valid_dataset=eval_ds, valid_frequency=1,
              callbacks=[LossMonitor(12), eval_cb, ckpt_cb], dataset_sink_mode=False)
    print(f"loss fell: {eval_cb.losses[-1] < eval_cb.losses[0]}, "
          f"accuracy rose: {eval_cb.accuracies[-1] > eval_cb.accuracies[0]}")

    param_dict = ms.load_checkpoint(os.path.join("./ckpt_lstm", f"lstm-{epochs}_12.ckpt"))
    restored = SentimentNet(vocab_size=len(VOCAB), embed_size=embed_size, num_hiddens=num_hiddens,
                            num_layers=num_layers, bidirectional=True, num_classes=2,
                            weight=Tensor(np.zeros_like(table)), batch_size=BATCH_SIZE)
    not_loaded, _ = ms.load_param_into_net(restored, param_dict)
    print(f"checkpoint entries: {len(param_dict)}, parameters not loaded: {not_loaded}")
    result = Model(restored, loss, metrics={"acc"}).eval(eval_ds, dataset_sink_mode=False)
    print(f"restored network: acc={result['acc']:.4f}, same as the last epoch's: {result['acc'] == eval_cb.accuracies[-1]}")
