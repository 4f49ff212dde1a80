"""The sentiment LSTM for `bench_zoo.py`: Embedding + bidirectional LSTM + Dense on the first and last outputs.

The same architecture in cadence (`cadence.models.SentimentNet`) and in PyTorch
(nn.Embedding + nn.LSTM + nn.Linear). `ceiling_seconds` times the matrix
products of one training step alone through numpy's BLAS: the input projections
of all steps, the recurrent product of every step (forward and backward), the
weight gradients, the input gradients and the decoder.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from _bench_common import token_batch

NAME = "sentiment-lstm"
CLASSES = 2
VOCAB = 2000
EMBED = 64
HIDDEN = 64
LAYERS = 1
STEPS = 32  # tokens per sequence
DIRECTIONS = 2


def cadence_network() -> Any:
    """The model zoo's sentiment network at the bench's sizes."""
    from cadence.models import SentimentNet

    return SentimentNet(VOCAB, EMBED, HIDDEN, LAYERS, DIRECTIONS == 2, CLASSES)


def torch_network() -> Any:
    """The same network in PyTorch (time-major LSTM, first and last outputs concatenated)."""
    import torch

    class Sentiment(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embedding = torch.nn.Embedding(VOCAB, EMBED)
            self.encoder = torch.nn.LSTM(
                EMBED, HIDDEN, num_layers=LAYERS, bidirectional=DIRECTIONS == 2
            )
            self.decoder = torch.nn.Linear(HIDDEN * 2 * DIRECTIONS, CLASSES)

        def forward(self, tokens: Any) -> Any:
            output, _ = self.encoder(self.embedding(tokens).transpose(0, 1))
            return self.decoder(torch.cat((output[0], output[-1]), 1))

    return Sentiment()


def batch(
    size: int, rng: np.random.Generator
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Token ids (size, STEPS) and int32 labels."""
    return token_batch(rng, size, VOCAB, STEPS, CLASSES)


def _products(size: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(a shape, b shape) of every matrix product of one step, for a @ b."""
    gates, rows = 4 * HIDDEN, STEPS * size
    out: list[tuple[tuple[int, int], tuple[int, int]]] = []
    for layer in range(LAYERS):
        width = EMBED if layer == 0 else HIDDEN * DIRECTIONS
        for _ in range(DIRECTIONS):
            out += [((rows, width), (width, gates))]  # input projection, all steps
            out += [((size, HIDDEN), (HIDDEN, gates))] * STEPS  # recurrent, forward
            out += [((size, gates), (gates, HIDDEN))] * STEPS  # recurrent, backward
            out += [
                ((gates, rows), (rows, width)),
                ((gates, rows), (rows, HIDDEN)),
            ]  # dW
            out += [((rows, gates), (gates, width))]  # dx
    features = 2 * HIDDEN * DIRECTIONS
    out += [
        ((size, features), (features, CLASSES)),
        ((CLASSES, size), (size, features)),
    ]
    return out


def ceiling_seconds(size: int) -> float:
    """The best of 5 timings of the step's matrix products alone through numpy's BLAS."""
    rng = np.random.default_rng(0)
    pairs = [
        (rng.random(a, dtype=np.float32), rng.random(b, dtype=np.float32))
        for a, b in _products(size)
    ]
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for a, b in pairs:
            a @ b
        best = min(best, time.perf_counter() - start)
    return best
