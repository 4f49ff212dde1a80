# The model zoo's sentiment preprocessing path: token-id reviews converted to MindRecord with
# FileWriter (shard_num=4, index fields id and label), then read back with MindDataset (one
# file name finds its siblings; columns_list picks feature and label; sharding by rank),
# shuffled by the whole dataset size, batched and used to train a small embedding classifier.
# expect: ^files: \['aclImdb_train\.mindrecord0', 'aclImdb_train\.mindrecord0\.db', 'aclImdb_train\.mindrecord1', 'aclImdb_train\.mindrecord1\.db', 'aclImdb_train\.mindrecord2', 'aclImdb_train\.mindrecord2\.db', 'aclImdb_train\.mindrecord3', 'aclImdb_train\.mindrecord3\.db'\]$
# expect: ^first record: id 0, label 1, feature \(20,\) int32$
# expect: ^train: 96 rows, columns \['feature', 'label'\], 6 batches$
# expect: ^rank 1 of 2: 48 rows$
# expect: ^batch: feature \(16, 20\) Int32, label \(16,\) Int32$
# expect: ^epoch: 3 step: 6, loss is \d+\.\d+(e-\d+)?$
# expect: ^loss fell: True$
import os

import numpy as np
import mindspore as ms
from mindspore import nn, ops
import mindspore.dataset as ds
from mindspore.mindrecord import FileReader, FileWriter
from mindspore.train import Model, Callback, LossMonitor

SEQ_LEN = 20
VOCAB = 50


def make_imdb_arrays(num, seed):
    """Token ids padded to SEQ_LEN; positive reviews use ids 2-11 more, negative ones 12-21."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, num).astype(np.int32)
    features = rng.integers(22, VOCAB, (num, SEQ_LEN)).astype(np.int32)
    for row, label in enumerate(labels):
        cues = rng.choice(SEQ_LEN, 4, replace=False)
        features[row, cues] = rng.integers(2, 12, 4) + (0 if label else 10)
    return features, labels


def convert_to_mindrecord(data_home, features, labels, training=True):
    """Write the arrays as MindRecord, the way the zoo's LSTM preprocessing does."""
    schema_json = {"id": {"type": "int32"}, "label": {"type": "int32"}, "feature": {"type": "int32", "shape": [-1]}}
    name = "aclImdb_train.mindrecord" if training else "aclImdb_test.mindrecord"
    data_list = [{"id": i, "label": int(label), "feature": feature.reshape(-1)}
                 for i, (label, feature) in enumerate(zip(labels, features))]
    writer = FileWriter(os.path.join(data_home, name), shard_num=4, overwrite=True)
    writer.add_schema(schema_json, "nlp_schema")
    writer.add_index(["id", "label"])
    writer.write_raw_data(data_list)
    writer.commit()


def lstm_create_dataset(data_home, batch_size, device_num=1, rank=0):
    ds.config.set_seed(1)
    data_dir = os.path.join(data_home, "aclImdb_train.mindrecord0")
    if device_num == 1:
        data_set = ds.MindDataset(data_dir, columns_list=["feature", "label"], num_parallel_workers=2)
    else:
        data_set = ds.MindDataset(data_dir, columns_list=["feature", "label"], num_parallel_workers=2,
                                  num_shards=device_num, shard_id=rank)
    data_set = data_set.shuffle(buffer_size=data_set.get_dataset_size())
    return data_set.batch(batch_size=batch_size, drop_remainder=True)


class BagOfWords(nn.Cell):
    def __init__(self):
        super(BagOfWords, self).__init__()
        self.embedding = nn.Embedding(VOCAB, 8)
        self.mean = ops.ReduceMean()
        self.dense = nn.Dense(8, 2)

    def construct(self, x):
        return self.dense(self.mean(self.embedding(x), 1))


class LossHistory(Callback):
    def __init__(self):
        super(LossHistory, self).__init__()
        self.losses = []

    def on_train_step_end(self, run_context):
        self.losses.append(float(run_context.original_args().net_outputs.asnumpy()))


if __name__ == "__main__":
    ms.set_seed(2)
    data_home = "preprocess"
    os.makedirs(data_home, exist_ok=True)
    features, labels = make_imdb_arrays(96, seed=0)
    convert_to_mindrecord(data_home, features, labels)
    print("files:", sorted(os.listdir(data_home)))
    first = next(FileReader(os.path.join(data_home, "aclImdb_train.mindrecord0")).get_next())
    print(f"first record: id {first['id']}, label {first['label']}, feature {first['feature'].shape} {first['feature'].dtype}")

    train = lstm_create_dataset(data_home, batch_size=16)
    rows = ds.MindDataset(os.path.join(data_home, "aclImdb_train.mindrecord0"))
    print(f"train: {rows.get_dataset_size()} rows, columns {train.get_col_names()}, {train.get_dataset_size()} batches")
    rank_rows = ds.MindDataset(os.path.join(data_home, "aclImdb_train.mindrecord3"), num_shards=2, shard_id=1)
    print(f"rank 1 of 2: {rank_rows.get_dataset_size()} rows")
    feature, label = next(train.create_tuple_iterator())
    print(f"batch: feature {feature.shape} {feature.dtype}, label {label.shape} {label.dtype}")

    net = BagOfWords()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(net, loss, nn.Adam(net.trainable_params(), learning_rate=0.05))
    history = LossHistory()
    model.train(3, train, callbacks=[LossMonitor(6), history])
    print("loss fell:", np.mean(history.losses[-6:]) < np.mean(history.losses[:6]))
