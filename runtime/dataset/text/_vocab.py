"""`Vocab`: the token <-> id table of MindSpore's `dataset.text`."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from ...validation import check_bool
from .._checks import check_column_list, check_int

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from .._dataset import Dataset

__all__ = ["Vocab"]


def _check_tokens(value: Any, name: str, owner: str) -> list[str]:
    """Return `value` if it is a list of str (None means no tokens)."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be a list of str, but got {value!r}."
        )
    return value


def _with_specials(
    words: list[str], special_tokens: Any, special_first: Any, owner: str
) -> dict[str, int]:
    """Number `words` in order, with `special_tokens` before or after them; no token twice."""
    specials = _check_tokens(special_tokens, "special_tokens", owner)
    check_bool(special_first, "special_first", owner)
    for name, tokens in (("word_list", words), ("special_tokens", specials)):
        seen: set[str] = set()
        repeated = [t for t in tokens if t in seen or seen.add(t)]  # type: ignore[func-returns-value]
        if repeated:
            raise ValueError(
                f"For '{owner}', the argument '{name}' holds {repeated[0]!r} more than once."
            )
    both = sorted(set(words) & set(specials))
    if both:
        raise ValueError(
            f"For '{owner}', 'special_tokens' and the words share {both}: each token needs one id."
        )
    ordered = specials + words if special_first else words + specials
    return {token: index for index, token in enumerate(ordered)}


class Vocab:
    """A table of tokens and their ids, built with `from_list`, `from_dict`, `from_file` or `from_dataset`.

    Example:
        >>> from cadence.dataset import text
        >>> vocab = text.Vocab.from_list(["movie", "good"], special_tokens=["<pad>", "<unk>"])
        >>> vocab.tokens_to_ids(["good", "bad"]), vocab.ids_to_tokens(2)
        ([3, -1], 'movie')
    """

    def __init__(self, table: Mapping[str, int] | None = None) -> None:
        self._ids: dict[str, int] = dict(table or {})
        self._tokens = {index: token for token, index in self._ids.items()}

    @classmethod
    def from_list(
        cls,
        word_list: list[str],
        special_tokens: list[str] | None = None,
        special_first: bool = True,
    ) -> Vocab:
        """Number the words of `word_list` in order; `special_tokens` go first (or last)."""
        words = _check_tokens(word_list, "word_list", "Vocab.from_list")
        if word_list is None:
            raise TypeError(
                "For 'Vocab.from_list', the argument 'word_list' must be a list of str, but got None."
            )
        return cls(
            _with_specials(words, special_tokens, special_first, "Vocab.from_list")
        )

    @classmethod
    def from_dict(cls, word_dict: dict[str, int]) -> Vocab:
        """Use `word_dict` (token -> non-negative id) as it is."""
        table: Any = word_dict  # checked here, whatever the caller's types said
        if not isinstance(table, dict) or not all(
            isinstance(k, str)
            and isinstance(v, int)
            and not isinstance(v, bool)
            and v >= 0
            for k, v in table.items()
        ):
            raise TypeError(
                f"For 'Vocab.from_dict', the argument 'word_dict' must be a dict of str to non-negative int, but got {word_dict!r}."
            )
        return cls(word_dict)

    @classmethod
    def from_file(
        cls,
        file_path: str | Path,
        delimiter: str = "",
        vocab_size: int | None = None,
        special_tokens: list[str] | None = None,
        special_first: bool = True,
    ) -> Vocab:
        """Read one token a line (the text before `delimiter`, when given), the first `vocab_size` lines."""
        owner = "Vocab.from_file"
        if not isinstance(file_path, str | Path):
            raise TypeError(
                f"For '{owner}', the argument 'file_path' must be a str or Path, but got {file_path!r}."
            )
        if not isinstance(delimiter, str):
            raise TypeError(
                f"For '{owner}', the argument 'delimiter' must be a str, but got {delimiter!r}."
            )
        size = (
            None
            if vocab_size is None
            else check_int(vocab_size, "vocab_size", owner, minimum=1)
        )
        path = Path(file_path)
        if not path.is_file():
            raise ValueError(
                f"For '{owner}', the argument 'file_path' must name a file, but got {str(file_path)!r}."
            )
        lines = path.read_text(encoding="utf-8").splitlines()[:size]
        words = [line.split(delimiter)[0] if delimiter else line for line in lines]
        return cls(_with_specials(words, special_tokens, special_first, owner))

    @classmethod
    def from_dataset(
        cls,
        dataset: Dataset,
        columns: str | list[str] | None = None,
        freq_range: tuple[int | None, int | None] | None = None,
        top_k: int | None = None,
        special_tokens: list[str] | None = None,
        special_first: bool = True,
    ) -> Vocab:
        """Count the tokens of `columns` (all by default) over one pass of `dataset`.

        Words are numbered by falling frequency, ties in lexicographic order; only words
        whose count lies in `freq_range` (inclusive, None for open) are kept, then the
        `top_k` most frequent.
        """
        owner = "Vocab.from_dataset"
        from .._dataset import Dataset

        if not isinstance(dataset, Dataset):
            raise TypeError(
                f"For '{owner}', the argument 'dataset' must be a cadence Dataset, but got {dataset!r}."
            )
        names = (
            None if columns is None else check_column_list(columns, "columns", owner)
        )
        low, high = _freq_bounds(freq_range, owner)
        k = None if top_k is None else check_int(top_k, "top_k", owner, minimum=1)
        counts: Counter[str] = Counter()
        for row in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
            for name in names or list(row):
                counts.update(_as_tokens(row[name], owner))
        ranked = sorted(
            (word for word, n in counts.items() if low <= n <= high),
            key=lambda word: (-counts[word], word),
        )
        return cls(_with_specials(ranked[:k], special_tokens, special_first, owner))

    def vocab(self) -> dict[str, int]:
        """Return a copy of the table, token -> id."""
        return dict(self._ids)

    @overload
    def tokens_to_ids(self, tokens: str) -> int: ...
    @overload
    def tokens_to_ids(self, tokens: list[str] | np.ndarray) -> list[int]: ...
    def tokens_to_ids(self, tokens: str | list[str] | np.ndarray) -> int | list[int]:
        """Return the id of a token (-1 if absent), or the list of ids of a list or array of tokens."""
        if isinstance(tokens, str):
            return self._ids.get(tokens, -1)
        if not isinstance(tokens, list | np.ndarray):
            raise TypeError(
                f"For 'Vocab.tokens_to_ids', the argument 'tokens' must be a str, a list of str or a numpy array, but got {tokens!r}."
            )
        return [
            self._ids.get(t, -1)
            for t in _as_tokens(np.asarray(tokens), "Vocab.tokens_to_ids")
        ]

    @overload
    def ids_to_tokens(self, ids: int) -> str: ...
    @overload
    def ids_to_tokens(self, ids: list[int] | np.ndarray) -> list[str]: ...
    def ids_to_tokens(self, ids: int | list[int] | np.ndarray) -> str | list[str]:
        """Return the token of an id ("" if absent), or the list of tokens of a list or array of ids."""
        owner = "Vocab.ids_to_tokens"
        if isinstance(ids, int | np.integer) and not isinstance(ids, bool):
            return self._tokens.get(check_int(int(ids), "ids", owner, minimum=0), "")
        if not isinstance(ids, list | np.ndarray):
            raise TypeError(
                f"For '{owner}', the argument 'ids' must be an int, a list of int or a numpy array, but got {ids!r}."
            )
        values = np.asarray(ids).ravel().tolist()
        return [
            self._tokens.get(check_int(i, "ids", owner, minimum=0), "") for i in values
        ]

    def __len__(self) -> int:
        return len(self._ids)

    def __repr__(self) -> str:
        return f"Vocab({len(self._ids)} tokens)"


def _freq_bounds(value: Any, owner: str) -> tuple[float, float]:
    if value is None:
        return 0, float("inf")
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise TypeError(
            f"For '{owner}', the argument 'freq_range' must be a (min, max) tuple of int or None, but got {value!r}."
        )
    low = 0 if value[0] is None else check_int(value[0], "freq_range", owner, minimum=0)
    high = (
        float("inf")
        if value[1] is None
        else check_int(value[1], "freq_range", owner, minimum=0)
    )
    if low > high:
        raise ValueError(
            f"For '{owner}', the argument 'freq_range' must have min <= max, but got {value!r}."
        )
    return low, high


def _as_tokens(array: Any, owner: str) -> Iterable[str]:
    """The tokens of a numpy string array (bytes are UTF-8), in order."""
    values = np.asarray(array)
    if values.dtype.kind == "S":
        return [t.decode("utf-8") for t in values.ravel().tolist()]
    if values.dtype.kind != "U" and not (values.size == 0 or values.dtype.kind == "O"):
        raise TypeError(
            f"For '{owner}', the tokens must be strings, but got an array of dtype {values.dtype}."
        )
    tokens = values.ravel().tolist()
    if not all(isinstance(t, str) for t in tokens):
        raise TypeError(
            f"For '{owner}', the tokens must be strings, but got {tokens!r}."
        )
    return tokens
