"""Compute kernels per device target (`cadence.kernels`)."""

from __future__ import annotations

__all__: list[str] = []
