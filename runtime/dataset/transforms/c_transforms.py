"""`mindspore.dataset.transforms.c_transforms`, the pre-2.0 spelling: the operations of `cadence.dataset.transforms`."""

from __future__ import annotations

from . import Compose, OneHot, PadEnd, TypeCast

__all__ = ["Compose", "OneHot", "PadEnd", "TypeCast"]
