# A BERT-like text classifier fine-tuned the way the BERT fine-tuning scripts do: token, segment
# and (Parameter) position embeddings, encoder layers with hand-written multi-head attention
# (ops.BatchMatMul, ops.Softmax, ops.Transpose, padding masked with ops.masked_fill), mean pooling
# through ops.select, nn.AdamWeightDecay with parameter groups from a decay filter on
# 'layernorm'/'bias' names, a learning-rate schedule of nn.WarmUpLR and nn.PolynomialDecayLR, and
# a training cell derived from nn.TrainOneStepCell that scales the loss by sens, unscales the
# gradients and clips each by norm through MultitypeFuncGraphs applied with HyperMap and F.partial;
# the step losses are collected by a LambdaCallback.
# (MindSpore 2.10's TrainOneStepWithLossScaleCell cannot check overflow on CPU: NPUGetFloatStatusV2.)
# data: sentiment
# expect: ^vocabulary: \d+ words, train batches: 8, max length: 16$
# expect: ^parameters: 16 with weight decay, 23 without$
# expect: ^lr at steps 0, 3, 23: 0\.000000, 0\.00087\d, 0\.0000\d+$
# expect: ^epoch: 1 step: 8, loss is \d+\.\d+
# expect: ^epoch: 3 step: 8, loss is \d+\.\d+
# expect: ^loss fell: True$
# expect: ^test accuracy: (?:0\.\d{4}|1\.0000)$
import numpy as np
import mindspore
import mindspore.nn as nn
import mindspore.ops as ops
import mindspore.dataset as ds
from mindspore import Tensor, Parameter
from mindspore.common import dtype as mstype
from mindspore.common.initializer import TruncatedNormal, initializer
from mindspore.nn.learning_rate_schedule import LearningRateSchedule, PolynomialDecayLR, WarmUpLR
from mindspore.ops import composite as C
from mindspore.ops import functional as F
from mindspore.ops import operations as P
from mindspore.train import Model
from mindspore.train.callback import LambdaCallback, LossMonitor

MAX_LEN, BATCH_SIZE, HIDDEN, HEADS, LAYERS = 16, 16, 32, 4, 2
GRADIENT_CLIP_TYPE, GRADIENT_CLIP_VALUE = 1, 1.0


class SelfAttention(nn.Cell):
    def __init__(self, hidden, heads, dropout=0.1):
        super(SelfAttention, self).__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.query = nn.Dense(hidden, hidden, weight_init=TruncatedNormal(0.02))
        self.key = nn.Dense(hidden, hidden, weight_init=TruncatedNormal(0.02))
        self.value = nn.Dense(hidden, hidden, weight_init=TruncatedNormal(0.02))
        self.output = nn.Dense(hidden, hidden, weight_init=TruncatedNormal(0.02))
        self.matmul_qk = P.BatchMatMul(transpose_b=True)
        self.matmul_v = P.BatchMatMul()
        self.softmax = P.Softmax(axis=-1)
        self.transpose = P.Transpose()
        self.reshape = P.Reshape()
        self.dropout = nn.Dropout(p=dropout)
        self.scale = 1.0 / float(np.sqrt(self.head_dim))

    def split_heads(self, x, batch, seq):
        return self.transpose(self.reshape(x, (batch, seq, self.heads, self.head_dim)), (0, 2, 1, 3))

    def construct(self, x, padding):
        batch, seq, hidden = x.shape
        q = self.split_heads(self.query(x), batch, seq)
        k = self.split_heads(self.key(x), batch, seq)
        v = self.split_heads(self.value(x), batch, seq)
        scores = self.matmul_qk(q, k) * self.scale
        scores = ops.masked_fill(scores, padding.view(batch, 1, 1, seq), -10000.0)
        probs = self.dropout(self.softmax(scores))
        context = self.transpose(self.matmul_v(probs, v), (0, 2, 1, 3))
        return self.output(self.reshape(context, (batch, seq, hidden)))


class EncoderLayer(nn.Cell):
    def __init__(self, hidden, heads, dropout=0.1):
        super(EncoderLayer, self).__init__()
        self.attention = SelfAttention(hidden, heads, dropout)
        self.attention_layernorm = nn.LayerNorm((hidden,), epsilon=1e-12)
        self.intermediate = nn.Dense(hidden, 2 * hidden, activation="gelu", weight_init=TruncatedNormal(0.02))
        self.out = nn.Dense(2 * hidden, hidden, weight_init=TruncatedNormal(0.02))
        self.output_layernorm = nn.LayerNorm((hidden,), epsilon=1e-12)
        self.dropout = nn.Dropout(p=dropout)

    def construct(self, x, padding):
        x = self.attention_layernorm(x + self.dropout(self.attention(x, padding)))
        return self.output_layernorm(x + self.dropout(self.out(self.intermediate(x))))


class BertLikeClassifier(nn.Cell):
    def __init__(self, vocab_size, num_labels=2):
        super(BertLikeClassifier, self).__init__()
        self.word_embeddings = nn.Embedding(vocab_size, HIDDEN, embedding_table=TruncatedNormal(0.02))
        self.token_type_embeddings = nn.Embedding(2, HIDDEN)
        self.position_embeddings = Parameter(initializer(TruncatedNormal(0.02), (1, MAX_LEN, HIDDEN)),
                                             name="position_embeddings")
        self.embedding_layernorm = nn.LayerNorm((HIDDEN,), epsilon=1e-12)
        self.layers = nn.CellList([EncoderLayer(HIDDEN, HEADS) for _ in range(LAYERS)])
        self.dense = nn.Dense(HIDDEN, num_labels, weight_init=TruncatedNormal(0.02))
        self.cast = P.Cast()

    def construct(self, input_ids, input_mask, token_type_id):
        x = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_id) + self.position_embeddings
        x = self.embedding_layernorm(x)
        padding = input_mask == 0
        for layer in self.layers:
            x = layer(x, padding)
        keep = ops.expand_dims(input_mask > 0, -1).broadcast_to(x.shape)
        summed = ops.select(keep, x, ops.zeros_like(x)).sum(axis=1)
        pooled = summed / ops.expand_dims(self.cast(input_mask.sum(axis=1), mstype.float32), -1)
        return self.dense(pooled)


class ClassifierWithLoss(nn.Cell):
    def __init__(self, network):
        super(ClassifierWithLoss, self).__init__(auto_prefix=False)
        self.network = network
        self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def construct(self, input_ids, input_mask, token_type_id, label_ids):
        return self.loss(self.network(input_ids, input_mask, token_type_id), label_ids)


class BertLearningRate(LearningRateSchedule):
    def __init__(self, learning_rate, end_learning_rate, warmup_steps, decay_steps, power):
        super(BertLearningRate, self).__init__()
        self.warmup_lr = WarmUpLR(learning_rate, warmup_steps)
        self.decay_lr = PolynomialDecayLR(learning_rate, end_learning_rate, decay_steps, power)
        self.warmup_steps = Tensor(np.array([warmup_steps]).astype(np.float32))
        self.greater = P.Greater()
        self.one = Tensor(np.array([1.0]).astype(np.float32))
        self.cast = P.Cast()

    def construct(self, global_step):
        is_warmup = self.cast(self.greater(self.warmup_steps, global_step), mstype.float32)
        warmup_lr = self.warmup_lr(global_step)
        decay_lr = self.decay_lr(global_step)
        return (self.one - is_warmup) * decay_lr + is_warmup * warmup_lr


clip_grad = C.MultitypeFuncGraph("clip_grad")


@clip_grad.register("Number", "Number", "Tensor")
def _clip_grad(clip_type, clip_value, grad):
    if clip_type not in (0, 1):
        return grad
    dt = F.dtype(grad)
    if clip_type == 0:
        return C.clip_by_value(grad, F.cast(F.tuple_to_array((-clip_value,)), dt),
                               F.cast(F.tuple_to_array((clip_value,)), dt))
    return nn.ClipByNorm()(grad, F.cast(F.tuple_to_array((clip_value,)), dt))


grad_scale = C.MultitypeFuncGraph("grad_scale")


@grad_scale.register("Number", "Tensor")
def _grad_scale(scale, grad):
    return grad * F.cast(F.tuple_to_array((1.0 / scale,)), F.dtype(grad))


class FinetuneCell(nn.TrainOneStepCell):
    """Gradients of a loss scaled by sens, unscaled, clipped by norm one by one, then applied."""

    def __init__(self, network, optimizer, sens=1024.0):
        super(FinetuneCell, self).__init__(network, optimizer, sens)
        self.hyper_map = C.HyperMap()

    def construct(self, input_ids, input_mask, token_type_id, label_ids):
        loss = self.network(input_ids, input_mask, token_type_id, label_ids)
        sens = F.fill(loss.dtype, loss.shape, self.sens)
        grads = self.grad(self.network, self.weights)(input_ids, input_mask, token_type_id, label_ids, sens)
        grads = self.hyper_map(F.partial(grad_scale, self.sens), grads)
        grads = self.hyper_map(F.partial(clip_grad, GRADIENT_CLIP_TYPE, GRADIENT_CLIP_VALUE), grads)
        grads = self.grad_reducer(grads)
        return F.depend(loss, self.optimizer(grads))


def read_tsv(path):
    labels, sentences = [], []
    with open(path) as f:
        for line in f:
            label, sentence = line.rstrip("\n").split("\t")
            labels.append(int(label))
            sentences.append(sentence.split())
    return sentences, labels


def encode(sentences, labels, vocab):
    ids = np.zeros((len(sentences), MAX_LEN), np.int32)
    ids[:, 0] = vocab["[CLS]"]
    for row, words in enumerate(sentences):
        tokens = [vocab.get(w, vocab["[UNK]"]) for w in words][: MAX_LEN - 1]
        ids[row, 1 : 1 + len(tokens)] = tokens
    mask = (ids != 0).astype(np.int32)
    return ids, mask, np.zeros_like(ids), np.array(labels, np.int32)


def create_dataset(arrays, shuffle):
    names = ["input_ids", "input_mask", "segment_ids", "label_ids"]
    return ds.NumpySlicesDataset(arrays, column_names=names, shuffle=shuffle).batch(BATCH_SIZE, drop_remainder=True)


if __name__ == "__main__":
    mindspore.set_seed(11)
    mindspore.set_context(mode=mindspore.GRAPH_MODE, device_target="CPU")
    train_sentences, train_labels = read_tsv("sentiment/train.tsv")
    words = sorted({w for s in train_sentences for w in s})
    vocab = {w: i for i, w in enumerate(["[PAD]", "[CLS]", "[UNK]"] + words)}
    train_ds = create_dataset(encode(train_sentences, train_labels, vocab), shuffle=True)
    print(f"vocabulary: {len(vocab)} words, train batches: {train_ds.get_dataset_size()}, max length: {MAX_LEN}")

    epochs = 3
    steps = train_ds.get_dataset_size() * epochs
    net = BertLikeClassifier(len(vocab))
    params = net.trainable_params()
    decay_filter = lambda x: "layernorm" not in x.name.lower() and "bias" not in x.name.lower()
    decay_params = list(filter(decay_filter, params))
    other_params = list(filter(lambda x: not decay_filter(x), params))
    print(f"parameters: {len(decay_params)} with weight decay, {len(other_params)} without")
    group_params = [{"params": decay_params, "weight_decay": 0.01},
                    {"params": other_params, "weight_decay": 0.0},
                    {"order_params": params}]
    lr_schedule = BertLearningRate(learning_rate=1e-3, end_learning_rate=1e-5, warmup_steps=3,
                                   decay_steps=steps, power=1.0)
    rates = [float(lr_schedule(Tensor(s, mstype.int32)).asnumpy()[0]) for s in (0, 3, steps - 1)]
    print("lr at steps 0, 3, {}: {:.6f}, {:.6f}, {:.6f}".format(steps - 1, *rates))
    optimizer = nn.AdamWeightDecay(group_params, lr_schedule, eps=1e-6)

    train_cell = FinetuneCell(ClassifierWithLoss(net), optimizer, sens=1024.0)
    step_losses = []
    recorder = LambdaCallback(on_train_step_end=lambda run_context: step_losses.append(
        (run_context.original_args().cur_epoch_num, float(run_context.original_args().net_outputs.asnumpy()))))
    model = Model(train_cell)
    model.train(epochs, train_ds, callbacks=[LossMonitor(train_ds.get_dataset_size()), recorder],
                dataset_sink_mode=False)
    first = np.mean([loss for epoch, loss in step_losses if epoch == 1])
    last = np.mean([loss for epoch, loss in step_losses if epoch == epochs])
    print("loss fell:", last < first)

    net.set_train(False)
    test_ds = create_dataset(encode(*read_tsv("sentiment/test.tsv"), vocab), shuffle=False)
    correct = total = 0
    for input_ids, input_mask, segment_ids, label_ids in test_ds.create_tuple_iterator():
        logits = net(input_ids, input_mask, segment_ids)
        correct += int((ops.argmax(logits, dim=-1) == label_ids).sum().asnumpy())
        total += label_ids.shape[0]
    print(f"test accuracy: {correct / total:.4f}")
