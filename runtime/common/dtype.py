"""MindSpore's `mindspore.common.dtype` path (`import mindspore.common.dtype as mstype`)."""

from __future__ import annotations

from ..dtype import (
    Type,
    bool_,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)

__all__ = [
    "Type",
    "bool_",
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]
