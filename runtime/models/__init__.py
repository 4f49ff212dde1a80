"""Model-zoo networks written with MindSpore's cell names (`cadence.models`).

Each network lives in its own module and names its parameters as the MindSpore
model zoo does, so a MindSpore checkpoint of the same network loads.

Layer rule: may import `cadence.nn`, `cadence.ops`, `cadence.common`,
`cadence.compute`, `cadence._errors`, `cadence._util` and `cadence.validation`.
"""

from __future__ import annotations

from ._transformer_classifier import TransformerClassifier

__all__ = [
    "TransformerClassifier",
]
