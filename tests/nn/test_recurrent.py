"""RNN / GRU / LSTM, their cells and Embedding: gradients against finite differences, shapes, errors."""

import numpy as np
import pytest

import cadence as ms
from cadence import nn


def rand(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).normal(size=shape).astype(dtype)


def check_gradients(loss_of, inputs, params, eps=1e-6, rtol=1e-5, atol=1e-7):
    """Compare every analytic gradient (inputs and parameters) with central differences."""
    grads = ms.grad(loss_of, tuple(range(len(inputs))), params)(*inputs)
    analytic = [g.asnumpy() for g in (*grads[0], *grads[1])]
    arrays = [t._data for t in inputs] + [p._data for p in params]
    assert len(analytic) == len(arrays)
    for a, g in zip(arrays, analytic, strict=True):
        numeric = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            old = a[i]
            a[i] = old + eps
            up = float(loss_of(*inputs).asnumpy())
            a[i] = old - eps
            down = float(loss_of(*inputs).asnumpy())
            a[i] = old
            numeric[i] = (up - down) / (2 * eps)
        np.testing.assert_allclose(g, numeric, rtol=rtol, atol=atol)


WEIGHTS = rand(4, 3, 8, seed=9)  # fixed projection of the outputs into a scalar loss


@pytest.mark.parametrize("cls", [nn.RNN, nn.GRU, nn.LSTM])
@pytest.mark.parametrize("with_lengths", [False, True])
def test_two_layer_bidirectional_gradients_match_finite_differences(cls, with_lengths):
    net = cls(2, 4, num_layers=2, bidirectional=True, dtype=ms.float64)
    lengths = ms.Tensor(np.array([4, 2, 3], np.int32)) if with_lengths else None
    is_lstm = cls is nn.LSTM
    x = ms.Tensor(rand(4, 3, 2, seed=1))
    h0 = ms.Tensor(rand(4, 3, 4, seed=2) * 0.5)
    c0 = ms.Tensor(rand(4, 3, 4, seed=3) * 0.5)

    def loss_of(x, h0, c0):
        out, state = net(x, (h0, c0) if is_lstm else h0, lengths)
        h_n, c_n = state if is_lstm else (state, state)
        return (out * ms.Tensor(WEIGHTS)).sum() + (h_n * h_n).sum() + (c_n * 0.5).sum()

    inputs = [x, h0, c0] if is_lstm else [x, h0]
    run = loss_of if is_lstm else (lambda x, h0: loss_of(x, h0, None))
    check_gradients(run, inputs, net.trainable_params())


def test_relu_rnn_without_bias_gradients_match_finite_differences():
    net = nn.RNN(
        3,
        5,
        num_layers=2,
        nonlinearity="relu",
        has_bias=False,
        batch_first=True,
        dtype=ms.float64,
    )
    x = ms.Tensor(rand(2, 4, 3, seed=4))
    check_gradients(lambda x: (net(x)[0] ** 2).sum(), [x], net.trainable_params())


@pytest.mark.parametrize("cls", [nn.RNNCell, nn.GRUCell, nn.LSTMCell])
def test_cell_gradients_match_finite_differences(cls):
    cell = cls(3, 4, dtype=ms.float64)
    x, h, c = (ms.Tensor(rand(2, k, seed=k + 10)) for k in (3, 4, 4))
    if cls is nn.LSTMCell:
        check_gradients(
            lambda x, h, c: sum((t * t).sum() for t in cell(x, (h, c))),
            [x, h, c],
            cell.trainable_params(),
        )
    else:
        check_gradients(
            lambda x, h: (cell(x, h) ** 2).sum(), [x, h], cell.trainable_params()
        )


def test_embedding_gradient_adds_repeated_ids():
    emb = nn.Embedding(5, 3, dtype=ms.float64)
    ids = ms.Tensor(np.array([[1, 4, 1], [0, 1, 4]], np.int32))
    (g,) = ms.grad(
        lambda i: (emb(i) * ms.Tensor(rand(2, 3, 3, seed=5))).sum(),
        None,
        [emb.embedding_table],
    )(ids)
    want = np.zeros((5, 3))
    np.add.at(want, ids.asnumpy().reshape(-1), rand(2, 3, 3, seed=5).reshape(-1, 3))
    np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-12)


def test_embedding_shapes_padding_row_and_init():
    emb = nn.Embedding(6, 4, embedding_table="ones", padding_idx=3)
    table = emb.embedding_table.asnumpy()
    assert (
        table.shape == (6, 4)
        and (table[3] == 0).all()
        and (np.delete(table, 3, 0) == 1).all()
    )
    assert emb(ms.Tensor(np.array([[[3, 1]]], np.int64))).shape == (1, 1, 2, 4)
    assert [p.name for p in emb.get_parameters()] == ["embedding_table"]


def test_lstm_training_dropout_between_layers_only_while_training():
    ms.set_seed(3)
    net = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = ms.Tensor(rand(5, 2, 3, dtype=np.float32))
    net.set_train(False)
    first, second = net(x)[0].asnumpy(), net(x)[0].asnumpy()
    np.testing.assert_array_equal(first, second)
    net.set_train(True)
    assert not np.allclose(net(x)[0].asnumpy(), first)


def test_positions_past_seq_length_output_zero_and_keep_the_state():
    net = nn.GRU(2, 3, bidirectional=True, batch_first=True)
    x = rand(2, 5, 2, dtype=np.float32)
    out, h_n = net(ms.Tensor(x), seq_length=ms.Tensor(np.array([5, 2], np.int32)))
    assert (out.asnumpy()[1, 2:] == 0).all()
    short, h_short = net(ms.Tensor(x[1:, :2]))
    np.testing.assert_allclose(out.asnumpy()[1, :2], short.asnumpy()[0], rtol=1e-6)
    np.testing.assert_allclose(h_n.asnumpy()[:, 1], h_short.asnumpy()[:, 0], rtol=1e-6)


def test_every_parameter_of_a_bidirectional_lstm_gets_a_gradient():
    net = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    x = ms.Tensor(rand(6, 2, 3, dtype=np.float32))
    grads = ms.grad(lambda x: net(x)[0].sum(), None, net.trainable_params())(x)
    assert [g.shape for g in grads] == [p.shape for p in net.trainable_params()]
    assert all(np.abs(g.asnumpy()).sum() > 0 for g in grads)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: nn.LSTM(0, 4), "input_size"),
        (lambda: nn.GRU(3, 4, dropout=1.0), "dropout"),
        (lambda: nn.RNN(3, 4, nonlinearity="gelu"), "nonlinearity"),
        (lambda: nn.RNNCell(3, 4, nonlinearity="sigmoid"), "nonlinearity"),
        (lambda: nn.LSTM(3, 4, bidirectional=1), "bidirectional"),  # type: ignore[arg-type]
        (lambda: nn.Embedding(5, 2, padding_idx=5), "padding_idx"),
        (
            lambda: nn.LSTM(3, 4)(ms.Tensor(np.zeros((2, 3), np.float32))),
            "'x' must be a 3-D",
        ),
        (
            lambda: nn.LSTM(3, 4)(ms.Tensor(np.zeros((2, 1, 5), np.float32))),
            "input_size=3",
        ),
        (
            lambda: nn.LSTM(3, 4)(
                ms.Tensor(np.zeros((2, 1, 3), np.float32)),
                ms.Tensor(np.zeros((1, 1, 4), np.float32)),
            ),
            "tuple of two",
        ),
        (
            lambda: nn.GRU(3, 4)(
                ms.Tensor(np.zeros((2, 1, 3), np.float32)),
                ms.Tensor(np.zeros((2, 1, 4), np.float32)),
            ),
            r"shape \(1, 1, 4\)",
        ),
        (
            lambda: nn.GRU(3, 4)(
                ms.Tensor(np.zeros((2, 1, 3), np.float32)),
                None,
                ms.Tensor(np.array([1.0])),
            ),
            "seq_length",
        ),
        (
            lambda: nn.GRU(3, 4)(
                ms.Tensor(np.zeros((2, 1, 3), np.float32)),
                None,
                ms.Tensor(np.array([3], np.int32)),
            ),
            r"\[0, 2\]",
        ),
        (
            lambda: nn.GRUCell(3, 4)(
                ms.Tensor(np.zeros((2, 3), np.float32)),
                ms.Tensor(np.zeros((3, 4), np.float32)),
            ),
            r"shape \(2, 4\)",
        ),
        (lambda: nn.Embedding(5, 2)(ms.Tensor(np.array([5]))), r"\[0, 5\)"),
        (lambda: nn.Embedding(5, 2)(ms.Tensor(np.array([1.0]))), "integers"),
    ],
)
def test_bad_arguments_raise_naming_them(make, message):
    with pytest.raises((TypeError, ValueError, IndexError), match=message):
        make()


def test_an_id_outside_the_table_raises_mindspores_class_too():
    with pytest.raises(RuntimeError, match=r"\[0, 5\), but got values in \[1, 7\]"):
        nn.Embedding(5, 2)(ms.Tensor(np.array([1, 7], np.int32)))


def test_rnn_nonlinearity_is_keyword_only_as_in_mindspore():
    # MindSpore's RNN passes positional arguments to its base: the 4th is has_bias.
    with pytest.raises(TypeError, match="has_bias"):
        nn.RNN(3, 4, 1, "relu")
    assert nn.RNN(3, 4, 1, True, nonlinearity="relu").mode == "RNN_RELU"


def test_the_docstring_examples_run_and_print_what_they_show():
    import doctest

    from cadence.models import SentimentNet

    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner()
    for obj in (nn.RNN, nn.GRU, nn.LSTM, nn.Embedding, SentimentNet):
        for example in finder.find(obj, obj.__name__, globs={}):
            runner.run(example)
    assert runner.summarize(verbose=False) == (0, 24)
