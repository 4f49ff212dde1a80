import json
from pathlib import Path

import numpy as np
import pytest

import cadence as ms
import cadence.nn as nn

# The real MindSpore checkpoint files (tests/fixtures/mindspore/README.md says how they were made).
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore"


def fixture_net():
    return nn.SequentialCell(
        [nn.Flatten(), nn.Dense(784, 16), nn.ReLU(), nn.Dense(16, 10)]
    )


def test_sequential_names_follow_mindspore():
    net = fixture_net()
    assert [n for n, _ in net.parameters_and_names()] == [
        "1.weight",
        "1.bias",
        "3.weight",
        "3.bias",
    ]
    assert [p.name for p in net.trainable_params()] == [
        "1.weight",
        "1.bias",
        "3.weight",
        "3.bias",
    ]
    assert net[1].weight.shape == (16, 784)


def test_nested_cells_prefix_parameter_names():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.features = nn.SequentialCell(nn.Dense(4, 3), nn.ReLU())
            self.head = nn.Dense(3, 2)
            self.scale = ms.Parameter(np.ones(1, np.float32))

        def construct(self, x):
            return self.head(self.features(x)) * self.scale

    net = Net()
    names = [n for n, _ in net.parameters_and_names()]
    assert names == [
        "scale",
        "features.0.weight",
        "features.0.bias",
        "head.weight",
        "head.bias",
    ]
    assert [p.name for _, p in net.parameters_and_names()] == names
    assert net(ms.Tensor(np.ones((5, 4), np.float32))).shape == (5, 2)


def test_train_network_parameter_names_match_mindspore_checkpoint():
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    files = manifest.get("files", manifest)
    expected = [e["name"] for e in files["train_net.ckpt"]["entries"]]
    net = fixture_net()
    train = nn.TrainOneStepCell(
        nn.WithLossCell(net, nn.CrossEntropyLoss()),
        nn.SGD(net.trainable_params(), learning_rate=0.01),
    )
    params = list(train.get_parameters())
    assert [p.name for p in params] == expected
    by_name = {p.name: p for p in params}
    assert by_name["global_step"].dtype == ms.int32
    assert by_name["global_step"].shape == (1,)
    assert by_name["learning_rate"].shape == ()
    assert float(by_name["learning_rate"].asnumpy()) == pytest.approx(0.01)


def test_set_train_recurses_and_defaults_false():
    net = fixture_net()
    assert net.training is False
    assert net.set_train() is net
    assert all(c.training for _, c in net.cells_and_names())
    net.set_train(False)
    assert not net[1].training
    with pytest.raises(TypeError, match="mode"):
        net.set_train(1)


def test_insert_child_and_param():
    cell = nn.Cell()
    cell.insert_child_to_cell("fc", nn.Dense(2, 2))
    cell.insert_param_to_cell("w", ms.Parameter(np.zeros(2, np.float32)))
    assert [n for n, _ in cell.parameters_and_names()] == ["w", "fc.weight", "fc.bias"]
    with pytest.raises(KeyError, match="child_name"):
        cell.insert_child_to_cell("a.b", nn.ReLU())
    with pytest.raises(TypeError, match="child_cell"):
        cell.insert_child_to_cell("x", 3)  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="param_name"):
        cell.insert_param_to_cell("a.b", ms.Parameter(1.0))


def test_reassigning_attribute_unregisters():
    cell = nn.Cell()
    cell.fc = nn.Dense(2, 2)
    cell.fc = None
    assert list(cell.parameters_and_names()) == []


def test_missing_super_init_is_reported():
    class Bad(nn.Cell):
        def __init__(self):
            self.fc = nn.Dense(2, 2)

    with pytest.raises(AttributeError, match="super"):
        Bad()


def test_construct_required():
    with pytest.raises(NotImplementedError, match="construct"):
        nn.Cell()(1)


def test_untrainable_and_dict():
    bn = nn.BatchNorm1d(3)
    assert {p.name for p in bn.untrainable_params()} == {"mean", "variance"}
    assert [n for n, _ in bn.parameters_and_names()] == [
        "moving_mean",
        "moving_variance",
        "gamma",
        "beta",
    ]
    assert list(nn.Dense(2, 2).parameters_dict()) == ["weight", "bias"]


def test_cell_list():
    cells = nn.CellList([nn.Dense(2, 2), nn.ReLU()])
    assert len(cells) == 2
    assert isinstance(cells[1], nn.ReLU)
    assert [n for n, _ in cells.parameters_and_names()] == ["0.weight", "0.bias"]


def test_apply_visits_children_before_parents_and_returns_the_cell():
    net = nn.SequentialCell(
        [nn.Dense(2, 3), nn.SequentialCell([nn.ReLU(), nn.Dense(3, 1)])]
    )
    order = []

    def init(cell):
        order.append(cell.cls_name)
        if isinstance(cell, nn.Dense):
            cell.weight.set_data(ms.Tensor(np.ones(cell.weight.shape, np.float32)))

    assert net.apply(init) is net
    assert order == ["Dense", "ReLU", "Dense", "SequentialCell", "SequentialCell"]
    assert all(
        (p.asnumpy() == 1).all()
        for p in net.trainable_params()
        if p.name.endswith("weight")
    )
    with pytest.raises(
        TypeError, match=r"'Cell.apply'.*'fn' must be callable, but got 3"
    ):
        net.apply(3)  # type: ignore[arg-type]


class _Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.main = nn.SequentialCell([nn.Dense(2, 2)])

    def construct(self, x):
        return self.main(x)


class _Chain(nn.Cell):
    """Two blocks of one layout under a cell without prefixes: their parameters share names."""

    def __init__(self):
        super().__init__(auto_prefix=False)
        self.first, self.second = _Block(), _Block()

    def construct(self, x):
        return self.second(self.first(x))


def test_first_call_renames_parameters_that_share_a_name_after_their_paths(tmp_path):
    chain = _Chain()
    assert [p.name for p in chain.trainable_params()] == [
        "main.0.weight",
        "main.0.bias",
    ] * 2
    with pytest.raises(
        ValueError,
        match=r"'save_checkpoint'.*two parameters of the network are named 'main.0.weight'",
    ):
        ms.save_checkpoint(chain, str(tmp_path / "chain.ckpt"))
    with pytest.raises(
        ValueError, match=r"'ParameterTuple'.*element 2 is named 'main.0.weight'"
    ):
        nn.SGD(chain.trainable_params(), 0.1)
    chain(
        ms.Tensor(np.ones((1, 2), np.float32))
    )  # MindSpore renames at the first call too
    names = [
        "first.main.0.weight",
        "first.main.0.bias",
        "second.main.0.weight",
        "second.main.0.bias",
    ]
    assert [p.name for p in chain.trainable_params()] == names
    ms.save_checkpoint(chain, str(tmp_path / "chain.ckpt"))
    assert sorted(ms.load_checkpoint(str(tmp_path / "chain.ckpt"))) == sorted(names)
    block = _Block()
    block(ms.Tensor(np.ones((1, 2), np.float32)))
    assert [p.name for p in block.trainable_params()] == [
        "main.0.weight",
        "main.0.bias",
    ]  # unique: kept
