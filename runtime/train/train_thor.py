"""MindSpore's `mindspore.train.train_thor` path: `ConvertModelUtils`, which turns a `Model` into a THOR one.

THOR (second-order, Ascend/GPU) is not in cadence. The class is here because
model-zoo training scripts import it at start-up whatever optimizer they use;
converting a model raises an error that says so.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ConvertModelUtils"]


class ConvertModelUtils:
    """Convert a `Model` to train with the THOR optimizer (not available in cadence)."""

    @staticmethod
    def convert_to_thor_model(
        model: Any, network: Any, loss_fn: Any = None, optimizer: Any = None,
        metrics: Any = None, amp_level: str = "O0", loss_scale_manager: Any = None,
        keep_batchnorm_fp32: bool = False,
    ) -> Any:  # fmt: skip
        """Raise NotImplementedError: cadence has no THOR optimizer (`nn.thor`); train with `nn.Momentum` instead."""
        raise NotImplementedError(
            "For 'ConvertModelUtils.convert_to_thor_model', the THOR optimizer is not available in "
            "cadence (nn.thor is missing); train with a first-order optimizer such as nn.Momentum."
        )
