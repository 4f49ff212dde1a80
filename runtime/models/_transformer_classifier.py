"""A small Transformer encoder text classifier.

Token and learned position embeddings, `nn.TransformerEncoder` (batch-first,
post-norm), mean pooling over the sequence, `nn.Dense`.

Parameter names: `embedding.embedding_table`, `pos_embedding`,
`encoder.layers.<i>.<MindSpore's encoder-layer names>`, `classifier.weight` /
`classifier.bias`: what the same network written with MindSpore's `nn.Embedding`,
`nn.TransformerEncoder` and `nn.Dense` saves.
"""

from __future__ import annotations

from typing import Any

from ..common.initializer import Normal, initializer
from ..compute._tensor import Parameter, Tensor
from ..nn import Cell, Dense, Embedding, TransformerEncoder, TransformerEncoderLayer
from ..ops import _functional as f
from ..validation import check_positive_int

__all__ = ["TransformerClassifier"]


class TransformerClassifier(Cell):
    """Classify token sequences (N, S) of ids below `vocab_size` into `num_classes` classes.

    Args:
        vocab_size: Number of token ids.
        num_classes: Output classes.
        max_len: Longest sequence S the position embedding covers.
        d_model: Model width.
        nhead: Attention heads (must divide `d_model`).
        num_layers: Encoder layers.
        dim_feedforward: Width of each layer's feed-forward block.
        dropout: Drop probability inside the encoder layers (training only).
        dtype: Parameter dtype (float32 by default).

    Example:
        >>> import numpy as np, cadence as ms
        >>> from cadence.models import TransformerClassifier
        >>> net = TransformerClassifier(100, 3, max_len=8, d_model=16, nhead=2, num_layers=1, dim_feedforward=32)
        >>> net(ms.Tensor(np.zeros((2, 8), np.int32))).shape
        (2, 3)
    """

    def __init__(
        self,
        vocab_size: int,
        num_classes: int,
        max_len: int = 128,  # the position table's length
        d_model: int = 64,
        nhead: int = 4,
        num_layers: int = 2,
        dim_feedforward: int = 128,
        dropout: float = 0.1,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        from ..compute import _dtype

        owner = "TransformerClassifier"
        for name, value in (
            ("vocab_size", vocab_size),
            ("num_classes", num_classes),
            ("max_len", max_len),
            ("num_layers", num_layers),
        ):
            check_positive_int(value, name, owner)
        dt = dtype or _dtype.float32
        self.max_len = max_len
        self.embedding = Embedding(
            vocab_size, d_model, embedding_table=Normal(0.01), dtype=dt
        )
        self.pos_embedding = Parameter(
            initializer(Normal(0.02), (1, max_len, d_model), dt)
        )
        layer = TransformerEncoderLayer(
            d_model, nhead, dim_feedforward, dropout, batch_first=True, dtype=dtype
        )
        self.encoder = TransformerEncoder(layer, num_layers)
        self.classifier = Dense(d_model, num_classes, dtype=dtype)

    def construct(self, tokens: Tensor) -> Tensor:
        """Logits (N, num_classes) for token ids (N, S), S <= max_len."""
        ids = f.as_tensor(tokens)
        if ids.ndim != 2 or not 0 < ids.shape[1] <= self.max_len:
            raise ValueError(
                f"For 'TransformerClassifier', the input must be token ids of shape (N, S) with "
                f"0 < S <= max_len={self.max_len}, but got shape {ids.shape}."
            )
        seq = ids.shape[1]
        h = f.add(
            self.embedding(ids),
            f.getitem(self.pos_embedding, (slice(None), slice(0, seq))),
        )
        return self.classifier(f.mean(self.encoder(h), 1))  # type: ignore[no-any-return]
