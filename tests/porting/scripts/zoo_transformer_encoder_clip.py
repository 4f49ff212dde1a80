# A small Transformer encoder classifier trained the way BERT-style model-zoo scripts train:
# nn.TransformerEncoderLayer/nn.TransformerEncoder with a key padding mask, AdamWeightDecay
# driven by a LearningRateSchedule subclass (nn.WarmUpLR, then nn.PolynomialDecayLR), parameter
# groups without weight decay on LayerNorm and biases, and a custom training cell derived from
# nn.TrainOneStepCell that clips gradients with ops.clip_by_global_norm and ties the update to
# the loss with ops.depend, given to Model on its own. Evaluation goes through an eval_network
# with eval_indexes, then a fresh network is restored from the last checkpoint.
# expect: ^parameters: 11 decayed, 19 not decayed$
# expect: ^learning rate at steps 0, 4, 24: 0\.0+, 0\.002000, 0\.000\d+$
# expect: ^epoch: 1 step: 8, loss is \d+\.\d+(e-\d+)?$
# expect: ^epoch: 3 step: 8, loss is \d+\.\d+(e-\d+)?$
# expect: ^loss fell: True$
# expect: ^checkpoint: transformer-3_8\.ckpt, network parameters loaded: True$
# expect: ^eval: acc=\d\.\d{4}, loss=\d+\.\d{4}$
# expect: ^restored network agrees: True$
import os

import numpy as np
import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops
import mindspore.dataset as ds
from mindspore import Tensor, Parameter
from mindspore.common import dtype as mstype
from mindspore.common.initializer import initializer, TruncatedNormal
from mindspore.nn.learning_rate_schedule import LearningRateSchedule
from mindspore.train import Model, Callback, LossMonitor, TimeMonitor, ModelCheckpoint, CheckpointConfig

SEQ_LEN, VOCAB_SIZE, NUM_CLASSES, BATCH_SIZE = 16, 32, 3, 16


class WarmupPolynomialDecay(LearningRateSchedule):
    """A linear warm-up to `peak` over `warmup_steps`, then a polynomial decay to `end` at `total_steps`."""

    def __init__(self, peak, end, warmup_steps, total_steps, power=1.0):
        super(WarmupPolynomialDecay, self).__init__()
        self.warmup_steps = warmup_steps
        self.warmup = nn.WarmUpLR(peak, warmup_steps)
        self.decay = nn.PolynomialDecayLR(peak, end, total_steps - warmup_steps, power)

    def construct(self, global_step):
        decayed = self.decay(ops.maximum(global_step - self.warmup_steps, 0))
        return ops.select(global_step < self.warmup_steps, self.warmup(global_step), decayed)


class TextClassifier(nn.Cell):
    def __init__(self, vocab_size, d_model, nhead, num_layers, num_classes, seq_len):
        super(TextClassifier, self).__init__()
        self.scale = float(np.sqrt(d_model))
        self.embedding = nn.Embedding(vocab_size, d_model, padding_idx=0)
        self.position = Parameter(initializer(TruncatedNormal(0.02), (1, seq_len, d_model)), name="position")
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=2 * d_model, dropout=0.1,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers, norm=nn.LayerNorm((d_model,)))
        self.classifier = nn.Dense(d_model, num_classes)

    def construct(self, input_ids, padding_mask):
        x = self.embedding(input_ids) * self.scale + self.position
        x = self.encoder(x, src_key_padding_mask=padding_mask)
        keep = ops.expand_dims(ops.cast(ops.logical_not(padding_mask), mstype.float32), -1)
        pooled = ops.sum(x * keep, 1) / ops.sum(keep, 1)  # mean over the real tokens
        return self.classifier(pooled)


class ClassifierWithLoss(nn.Cell):
    """The training loss; with return_logits, (loss, logits, label) for Model's eval_indexes=[0, 1, 2]."""

    def __init__(self, network, return_logits=False):
        super(ClassifierWithLoss, self).__init__(auto_prefix=False)
        self.network = network
        self.loss = nn.CrossEntropyLoss()
        self.return_logits = return_logits

    def construct(self, input_ids, padding_mask, label):
        logits = self.network(input_ids, padding_mask)
        loss = self.loss(logits, label)
        if self.return_logits:
            return loss, logits, label
        return loss


class TrainOneStepWithClipCell(nn.TrainOneStepCell):
    """One training step: gradients scaled by sens, clipped to a global norm, then applied."""

    def __init__(self, network, optimizer, clip_norm=1.0, sens=1.0):
        super(TrainOneStepWithClipCell, self).__init__(network, optimizer, sens)
        self.clip_norm = clip_norm

    def construct(self, input_ids, padding_mask, label):
        loss = self.network(input_ids, padding_mask, label)
        sens = ops.fill(loss.dtype, loss.shape, self.sens)
        grads = self.grad(self.network, self.weights)(input_ids, padding_mask, label, sens)
        grads = self.grad_reducer(grads)
        grads = ops.clip_by_global_norm(grads, self.clip_norm)
        return ops.depend(loss, self.optimizer(grads))


def make_sequences(num, seed):
    """Token ids padded with 0; the class is the token group (4-12, 12-20, 20-28) most present."""
    rng = np.random.default_rng(seed)
    ids = np.zeros((num, SEQ_LEN), np.int32)
    labels = rng.integers(0, NUM_CLASSES, num).astype(np.int32)
    for row, label in enumerate(labels):
        length = rng.integers(5, SEQ_LEN + 1)
        tokens = rng.integers(1, VOCAB_SIZE, length)
        tokens[: (length + 1) // 2] = rng.integers(4 + 8 * label, 12 + 8 * label, (length + 1) // 2)
        ids[row, :length] = rng.permutation(tokens)
    return ids, ids == 0, labels


def create_dataset(num, seed, shuffle):
    ids, padding, labels = make_sequences(num, seed)
    data_set = ds.NumpySlicesDataset((ids, padding, labels), column_names=["input_ids", "padding_mask", "label"],
                                     shuffle=shuffle)
    return data_set.batch(BATCH_SIZE, drop_remainder=True)


class EpochLoss(Callback):
    def __init__(self):
        super(EpochLoss, self).__init__()
        self.means, self._losses = [], []

    def on_train_step_end(self, run_context):
        self._losses.append(float(run_context.original_args().net_outputs.asnumpy()))

    def on_train_epoch_end(self, run_context):
        self.means.append(sum(self._losses) / len(self._losses))
        self._losses = []


if __name__ == "__main__":
    ms.set_seed(7)
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    epochs = 3
    train_ds = create_dataset(128, seed=0, shuffle=True)
    steps = train_ds.get_dataset_size() * epochs
    net = TextClassifier(VOCAB_SIZE, d_model=32, nhead=4, num_layers=2, num_classes=NUM_CLASSES, seq_len=SEQ_LEN)

    params = net.trainable_params()
    decay_params = [p for p in params if "norm" not in p.name.lower() and "bias" not in p.name.lower()]
    other_params = [p for p in params if "norm" in p.name.lower() or "bias" in p.name.lower()]
    print(f"parameters: {len(decay_params)} decayed, {len(other_params)} not decayed")
    group_params = [{"params": decay_params, "weight_decay": 0.01},
                    {"params": other_params, "weight_decay": 0.0},
                    {"order_params": params}]
    lr_schedule = WarmupPolynomialDecay(peak=2e-3, end=1e-5, warmup_steps=4, total_steps=steps)
    rates = [float(lr_schedule(Tensor(s, mstype.int32)).asnumpy()) for s in (0, 4, steps)]
    print("learning rate at steps 0, 4, {}: {:.6f}, {:.6f}, {:.6f}".format(steps, *rates))
    optimizer = nn.AdamWeightDecay(group_params, learning_rate=lr_schedule, eps=1e-6)

    train_cell = TrainOneStepWithClipCell(ClassifierWithLoss(net), optimizer, clip_norm=1.0)
    model = Model(train_cell, eval_network=ClassifierWithLoss(net, return_logits=True), metrics={"acc", "loss"}, eval_indexes=[0, 1, 2])
    epoch_loss = EpochLoss()
    config_ck = CheckpointConfig(save_checkpoint_steps=train_ds.get_dataset_size(), keep_checkpoint_max=1)
    callbacks = [TimeMonitor(), LossMonitor(), epoch_loss,
                 ModelCheckpoint(prefix="transformer", directory="./ckpt_transformer", config=config_ck)]
    model.train(epochs, train_ds, callbacks=callbacks, dataset_sink_mode=False)
    print("loss fell:", epoch_loss.means[-1] < epoch_loss.means[0])

    eval_ds = create_dataset(64, seed=1, shuffle=False)
    result = model.eval(eval_ds, dataset_sink_mode=False)

    ckpt_name = os.listdir("./ckpt_transformer")[0]
    restored = TextClassifier(VOCAB_SIZE, d_model=32, nhead=4, num_layers=2, num_classes=NUM_CLASSES, seq_len=SEQ_LEN)
    param_not_load, _ = ms.load_param_into_net(restored, ms.load_checkpoint(os.path.join("./ckpt_transformer", ckpt_name)))
    print(f"checkpoint: {ckpt_name}, network parameters loaded: {not param_not_load}")
    print(f"eval: acc={result['acc']:.4f}, loss={result['loss']:.4f}")
    net.set_train(False)
    restored.set_train(False)
    batch = next(eval_ds.create_tuple_iterator())
    print("restored network agrees:",
          np.allclose(net(batch[0], batch[1]).asnumpy(), restored(batch[0], batch[1]).asnumpy(), atol=1e-5))
