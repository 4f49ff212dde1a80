"""`export(..., file_format="ONNX")`: the file runs in onnxruntime and gives cadence's outputs."""

from __future__ import annotations

import os
import stat
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import cadence as ms
from cadence import Tensor, models, nn, ops
from cadence.train import export as train_export


def rand(*shape: int, seed: int = 0) -> Tensor:
    return Tensor(np.random.default_rng(seed).normal(size=shape).astype(np.float32))


def run_onnx(path: str, *inputs: Tensor) -> list[Any]:
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    return list(
        session.run(None, {n: t.asnumpy() for n, t in zip(names, inputs, strict=True)})
    )


def check(
    net: nn.Cell, *inputs: Tensor, tmp_path: Any, atol: float = 1e-5
) -> onnx.ModelProto:
    """Export `net`, run the file, compare with cadence's outputs in inference mode."""
    path = str(tmp_path / "model")
    mode = net.training
    ms.export(net, *inputs, file_name=path, file_format="ONNX")
    assert net.training == mode  # export runs in inference mode and restores the mode
    net.set_train(False)
    expected = net(*inputs)
    expected = list(expected) if isinstance(expected, tuple) else [expected]
    got = run_onnx(path + ".onnx", *inputs)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e.asnumpy(), rtol=1e-5, atol=atol)
    return onnx.load(path + ".onnx")


def op_types(model: onnx.ModelProto) -> list[str]:
    return [n.op_type for n in model.graph.node]


class LeNet5(nn.Cell):
    """The model zoo's LeNet, with a BatchNorm and a Dropout."""

    def __init__(self, num_class: int = 10, num_channel: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.bn = nn.BatchNorm2d(16)
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, num_class)
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.dropout = nn.Dropout(p=0.5)

    def construct(self, x: Any) -> Any:
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.bn(self.conv2(x))))
        x = self.flatten(x)
        x = self.dropout(self.relu(self.fc1(x)))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def test_lenet_with_trained_batchnorm(tmp_path: Any) -> None:
    ms.set_seed(0)
    net = LeNet5()
    net.set_train(True)
    for seed in range(3):  # moving statistics away from their initial values
        net(rand(4, 1, 32, 32, seed=seed))
    model = check(net, rand(2, 1, 32, 32), tmp_path=tmp_path)
    assert {"Conv", "MaxPool", "Relu", "Gemm", "Reshape"} <= set(op_types(model))


def test_sequential_cell_with_fused_dense_and_every_activation(tmp_path: Any) -> None:
    ms.set_seed(1)
    net = nn.SequentialCell(
        [
            nn.Dense(6, 8),
            nn.ReLU(),
            nn.Dense(8, 8, activation="tanh"),
            nn.Dense(8, 8),
            nn.Sigmoid(),
            nn.BatchNorm1d(8),
            nn.Dense(8, 5),
            nn.LogSoftmax(),
        ]
    )
    model = check(net, rand(3, 6), tmp_path=tmp_path)
    assert {"Gemm", "Relu", "Tanh", "Sigmoid", "LogSoftmax"} <= set(op_types(model))
    check(
        nn.SequentialCell([nn.Dense(4, 3), nn.Softmax()]), rand(2, 4), tmp_path=tmp_path
    )


@pytest.mark.parametrize(
    ("conv", "pool"),
    [
        ({"pad_mode": "same", "stride": 2}, {"pad_mode": "same"}),
        (
            {"pad_mode": "pad", "padding": (1, 2, 0, 1)},
            {"pad_mode": "pad", "padding": 1},
        ),
        (
            {"pad_mode": "valid", "dilation": 2, "has_bias": True},
            {"pad_mode": "pad", "padding": (1, 0)},
        ),
    ],
)
def test_conv_padding_modes_and_pooling(
    conv: dict[str, Any], pool: dict[str, Any], tmp_path: Any
) -> None:
    ms.set_seed(2)
    net = nn.SequentialCell(
        [
            nn.Conv2d(3, 4, 3, **conv),
            nn.MaxPool2d(kernel_size=3, stride=2, **pool),
            nn.AvgPool2d(kernel_size=2, stride=1),
        ]
    )
    check(net, rand(2, 3, 11, 11), tmp_path=tmp_path)


class MindSporeSignatures(nn.Cell):
    """`ops.sum(dim=, keepdim=, dtype=)` and `ops.pad`'s flat widths, cropping and constant fill."""

    def construct(self, x: Any) -> Any:
        padded = ops.pad(x, (1, -1, 2, 0), value=0.5)
        return (
            ops.sum(padded, dim=(1, 2), keepdim=True, dtype=ms.float32)
            + ops.sum(x, 1)[:, None, None]
        )


def test_mindspore_signature_functions_record_the_ops_they_are_made_of(
    tmp_path: Any,
) -> None:
    model = check(MindSporeSignatures(), rand(2, 3, 4), tmp_path=tmp_path)
    assert {"Slice", "Pad", "ReduceSum"} <= set(op_types(model))
    with pytest.raises(
        NotImplementedError, match=r"indexing with .* has no ONNX conversion"
    ):
        ms.export(
            _ReflectPad(),
            rand(2, 4),
            file_name=str(tmp_path / "m"),
            file_format="ONNX",
        )


class _ReflectPad(nn.Cell):
    def construct(self, x: Any) -> Any:
        return ops.pad(x, (1, 1), mode="reflect")


class Residual(nn.Cell):
    """A custom construct mixing layers and operators: residual add, view, concat, mean."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, pad_mode="same", has_bias=True)
        self.relu = nn.ReLU()
        self.head = nn.Dense(4 * 6 * 6 + 4, 3)

    def construct(self, x: Any, scale: Any) -> Any:
        y = self.relu(self.conv(x)) + x
        pooled = ops.mean(y, axis=(2, 3))
        flat = y.view(y.shape[0], -1) * scale
        logits = self.head(ops.concat((flat, pooled), axis=1))
        return logits, ops.sigmoid(logits) - 0.5


def test_custom_cell_with_operators_two_inputs_and_two_outputs(tmp_path: Any) -> None:
    ms.set_seed(3)
    net = Residual()
    model = check(net, rand(2, 4, 6, 6), rand(2, 144, seed=1), tmp_path=tmp_path)
    assert [o.name for o in model.graph.output] == ["output_0", "output_1"]
    assert [i.name for i in model.graph.input] == ["input_0", "input_1"]
    assert {"Add", "Mul", "Concat", "ReduceMean", "Sub"} <= set(op_types(model))


def test_dense_on_three_dimensional_input(tmp_path: Any) -> None:
    ms.set_seed(4)
    check(nn.Dense(5, 2), rand(2, 3, 5), tmp_path=tmp_path)


def test_file_name_gets_onnx_appended_and_the_file_is_read_only(tmp_path: Any) -> None:
    net = nn.Dense(3, 2)
    ms.export(
        net, rand(1, 3), file_name=str(tmp_path / "sub" / "dense"), file_format="ONNX"
    )
    path = tmp_path / "sub" / "dense.onnx"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o400
    ms.export(
        net, rand(1, 3), file_name=str(path), file_format="ONNX"
    )  # replaces it, no ".onnx.onnx"
    assert sorted(os.listdir(tmp_path / "sub")) == ["dense.onnx"]
    train_export(
        net, rand(1, 3).asnumpy(), file_name=str(tmp_path / "np"), file_format="ONNX"
    )
    assert (tmp_path / "np.onnx").exists()


def test_mindir_and_air_name_onnx_and_bad_arguments_are_named(tmp_path: Any) -> None:
    net = nn.Dense(3, 2)
    for fmt in ("MINDIR", "AIR"):
        with pytest.raises(
            ValueError,
            match=rf"file_format='{fmt}'.*cadence exports file_format='ONNX'",
        ):
            ms.export(net, rand(1, 3), file_name=str(tmp_path / "m"), file_format=fmt)
    with pytest.raises(
        ValueError,
        match=r"'file_format' must be one of \['AIR', 'ONNX', 'MINDIR'\], but got 'onnx'",
    ):
        ms.export(net, rand(1, 3), file_name=str(tmp_path / "m"), file_format="onnx")
    with pytest.raises(TypeError, match="'net' must be a Cell"):
        ms.export(
            lambda x: x, rand(1, 3), file_name=str(tmp_path / "m"), file_format="ONNX"
        )
    with pytest.raises(TypeError, match="input 0 is"):
        ms.export(
            net, [1.0, 2.0, 3.0], file_name=str(tmp_path / "m"), file_format="ONNX"
        )
    with pytest.raises(ValueError, match="at least one example input"):
        ms.export(net, file_name=str(tmp_path / "m"), file_format="ONNX")
    assert not list(tmp_path.iterdir())


def test_an_operator_without_conversion_is_named(tmp_path: Any) -> None:
    class ArgMax(nn.Cell):
        def construct(self, x: Any) -> Any:
            return ops.argmax(x, axis=1)

    with pytest.raises(
        NotImplementedError, match=r"'cadence\.ops\.argmax'.*no ONNX conversion"
    ):
        ms.export(
            ArgMax(), rand(2, 3), file_name=str(tmp_path / "m"), file_format="ONNX"
        )

    class Constant(nn.Cell):
        def construct(self, x: Any) -> Any:
            return ops.ones((2, 2))

    with pytest.raises(ValueError, match="does not depend on its inputs"):
        ms.export(
            Constant(), rand(2, 3), file_name=str(tmp_path / "m"), file_format="ONNX"
        )
    # Operators are unwrapped again afterwards.
    assert not hasattr(ops.argmax, "__wrapped__") and not hasattr(
        ops.add, "__wrapped__"
    )


class Slicing(nn.Cell):
    """Basic indexing and stacking, as custom heads write them."""

    def __init__(self) -> None:
        super().__init__()
        self.dense = nn.Dense(4, 6)

    def construct(self, x: Any) -> Any:
        y = self.dense(x[:, 1:5])
        first, rest = y[:, 0], y[..., ::-2]
        return ops.stack((first, y[:, -1], rest[:, 0]), axis=1), rest[None, 1]


def test_indexing_and_stack(tmp_path: Any) -> None:
    ms.set_seed(5)
    model = check(Slicing(), rand(3, 7), tmp_path=tmp_path)
    assert {"Slice", "Concat"} <= set(op_types(model))

    class Fancy(nn.Cell):
        def construct(self, x: Any) -> Any:
            return ops.relu(x)[Tensor(np.array([0, 2]))]

    with pytest.raises(NotImplementedError, match="basic indexing"):
        ms.export(
            Fancy(), rand(3, 2), file_name=str(tmp_path / "m"), file_format="ONNX"
        )


# Grouped, depthwise and transposed convolutions: (cell arguments, input channels).
CONVOLUTIONS = {
    "grouped": (lambda: nn.Conv2d(4, 6, 3, stride=2, group=2, has_bias=True), 4),
    "depthwise x2 dilated": (lambda: nn.Conv2d(4, 8, 3, pad_mode="pad", padding=1, dilation=2, group=4), 4),
    "wide groups": (lambda: nn.Conv2d(18, 4, (3, 1), group=2), 18),
    "transposed same": (lambda: nn.Conv2dTranspose(4, 3, 3, stride=2, has_bias=True), 4),
    "transposed valid dilated": (lambda: nn.Conv2dTranspose(4, 3, (2, 3), stride=(2, 1), pad_mode="valid", dilation=2), 4),
    "transposed pad output_padding": (lambda: nn.Conv2dTranspose(4, 6, 3, stride=2, pad_mode="pad", padding=(1, 0, 2, 1), output_padding=1, group=2), 4),
    "transposed depthwise": (lambda: nn.Conv2dTranspose(4, 8, 3, stride=2, group=4, has_bias=True), 4),
    "transposed wide groups": (lambda: nn.Conv2dTranspose(4, 18, 1, stride=3, group=2), 4),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CONVOLUTIONS))
def test_grouped_and_transposed_convolutions(name: str, tmp_path: Any) -> None:
    ms.set_seed(6)
    make, channels = CONVOLUTIONS[name]
    cell = make()
    model = check(cell, rand(2, channels, 7, 6), tmp_path=tmp_path)
    conv = next(n for n in model.graph.node if n.op_type.startswith("Conv"))
    assert conv.op_type == (
        "ConvTranspose" if isinstance(cell, nn.Conv2dTranspose) else "Conv"
    )
    assert onnx.helper.get_node_attr_value(conv, "group") == cell.group


@pytest.mark.parametrize(
    "make",
    [
        lambda: models.resnet18(10, base_channels=8),
        lambda: models.mobilenet_v2(10, width_mult=0.25, input_size=32),
    ],
    ids=["resnet18", "mobilenet_v2"],
)
def test_model_zoo_networks_run_in_onnxruntime(make: Any, tmp_path: Any) -> None:
    ms.set_seed(7)
    net = make()
    net.set_train(True)
    for seed in range(2):  # moving statistics away from their initial values
        net(rand(4, 3, 32, 32, seed=seed))
    model = check(net, rand(2, 3, 32, 32, seed=9), tmp_path=tmp_path, atol=1e-4)
    groups = [
        onnx.helper.get_node_attr_value(n, "group")
        for n in model.graph.node
        if n.op_type == "Conv"
    ]
    # MobileNetV2's depthwise convolutions are grouped Conv nodes; ResNet's are all plain.
    assert (max(groups) > 1) == isinstance(net, models.MobileNetV2)
