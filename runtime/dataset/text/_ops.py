"""Text operations on numpy string arrays: `Lookup` and `WhitespaceTokenizer`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...validation import check_bool
from .._dtypes import to_numpy_dtype
from .._transform import UnaryOperation
from ._vocab import Vocab, _as_tokens

if TYPE_CHECKING:
    from .._block import Array

__all__ = ["Lookup", "WhitespaceTokenizer"]


class Lookup(UnaryOperation):
    """Replace each token by its id in `vocab`.

    Args:
        vocab: A `Vocab`.
        unknown_token: The token whose id stands for tokens missing from `vocab`; it
            must be in `vocab`. With None, a missing token is an error.
        data_type: The dtype of the ids (default int32).

    Raises:
        TypeError: If an argument has the wrong type.
        ValueError: If `unknown_token` is not in `vocab`.
        RuntimeError: When applied, if a token is missing and there is no `unknown_token`.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import text
        >>> vocab = text.Vocab.from_list(["a", "film"], special_tokens=["<unk>"])
        >>> text.Lookup(vocab, unknown_token="<unk>")(np.array(["a", "long", "film"]))
        array([1, 0, 2], dtype=int32)
    """

    def __init__(
        self, vocab: Vocab, unknown_token: str | None = None, data_type: Any = np.int32
    ) -> None:
        if not isinstance(vocab, Vocab):
            raise TypeError(
                f"For 'Lookup', the argument 'vocab' must be a text.Vocab, but got {vocab!r}."
            )
        if unknown_token is not None and not isinstance(unknown_token, str):
            raise TypeError(
                f"For 'Lookup', the argument 'unknown_token' must be a str or None, but got {unknown_token!r}."
            )
        table = vocab.vocab()
        if unknown_token is not None and unknown_token not in table:
            raise ValueError(
                f"For 'Lookup', the argument 'unknown_token' must be a token of 'vocab', but got {unknown_token!r}."
            )
        self.vocab = vocab
        self.unknown_token = unknown_token
        self.data_type = to_numpy_dtype(data_type, "data_type", "Lookup")
        self._table = table
        self._unknown = None if unknown_token is None else table[unknown_token]

    def _apply(self, x: Array, batched: bool) -> Array:
        tokens = _as_tokens(x, "Lookup")
        ids = [self._table.get(t, self._unknown) for t in tokens]
        if self._unknown is None and None in ids:
            missing = next(t for t, i in zip(tokens, ids, strict=True) if i is None)
            raise RuntimeError(
                f"Lookup: the token {missing!r} is not in the vocabulary, and no 'unknown_token' was given."
            )
        result: Array = np.array(ids, dtype=self.data_type).reshape(np.shape(x))
        return result


class WhitespaceTokenizer(UnaryOperation):
    r"""Split a string at runs of whitespace into a 1-D array of tokens.

    Args:
        with_offsets: Must be False: cadence does not return token offsets.

    Raises:
        TypeError: If `with_offsets` is not a bool.
        ValueError: If `with_offsets` is True.
        RuntimeError: When applied, if the input is not one string.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import text
        >>> text.WhitespaceTokenizer()(np.array("a  quiet\tfilm"))
        array(['a', 'quiet', 'film'], dtype='<U5')
    """

    def __init__(self, with_offsets: bool = False) -> None:
        if check_bool(with_offsets, "with_offsets", "WhitespaceTokenizer"):
            raise ValueError(
                "For 'WhitespaceTokenizer', the argument 'with_offsets' must be False on cadence (token offsets are not provided), but got True."
            )
        self.with_offsets = False

    def _apply(self, x: Array, batched: bool) -> Array:
        if x.ndim != 0 or x.dtype.kind not in "US":
            raise RuntimeError(
                f"WhitespaceTokenizer: the input must be one string, but got an array of shape {x.shape} and dtype {x.dtype}."
            )
        sentence = x.item()
        words = (
            sentence.decode("utf-8") if isinstance(sentence, bytes) else sentence
        ).split()
        return np.array(words, dtype=str)

    def _block_capable(self) -> bool:
        return False  # each sentence yields its own number of tokens
