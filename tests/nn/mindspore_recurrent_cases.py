"""Recurrent cells and the LSTM text classifier, recorded on MindSpore 2.10 and replayed on cadence.

`cases(nn, Tensor)` builds the same cells and inputs with either framework's
modules. Run with a MindSpore interpreter,
`python tests/nn/mindspore_recurrent_cases.py tests/fixtures/mindspore` writes
`recurrent.npz` (every case's parameters by MindSpore's names, and its outputs)
and `sentiment_lstm.ckpt` + `sentiment_lstm.npz` (a small model-zoo sentiment
LSTM saved by MindSpore, its input and its logits). MindSpore is the oracle:
the files are regenerated, never edited by hand.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

# The small model-zoo sentiment network of the fixture (tokens (batch, seq_len)).
SENTIMENT: dict[str, Any] = {
    "vocab_size": 20,
    "embed_size": 6,
    "num_hiddens": 5,
    "num_layers": 2,
    "bidirectional": True,
    "num_classes": 3,
}
SENTIMENT_TOKENS = np.random.default_rng(7).integers(0, 20, (4, 9)).astype(np.int32)


def cases(
    nn: Any,
    Tensor: Any,  # noqa: N803 (the frameworks' class name)
) -> dict[str, tuple[Any, tuple[Any, ...], dict[str, Any]]]:
    """Return name -> (cell, positional inputs, keyword inputs), for either framework."""
    rng = np.random.default_rng(0)

    def t(*shape: int) -> Any:
        return Tensor(rng.normal(size=shape).astype(np.float32))

    lengths = Tensor(np.array([5, 2, 4], np.int32))
    return {
        "LSTM 2 layers bidirectional batch_first hx seq_length": (
            nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True),
            (t(3, 5, 3), (t(4, 3, 4), t(4, 3, 4))),
            {"seq_length": lengths},
        ),
        "GRU 2 layers bidirectional seq_length": (
            nn.GRU(3, 4, num_layers=2, bidirectional=True),
            (t(5, 3, 3),),
            {"seq_length": lengths},
        ),
        "GRU hx": (nn.GRU(3, 4), (t(6, 2, 3), t(1, 2, 4)), {}),
        "RNN relu 2 layers no bias": (
            nn.RNN(3, 4, num_layers=2, nonlinearity="relu", has_bias=False),
            (t(5, 2, 3),),
            {},
        ),
        "RNN tanh bidirectional hx": (
            nn.RNN(3, 4, bidirectional=True, batch_first=True),
            (t(2, 5, 3), t(2, 2, 4)),
            {},
        ),
        "LSTM single layer": (nn.LSTM(3, 4), (t(4, 2, 3),), {}),
        "RNNCell": (nn.RNNCell(3, 4), (t(2, 3), t(2, 4)), {}),
        "RNNCell relu": (nn.RNNCell(3, 4, nonlinearity="relu"), (t(2, 3), t(2, 4)), {}),
        "GRUCell": (nn.GRUCell(3, 4), (t(2, 3), t(2, 4)), {}),
        "LSTMCell": (nn.LSTMCell(3, 4), (t(2, 3), (t(2, 4), t(2, 4))), {}),
        "Embedding padding_idx": (
            nn.Embedding(7, 3, padding_idx=2),
            (Tensor(np.array([[2, 0, 6], [1, 2, 5]], np.int32)),),
            {},
        ),
    }


def flatten(out: Any) -> list[np.ndarray[Any, Any]]:
    """A cell's outputs as a flat list of arrays ((y, (h, c)) -> [y, h, c])."""
    if isinstance(out, (tuple, list)):
        return [a for o in out for a in flatten(o)]
    return [np.asarray(out.asnumpy())]


def _record(folder: Path) -> None:
    import mindspore as ms
    from mindspore import nn, ops

    ms.set_seed(0)
    arrays: dict[str, np.ndarray[Any, Any]] = {}
    for name, (cell, args, kwargs) in cases(nn, ms.Tensor).items():
        for p in cell.get_parameters():
            arrays[f"{name}/param/{p.name}"] = p.asnumpy()
        for i, a in enumerate(flatten(cell(*args, **kwargs))):
            arrays[f"{name}/out/{i}"] = a
    np.savez(folder / "recurrent.npz", **arrays)  # type: ignore[arg-type]

    class SentimentNet(nn.Cell):  # the model zoo's sentiment LSTM, at a small width
        def __init__(self, vocab_size: int, embed_size: int, num_hiddens: int, num_layers: int,
                     bidirectional: bool, num_classes: int) -> None:  # fmt: skip
            super().__init__()
            self.embedding = nn.Embedding(vocab_size, embed_size)
            self.encoder = nn.LSTM(embed_size, num_hiddens, num_layers=num_layers,
                                   bidirectional=bidirectional)  # fmt: skip
            self.decoder = nn.Dense(
                num_hiddens * (4 if bidirectional else 2), num_classes
            )

        def construct(self, tokens: Any) -> Any:
            embedded = ops.transpose(self.embedding(tokens), (1, 0, 2))
            output, _ = self.encoder(embedded)
            return self.decoder(ops.concat((output[0], output[-1]), 1))

    net = SentimentNet(**SENTIMENT)
    ms.save_checkpoint(net, str(folder / "sentiment_lstm.ckpt"))
    logits = net(ms.Tensor(SENTIMENT_TOKENS)).asnumpy()
    np.savez(folder / "sentiment_lstm.npz", tokens=SENTIMENT_TOKENS, logits=logits)


if __name__ == "__main__":
    _record(Path(sys.argv[1]))
