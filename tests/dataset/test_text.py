"""`cadence.dataset.text` (Vocab, Lookup, WhitespaceTokenizer) and `transforms.PadEnd`.

The expected values were observed on MindSpore 2.10 with the same calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

import cadence.dataset as ds
from cadence.dataset import text, transforms

if TYPE_CHECKING:
    from pathlib import Path

SPECIALS = ["<pad>", "<unk>"]
ONE_WORD = text.Vocab.from_list(["a"])


def bad(value: Any) -> Any:
    """`value`, typed Any: the wrong-type arguments below are the point of the test."""
    return value


def rows_dataset(rows: list[np.ndarray]) -> ds.Dataset:
    return ds.GeneratorDataset(
        lambda: ((r,) for r in rows), column_names=["text"], shuffle=False
    )


def column(dataset: ds.Dataset) -> list[Any]:
    return [r[0].tolist() for r in dataset.create_tuple_iterator(output_numpy=True)]


# --- Vocab --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("special_first", "expected"),
    [
        (True, {"<pad>": 0, "<unk>": 1, "b": 2, "a": 3, "c": 4}),
        (False, {"b": 0, "a": 1, "c": 2, "<pad>": 3, "<unk>": 4}),
    ],
)
def test_from_list_numbers_words_in_order_with_the_special_tokens(
    special_first: bool, expected: dict[str, int]
) -> None:
    vocab = text.Vocab.from_list(["b", "a", "c"], SPECIALS, special_first)
    assert vocab.vocab() == expected
    assert len(vocab) == 5


def test_tokens_and_ids_convert_both_ways_with_minus_one_and_empty_for_absent() -> None:
    vocab = text.Vocab.from_list(["b", "a", "c"], special_tokens=SPECIALS)
    assert vocab.tokens_to_ids("a") == 3
    assert vocab.tokens_to_ids(["a", "zz"]) == [3, -1]
    assert vocab.tokens_to_ids(np.array(["a", "c"])) == [3, 4]
    assert vocab.ids_to_tokens(2) == "b"
    assert vocab.ids_to_tokens([2, 99]) == ["b", ""]
    assert vocab.ids_to_tokens(np.array([4])) == ["c"]


def test_from_dict_keeps_the_ids() -> None:
    vocab = text.Vocab.from_dict({"x": 0, "y": 3})
    assert vocab.vocab() == {"x": 0, "y": 3}
    assert vocab.ids_to_tokens(3) == "y"


def test_from_file_reads_the_token_before_the_delimiter(tmp_path: Path) -> None:
    path = tmp_path / "vocab.txt"
    path.write_text("hello,1\nworld,2\n\nhello2\n")
    with_special = text.Vocab.from_file(path, delimiter=",", special_tokens=["<s>"])
    assert with_special.vocab() == {
        "<s>": 0,
        "hello": 1,
        "world": 2,
        "": 3,
        "hello2": 4,
    }
    assert text.Vocab.from_file(str(path), ",", vocab_size=1).vocab() == {"hello": 0}


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"columns": ["text"], "special_tokens": SPECIALS},
         {"<pad>": 0, "<unk>": 1, "a": 2, "c": 3, "e": 4, "b": 5, "d": 6}),
        ({"columns": "text", "freq_range": (2, None)}, {"a": 0, "c": 1, "e": 2}),
        ({"top_k": 2, "special_tokens": ["<pad>"], "special_first": False},
         {"a": 0, "c": 1, "<pad>": 2}),
    ],
)  # fmt: skip
def test_from_dataset_ranks_by_count_then_spelling(
    kwargs: dict[str, Any], expected: dict[str, int]
) -> None:
    rows = [
        np.array(["b", "a", "c", "a"]),
        np.array(["c", "d", "a", "e"]),
        np.array(["e"]),
    ]
    assert text.Vocab.from_dataset(rows_dataset(rows), **kwargs).vocab() == expected


VOCAB_ERRORS: list[Any] = [
        (lambda: text.Vocab.from_list(["a", "a"]), ValueError, "'word_list' holds 'a' more than once"),
        (lambda: text.Vocab.from_list(["a"], special_tokens=["a"]), ValueError, r"share \['a'\]"),
        (lambda: text.Vocab.from_list(bad("abc")), TypeError, "'word_list' must be a list of str, but got 'abc'"),
        (lambda: text.Vocab.from_list(["a"], special_first=bad(1)), TypeError, "'special_first' must be a bool"),
        (lambda: text.Vocab.from_dict({"a": -1}), TypeError, "'word_dict' must be a dict of str to non-negative int"),
        (lambda: text.Vocab.from_file("no-such-file.txt"), ValueError, "'file_path' must name a file"),
        (lambda: text.Vocab.from_file("v.txt", vocab_size=0), ValueError, "'vocab_size' must be an int >= 1"),
        (lambda: text.Vocab.from_dataset(bad([["a"]])), TypeError, "'dataset' must be a cadence Dataset"),
        (lambda: text.Vocab.from_dataset(rows_dataset([]), freq_range=(3, 1)), ValueError, "min <= max"),
        (lambda: text.Vocab.from_list(["a"]).ids_to_tokens(-1), ValueError, "'ids' must be an int >= 0"),
        (lambda: text.Vocab.from_list(["a"]).tokens_to_ids(bad(("a",))), TypeError, "'tokens' must be a str, a list"),
        (lambda: text.Vocab.from_dataset(ds.NumpySlicesDataset({"n": [1, 2]})), TypeError, "tokens must be strings"),
    ]  # fmt: skip


# --- Lookup and WhitespaceTokenizer -------------------------------------------------------
def test_lookup_maps_tokens_and_unknowns() -> None:
    vocab = text.Vocab.from_list(["b", "a", "c"], special_tokens=SPECIALS)
    ids = text.Lookup(vocab, unknown_token="<unk>")(np.array(["a", "zz", "c"]))
    assert ids.dtype == np.int32
    assert ids.tolist() == [3, 1, 4]
    wide = text.Lookup(vocab, "<unk>", data_type=np.int64)(np.array([b"a"]))
    assert wide.dtype == np.int64
    assert wide.tolist() == [3]


TEXT_OP_ERRORS: list[Any] = [
        (lambda: text.Lookup(ONE_WORD)(np.array(["a", "zz"])), RuntimeError, "token 'zz' is not in the vocabulary"),
        (lambda: text.Lookup(ONE_WORD, unknown_token="<zz>"), ValueError, "'unknown_token' must be a token of 'vocab'"),
        (lambda: text.Lookup(bad({"a": 0})), TypeError, "'vocab' must be a text.Vocab"),
        (lambda: text.Lookup(ONE_WORD, data_type=str), TypeError, "'data_type' must be a numeric dtype"),
        (lambda: text.Lookup(ONE_WORD)(np.array([1, 2])), TypeError, "tokens must be strings"),
        (lambda: text.WhitespaceTokenizer(with_offsets=True), ValueError, "'with_offsets' must be False"),
        (lambda: text.WhitespaceTokenizer()(np.array(["a b", "c"])), RuntimeError, "must be one string"),
    ]  # fmt: skip


def test_tokenize_lookup_and_pad_in_a_pipeline_of_ragged_rows() -> None:
    sentences = [np.array("hi there  you"), np.array("x"), np.array("you\tthere")]
    vocab = text.Vocab.from_list(["hi", "there", "you"], special_tokens=SPECIALS)
    data = rows_dataset(sentences).map(text.WhitespaceTokenizer(), "text")
    assert column(data) == [["hi", "there", "you"], ["x"], ["you", "there"]]
    pad = transforms.PadEnd([4], pad_value=vocab.tokens_to_ids("<pad>"))
    batched = data.map([text.Lookup(vocab, "<unk>"), pad], "text").batch(3)
    assert column(batched) == [[[2, 3, 4, 0], [1, 0, 0, 0], [4, 3, 0, 0]]]


# --- PadEnd -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("pad_shape", "pad_value", "given", "expected"),
    [
        ([5], 0, [1, 2, 3], [1, 2, 3, 0, 0]),
        ([5], 0, [1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5]),
        ([4], None, [1.0, 2.0], [1.0, 2.0, 0.0, 0.0]),
        ([2, 3], 9, [[1, 2]], [[1, 2, 9], [9, 9, 9]]),
        ([None, 3], 7, [[1], [2]], [[1, 7, 7], [2, 7, 7]]),
        ([4], "<pad>", ["a", "b"], ["a", "b", "<pad>", "<pad>"]),
        ([3], None, ["a"], ["a", "", ""]),
    ],
)
def test_pad_end_pads_or_cuts_each_axis(
    pad_shape: list[int | None], pad_value: Any, given: list[Any], expected: list[Any]
) -> None:
    given_array = np.array(given)
    padded = transforms.PadEnd(pad_shape, pad_value)(given_array)
    assert padded.tolist() == expected
    assert padded.dtype.kind == given_array.dtype.kind


def test_pad_end_on_a_block_of_equal_rows() -> None:
    data = ds.NumpySlicesDataset({"x": np.arange(6).reshape(3, 2)}, shuffle=False)
    assert column(data.map(transforms.PadEnd([3], -1), "x")) == [
        [0, 1, -1],
        [2, 3, -1],
        [4, 5, -1],
    ]


PAD_END_ERRORS: list[Any] = [
        (lambda: transforms.PadEnd(bad(5)), TypeError, "'pad_shape' must be a list of int or None, but got 5"),
        (lambda: transforms.PadEnd([-1]), ValueError, "every length in 'pad_shape' must be >= 0"),
        (lambda: transforms.PadEnd([2], pad_value=bad([0])), TypeError, "'pad_value' must be a number, a str or None"),
        (lambda: transforms.PadEnd([3])(np.array([[1]])), RuntimeError, "needs an input of rank 1"),
        (lambda: transforms.PadEnd([3], "x")(np.array([1])), RuntimeError, "does not suit an input of dtype"),
    ]  # fmt: skip


# --- Concatenate, Slice, Duplicate (the token pipelines' helpers) --------------------------
@pytest.mark.parametrize(
    ("op", "given", "expected"),
    [
        (transforms.Concatenate(0, np.array([0]), np.array([9, 9])), [1, 2], [0, 1, 2, 9, 9]),
        (transforms.Concatenate(prepend=np.array(["[CLS]"]), append=np.array(["[SEP]"])), ["a", "b"], ["[CLS]", "a", "b", "[SEP]"]),
        (transforms.Concatenate(), [1, 2], [1, 2]),
        (transforms.Concatenate(-1, np.array([0])), [1, 2], [0, 1, 2]),
        (transforms.Slice(slice(0, 3)), [0, 1, 2, 3, 4], [0, 1, 2]),
        (transforms.Slice(1), [0, 1, 2, 3, 4], [1]),
        (transforms.Slice([0, 2]), [0, 1, 2, 3, 4], [0, 2]),
        (transforms.Slice(...), [0, 1, 2], [0, 1, 2]),
        (transforms.Slice(None), [0, 1, 2], [0, 1, 2]),
        (transforms.Slice(), [0, 1, 2], [0, 1, 2]),
        (transforms.Slice(slice(0, 1)), [[0, 1, 2], [3, 4, 5]], [[0, 1, 2]]),
        (transforms.Slice(slice(0, 1), slice(1, None)), [[0, 1, 2], [3, 4, 5]], [[1, 2]]),
        (transforms.Slice(slice(-2, None)), [0, 1, 2, 3, 4], [3, 4]),
    ],
)  # fmt: skip
def test_concatenate_and_slice(op: Any, given: list[Any], expected: list[Any]) -> None:
    assert op(np.array(given)).tolist() == expected


def test_concatenate_slice_and_duplicate_in_a_pipeline() -> None:
    rows = ds.NumpySlicesDataset({"x": np.arange(6).reshape(3, 2)}, shuffle=False)
    join = transforms.Concatenate(0, np.array([-1]), np.array([9]))
    joined = rows.map([join, transforms.Slice(slice(0, 3))], "x")
    assert column(joined) == [[-1, 0, 1], [-1, 2, 3], [-1, 4, 5]]
    twice = rows.map(transforms.Duplicate(), "x", ["x", "y"])
    assert twice.get_col_names() == ["x", "y"]
    pairs = [
        (a.tolist(), b.tolist())
        for a, b in twice.create_tuple_iterator(output_numpy=True)
    ]
    assert pairs == [([0, 1], [0, 1]), ([2, 3], [2, 3]), ([4, 5], [4, 5])]


TOKEN_HELPER_ERRORS: list[Any] = [
        (lambda: transforms.Concatenate(1, np.array([0])), ValueError, r"'axis' must be an int in \[-1, 0\]"),
        (lambda: transforms.Concatenate(0, [0]), TypeError, "'prepend' must be a numpy array or None"),
        (lambda: transforms.Concatenate(0, None, np.zeros((1, 1))), ValueError, r"'append' must be 1-D"),
        (lambda: transforms.Concatenate(0, np.array([0]))(np.array([[1, 2]])), RuntimeError, "the input must be 1-D"),
        (lambda: transforms.Concatenate(0, np.array([0.5]))(np.array([1, 2])), RuntimeError, "cannot join float64 values to an input of dtype int64"),
        (lambda: transforms.Slice(bad("a")), TypeError, "every index must be an int, a list of ints, a slice"),
        (lambda: transforms.Slice(0, 0)(np.arange(5)), RuntimeError, "2 indices for an input of 1 axes"),
        (lambda: transforms.Slice(7)(np.arange(5)), RuntimeError, "index 7 is out of range for an axis of length 5"),
        (lambda: transforms.Duplicate()(np.array([1]), np.array([2])), TypeError, "exactly one input column"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("build", "error", "match"),
    VOCAB_ERRORS + TEXT_OP_ERRORS + PAD_END_ERRORS + TOKEN_HELPER_ERRORS,
)
def test_bad_input_is_named(build: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        build()
