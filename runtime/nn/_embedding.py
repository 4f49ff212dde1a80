"""`Embedding`: a lookup table of vectors, with MindSpore's signature and parameter name."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..common.initializer import initializer
from ..compute import _dtype
from ..compute._tensor import Parameter, Tensor
from ..ops._recurrent import embedding
from ._cell import Cell
from ._checks import check_bool, check_positive_int

__all__ = ["Embedding"]


class Embedding(Cell):
    """Map integer ids to rows of `embedding_table` (vocab_size, embedding_size).

    Args:
        vocab_size: Rows of the table.
        embedding_size: Width of a row.
        use_one_hot: MindSpore computes the lookup as a one-hot product when set;
            the result and the gradient are the same as the direct lookup, which
            cadence always runs.
        embedding_table: Initializer of the table (name, Initializer, Tensor or array);
            default 'normal' (N(0, 0.01)), as MindSpore.
        dtype: Table dtype.
        padding_idx: A row set to zero at initialization (it still trains, as in MindSpore).

    Output: ids.shape + (embedding_size,).

    Example:
        >>> import cadence as ms
        >>> import numpy as np
        >>> emb = ms.nn.Embedding(100, 8, padding_idx=0)
        >>> emb(ms.Tensor(np.array([[0, 5, 7]], np.int32))).shape
        (1, 3, 8)
    """

    def __init__(
        self,
        vocab_size: int,
        embedding_size: int,
        use_one_hot: bool = False,
        embedding_table: Any = "normal",
        dtype: Any = None,
        padding_idx: int | None = None,
    ) -> None:
        super().__init__()
        self.vocab_size = check_positive_int("Embedding", "vocab_size", vocab_size)
        self.embedding_size = check_positive_int(
            "Embedding", "embedding_size", embedding_size
        )
        self.use_one_hot = check_bool("Embedding", "use_one_hot", use_one_hot)
        self.dtype = dtype or _dtype.float32
        table = initializer(embedding_table, (vocab_size, embedding_size), self.dtype)
        if padding_idx is not None:
            if (
                not isinstance(padding_idx, int)  # type: ignore[redundant-expr]
                or isinstance(padding_idx, bool)
                or not 0 <= padding_idx < vocab_size
            ):
                raise ValueError(
                    f"For 'Embedding', the argument 'padding_idx' must be an int in [0, {vocab_size}), but got {padding_idx!r}."
                )
            data = np.array(table._data)
            data[padding_idx] = 0
            table = Tensor(data)
        self.padding_idx = padding_idx
        self.embedding_table = Parameter(table, name="embedding_table")

    def construct(self, ids: Any) -> Tensor:
        """Look the ids up."""
        return embedding(self.embedding_table, ids)

    def extend_repr(self) -> str:
        """Show the sizes and options."""
        return (
            f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, use_one_hot={self.use_one_hot}, "
            f"embedding_table={self.embedding_table!r}, dtype={self.dtype}, padding_idx={self.padding_idx}"
        )
