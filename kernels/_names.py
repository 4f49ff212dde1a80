"""The one list of kernel names: what every target's kernel table provides."""

from __future__ import annotations

__all__ = ["KERNEL_NAMES"]

# Every kernel table provides these names, with `reference`'s signatures.
KERNEL_NAMES: tuple[str, ...] = (
    # issue 23 optimizers (kernels/_optim_updates.py)
    "adagrad_update",
    "adam_amsgrad_update",
    "adam_weight_decay_update",
    "lamb_update",
    "rmsprop_update",
    "adam_update",
    "avg_pool2d_backward",
    "avg_pool2d_forward",
    "batch_matmul",
    "batch_norm_backward",
    "batch_norm_forward",
    "bias_act_backward",
    "bias_act_forward",
    "conv2d_backward",
    "conv2d_forward",
    "dense_backward",
    "dense_forward",
    "group_norm_backward",
    "group_norm_forward",
    "layer_norm_backward",
    "layer_norm_forward",
    "embedding_backward",
    "embedding_forward",
    "log_softmax_backward",
    "log_softmax_forward",
    "max_pool2d_backward",
    "max_pool2d_forward",
    "momentum_update",
    "recurrent_backward",
    "recurrent_forward",
    "relu_backward",
    "relu_forward",
    "sgd_update",
    "sigmoid_backward",
    "sigmoid_forward",
    "smooth_act_backward",
    "smooth_act_forward",
    "softmax_backward",
    "softmax_cross_entropy_dense",
    "softmax_cross_entropy_sparse",
    "softmax_forward",
    "tanh_backward",
    "tanh_forward",
)
