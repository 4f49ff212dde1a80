"""Random unshuffled pipelines agree with a plain-Python model of MindSpore's semantics.

The model works on lists of row values; the pipelines run over every kind of source
(random-access arrays, a map-style generator, a streaming generator), so the block,
access and stream paths of every operation are compared with the same oracle.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, strategies as st

import cadence
import cadence.dataset as ds
from cadence.testing import constant_network

Step = tuple[str, int, bool]

steps = st.lists(
    st.tuples(
        st.sampled_from(["batch", "repeat", "take", "skip", "map", "vmap"]),
        st.integers(1, 5),
        st.booleans(),
    ),
    max_size=5,
)


def source(kind: str, n: int) -> ds.Dataset:
    values = np.arange(n, dtype=np.int64)
    if kind == "slices":
        return ds.NumpySlicesDataset({"v": values}, shuffle=False)
    if kind == "indexable":
        return ds.GeneratorDataset(list(values), "v", shuffle=False)
    return ds.GeneratorDataset(lambda: iter(values.tolist()), "v")


class InconsistentBatchError(Exception):
    """The model's verdict: a batch would hold rows of different shapes."""


def shape(value: Any) -> tuple[int, ...]:
    return (len(value), *shape(value[0])) if isinstance(value, list) else ()


def model(n: int, pipeline: list[Step]) -> list[Any]:
    """MindSpore's semantics over Python lists (rows are ints, batches are lists)."""
    rows: list[Any] = list(range(n))
    for op, k, flag in pipeline:
        if op == "batch":
            rows = [rows[i : i + k] for i in range(0, len(rows), k)]
            if flag and rows and len(rows[-1]) < k:
                rows.pop()
            if any(len({shape(r) for r in batch}) > 1 for batch in rows):
                raise InconsistentBatchError
        elif op == "repeat":
            rows = rows * k
        elif op == "take":
            rows = rows[:k]
        elif op == "skip":
            rows = rows[k:]
        else:
            rows = _nested(rows, lambda v: v * 2 + 1)
    return rows


def _nested(value: Any, fn: Any) -> Any:
    return [_nested(v, fn) for v in value] if isinstance(value, list) else fn(value)


def build(dataset: ds.Dataset, pipeline: list[Step]) -> ds.Dataset:
    for op, k, flag in pipeline:
        if op == "batch":
            dataset = dataset.batch(k, drop_remainder=flag)
        elif op == "repeat":
            dataset = dataset.repeat(k)
        elif op == "take":
            dataset = dataset.take(k)
        elif op == "skip":
            dataset = dataset.skip(k)
        elif op == "map":
            dataset = dataset.map(lambda v: v * 2 + 1)  # a Python callable: per row
        else:
            dataset = dataset.map(
                ds.transforms.Compose(
                    [ds.vision.Rescale(2, 1), ds.transforms.TypeCast(np.int64)]
                )
            )
    return dataset


@given(
    kind=st.sampled_from(["slices", "indexable", "stream"]),
    n=st.integers(1, 12),
    pipeline=steps,
)
def test_pipelines_match_the_reference(kind, n, pipeline):
    dataset = build(source(kind, n), pipeline)
    try:
        expected = model(n, pipeline)
    except InconsistentBatchError:
        with pytest.raises(RuntimeError, match="Inconsistent batch"):
            list(dataset)
        return
    got = [row[0].tolist() for row in dataset.create_tuple_iterator(output_numpy=True)]
    assert got == expected
    assert dataset.get_dataset_size() == len(expected)


@given(
    n=st.integers(2, 40),
    buffer=st.integers(2, 50),
    seed=st.integers(0, 2**32 - 1),
    batch=st.integers(1, 7),
)
def test_shuffles_are_permutations_with_equal_results_on_every_source(
    n, buffer, seed, batch
):
    results = []
    for kind in ("slices", "indexable", "stream"):
        ds.config.set_seed(seed)
        data = source(kind, n).map(lambda v: v * 3).shuffle(buffer).batch(batch)
        rows = [
            row[0].tolist() for row in data.create_tuple_iterator(output_numpy=True)
        ]
        assert sorted(v for b in rows for v in b) == [3 * i for i in range(n)]
        results.append(rows)
    # Random-access pipelines shuffle indices, streaming ones shuffle rows; same seed, same
    # buffer algorithm, so both see the same order.
    assert results[0] == results[1] == results[2]


def test_a_model_trains_over_a_cadence_dataset():
    seen: list[Any] = []

    class Record(cadence.Callback):
        def on_train_step_begin(self, run_context):
            params = run_context.original_args()
            seen.append((params.batch_num, params.train_dataset_element))

    data = ds.NumpySlicesDataset(
        {"x": np.zeros((10, 3), np.float32), "y": np.arange(10, dtype=np.int32)}
    ).batch(4)
    cadence.Model(constant_network(0.5)).train(2, data, callbacks=[Record()])
    assert len(seen) == 6
    assert {num for num, _ in seen} == {3}
    element = seen[0][1]
    assert isinstance(element, list)
    assert [type(t) for t in element] == [cadence.Tensor, cadence.Tensor]
    assert element[0].shape == (4, 3)
    epoch1 = np.concatenate([e[1].asnumpy() for _, e in seen[:3]])
    epoch2 = np.concatenate([e[1].asnumpy() for _, e in seen[3:]])
    assert sorted(epoch1) == sorted(epoch2) == list(range(10))
