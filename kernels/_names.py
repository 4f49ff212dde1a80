"""The one list of kernel names: what every target's kernel table provides."""

from __future__ import annotations

__all__ = ["KERNEL_NAMES"]

# Every kernel table provides these names, with `reference`'s signatures.
KERNEL_NAMES: tuple[str, ...] = (
    "adam_update",
    "avg_pool2d_backward",
    "avg_pool2d_forward",
    "batch_norm_backward",
    "batch_norm_forward",
    "bias_act_backward",
    "bias_act_forward",
    "conv2d_backward",
    "conv2d_forward",
    "dense_backward",
    "dense_forward",
    "grouped_conv2d_backward",
    "grouped_conv2d_forward",
    "log_softmax_backward",
    "log_softmax_forward",
    "max_pool2d_backward",
    "max_pool2d_forward",
    "momentum_update",
    "relu_backward",
    "relu_forward",
    "sgd_update",
    "sigmoid_backward",
    "sigmoid_forward",
    "softmax_backward",
    "softmax_cross_entropy_dense",
    "softmax_cross_entropy_sparse",
    "softmax_forward",
    "tanh_backward",
    "tanh_forward",
)
