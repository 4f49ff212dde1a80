"""Image operations with MindSpore's names (`cadence.dataset.vision`).

They work on numpy arrays: eagerly on one image (`vision.HWC2CHW()(image)`) or
inside `Dataset.map`, where cadence applies them to many images at once.

Layer rule: as `cadence.dataset`, of which it is a part.
"""

from __future__ import annotations

from ..._util import fixup_module_metadata
from ._ops import HWC2CHW, Normalize, Rescale
from ._resize import Inter, Resize

__all__ = ["HWC2CHW", "Inter", "Normalize", "Rescale", "Resize"]

fixup_module_metadata(__name__, globals())
del fixup_module_metadata
