"""The zoo benchmark's Transformer (`bench_zoo.py`): `cadence.models.TransformerClassifier`.

Token ids (N, 64) below 1000 -> embedding + learned positions (d_model 128) -> 2 post-norm
encoder layers (4 heads, feed-forward 256, ReLU, dropout 0.1) -> mean over the sequence ->
Dense(128, 4). PyTorch: `nn.Embedding`, a position parameter, `nn.TransformerEncoder` of
`nn.TransformerEncoderLayer(batch_first=True)` with the same sizes, `nn.Linear`.

The ceiling is the step's matrix products alone through numpy's BLAS (what cadence's dense
and batched-matmul kernels call): per layer the q/k/v, output and two feed-forward products and
the per-head score and value products, each forward once and backward twice (input and weight
gradients), each the best of a few runs.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np
from _bench_common import token_batch

from cadence.models import TransformerClassifier

if TYPE_CHECKING:
    import cadence.nn as nn

NAME = "Transformer"
CLASSES = 4
VOCAB, SEQ, WIDTH, HEADS, LAYERS, FEEDFORWARD, DROPOUT = 1000, 64, 128, 4, 2, 256, 0.1


def cadence_network() -> nn.Cell:
    return TransformerClassifier(
        VOCAB, CLASSES, SEQ, WIDTH, HEADS, LAYERS, FEEDFORWARD, DROPOUT
    )


def torch_network() -> Any:
    import torch

    class Classifier(torch.nn.Module):  # type: ignore[misc,unused-ignore]  # Any without torch
        def __init__(self) -> None:
            super().__init__()
            self.embedding = torch.nn.Embedding(VOCAB, WIDTH)
            self.pos_embedding = torch.nn.Parameter(torch.randn(1, SEQ, WIDTH) * 0.02)
            layer = torch.nn.TransformerEncoderLayer(
                WIDTH, HEADS, FEEDFORWARD, DROPOUT, batch_first=True
            )
            self.encoder = torch.nn.TransformerEncoder(
                layer, LAYERS, enable_nested_tensor=False
            )
            self.classifier = torch.nn.Linear(WIDTH, CLASSES)

        def forward(self, tokens: Any) -> Any:
            h = self.embedding(tokens.long()) + self.pos_embedding[:, : tokens.shape[1]]
            return self.classifier(self.encoder(h).mean(dim=1))

    return Classifier()


def batch(
    size: int, rng: np.random.Generator
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Token ids (size, SEQ) and int32 labels."""
    return token_batch(rng, size, VOCAB, SEQ, CLASSES)


def _products(size: int) -> list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]]:
    """The (a, b) operand pairs of one step's products, forward and backward."""
    rng = np.random.default_rng(0)
    rows = size * SEQ
    head = WIDTH // HEADS

    def m(*shape: int) -> np.ndarray[Any, Any]:
        return rng.random(shape, dtype=np.float32)

    pairs = []
    for n_in, n_out in (
        (WIDTH, 3 * WIDTH),
        (WIDTH, WIDTH),
        (WIDTH, FEEDFORWARD),
        (FEEDFORWARD, WIDTH),
    ):
        pairs += [
            (m(rows, n_in), m(n_in, n_out)),  # forward
            (m(rows, n_out), m(n_out, n_in)),  # input gradient
            (m(n_out, rows), m(rows, n_in)),  # weight gradient
        ]
    stack = size * HEADS
    for a, b in (((SEQ, head), (head, SEQ)), ((SEQ, SEQ), (SEQ, head))):
        pairs += [
            (m(stack, *a), m(stack, *b)),
            (m(stack, a[0], b[1]), m(stack, b[1], b[0])),
            (m(stack, a[1], a[0]), m(stack, a[0], b[1])),
        ]
    return pairs * LAYERS


def ceiling_seconds(size: int) -> float:
    total = 0.0
    for a, b in _products(size):
        best = np.inf
        for _ in range(3):
            t0 = time.perf_counter()
            np.matmul(a, b)
            best = min(best, time.perf_counter() - t0)
        total += best
    return total
