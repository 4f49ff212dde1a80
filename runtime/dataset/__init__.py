"""Datasets with MindSpore's names (`cadence.dataset`)."""

from __future__ import annotations

__all__: list[str] = []
