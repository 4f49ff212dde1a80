"""Cells, losses, optimizers and metrics with MindSpore's names (`cadence.nn`)."""

from __future__ import annotations

__all__: list[str] = []
