"""The model zoo's sentiment LSTM: Embedding, a (bidirectional) LSTM, Dense on the first and last outputs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import nn, ops
from ..nn._checks import check_bool, check_positive_int

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = ["SentimentNet"]


class SentimentNet(nn.Cell):
    """Classify token sequences: Embedding -> LSTM -> Dense over [output at t=0, output at t=T-1].

    The architecture and parameter names of the MindSpore model zoo's sentiment
    network (`embedding.embedding_table`, `encoder.weight_ih_l0`, ...,
    `decoder.weight`, `decoder.bias`), so its checkpoints load. Concatenating the
    first and last time steps gives both directions of a bidirectional LSTM the
    whole sequence.

    Args:
        vocab_size: Number of token ids.
        embed_size: Width of a token's embedding.
        num_hiddens: Hidden units of the LSTM (per direction).
        num_layers: Stacked LSTM layers.
        bidirectional: Whether the LSTM also runs backwards.
        num_classes: Output logits.
        weight: Optional pretrained embedding table (vocab_size, embed_size); as in the
            model zoo, a given table is frozen (`requires_grad=False`).
        batch_size: Accepted for the model zoo's signature; the batch size is read from the input.

    Inputs: int tokens (batch, seq_len). Output: logits (batch, num_classes).

    Example:
        >>> import numpy as np
        >>> import cadence as ms
        >>> from cadence.models import SentimentNet
        >>> net = SentimentNet(100, 8, 6, 1, True, 2)
        >>> net(ms.Tensor(np.zeros((3, 7), np.int32))).shape
        (3, 2)
    """

    def __init__(
        self,
        vocab_size: int,
        embed_size: int,
        num_hiddens: int,
        num_layers: int,
        bidirectional: bool,
        num_classes: int,
        weight: Any = None,
        batch_size: int | None = None,
    ) -> None:
        super().__init__()
        check_bool("SentimentNet", "bidirectional", bidirectional)
        check_positive_int("SentimentNet", "num_classes", num_classes)
        if batch_size is not None:
            check_positive_int("SentimentNet", "batch_size", batch_size)
        self.embedding = nn.Embedding(
            vocab_size,
            embed_size,
            embedding_table="normal" if weight is None else weight,
        )
        if weight is not None:
            self.embedding.embedding_table.requires_grad = False
        self.encoder = nn.LSTM(
            embed_size, num_hiddens, num_layers=num_layers, bidirectional=bidirectional
        )
        self.decoder = nn.Dense(num_hiddens * (4 if bidirectional else 2), num_classes)

    def construct(self, inputs: Any) -> Tensor:
        """Return the logits of a batch of token sequences."""
        embedded = ops.transpose(self.embedding(inputs), (1, 0, 2))
        output, _ = self.encoder(embedded)
        return self.decoder(ops.concat((output[0], output[-1]), 1))  # type: ignore[no-any-return]
