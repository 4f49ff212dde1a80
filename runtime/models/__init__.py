"""The model zoo's classic networks, written with MindSpore's cell names (`cadence.models`).

Each network lives in its own module and names its parameters as the MindSpore
model zoo does, so a MindSpore checkpoint of the same network loads with
`load_checkpoint` / `load_param_into_net`.

Layer rule: may import `cadence.nn`, `cadence.ops`, `cadence.common`,
`cadence.compute`, `cadence._errors`, `cadence._util` and `cadence.validation`;
never the bus, the training core, checkpoint I/O or the callbacks. Nothing imports
it but applications (the CLI, tests, benchmarks).
"""

from __future__ import annotations

from ._lstm_classifier import SentimentNet
from ._mobilenet_v2 import MobileNetV2, mobilenet_v2
from ._resnet import ResNet, resnet18
from ._transformer_classifier import TransformerClassifier

__all__ = [
    "MobileNetV2",
    "ResNet",
    "SentimentNet",
    "TransformerClassifier",
    "mobilenet_v2",
    "resnet18",
]
