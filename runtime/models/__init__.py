"""The model zoo's classic networks, written with MindSpore's cell names (`cadence.models`).

Parameter names are the MindSpore model zoo's, so a MindSpore checkpoint of the
same network loads with `load_checkpoint` / `load_param_into_net`.

Layer rule: may import `cadence.nn`, `cadence.ops`, `cadence.common`,
`cadence.compute`, `cadence._errors`, `cadence._util` and `cadence.validation`;
never the bus, the training core, checkpoint I/O or the callbacks.
"""

from __future__ import annotations

from ._lstm_classifier import SentimentNet

__all__ = [
    "SentimentNet",
]
