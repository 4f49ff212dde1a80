"""Built-in callbacks (`cadence.callbacks`), built only on the public `cadence` API."""

from __future__ import annotations

__all__: list[str] = []
