"""The model zoo's classic networks, written with MindSpore's cell names (`cadence.models`).

Each network keeps the parameter names of MindSpore's model zoo, so a
checkpoint saved there loads here (`load_checkpoint` + `load_param_into_net`).

Layer rule: may import `cadence.nn`, `cadence.ops`, `cadence.common`,
`cadence.compute`, `cadence._errors`, `cadence._util` and `cadence.validation`;
nothing imports it but applications (the CLI, tests, benchmarks).
"""

from __future__ import annotations

# --- issue 23, convolutional networks (zoo-conv) ---
from ._mobilenet_v2 import MobileNetV2, mobilenet_v2
from ._resnet import ResNet, resnet18

__all__ = ["MobileNetV2", "ResNet", "mobilenet_v2", "resnet18"]
