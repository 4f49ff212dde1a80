"""The CUDA kernel table (`cadence.kernels.cuda_kernels()`): numba.cuda kernels on `DeviceArray`s.

One public function per name in `KERNEL_NAMES`, each with the name and
signature of its `reference` twin, plus `to_device`, `to_host`, `matmul`,
`statistics` / `reset_statistics` (transfer and fallback counters) and
`DeviceArray`, the array type tensors hold on the GPU target. Importing this
package imports `numba.cuda`; only the GPU target and the tests do.

Where things are: `_device` (launch geometry, counters), `_array` (the array
type), `_generic`, `_numpy` and `_indexing` (the kernels behind its numpy methods),
`_matmul` (the tiled matmul), `_dense` (activations, dense, softmax, losses,
optimizers), `_optim` (the adaptive optimizers), `_conv` (convolution, pooling, batch norm),
`_grouped_conv` (direct grouped and depthwise convolution), `_winograd` (3x3 stride-1
convolution through Winograd F(2x2, 3x3)), `_attention` (layer/group norm,
smooth activations, batched matmul), `_recurrent` (recurrent layers, embedding).

Layer rule: imports numpy, numba and `cadence.kernels` only. Within the
package the imports run one way, `_device` <- `_array` <- kernels <- this
file; `_array` reaches its kernels through `bind_operations` below instead of
importing them back.
"""

from __future__ import annotations

from .._names import KERNEL_NAMES
from . import _operations
from ._array import DeviceArray, bind_operations, to_device, to_host
from ._attention import (
    batch_matmul,
    group_norm_backward,
    group_norm_forward,
    layer_norm_backward,
    layer_norm_forward,
    smooth_act_backward,
    smooth_act_forward,
)
from ._conv import (
    avg_pool2d_backward,
    avg_pool2d_forward,
    batch_norm_backward,
    batch_norm_forward,
    batch_norm_residual_backward,
    conv2d_backward,
    conv2d_backward_input,
    conv2d_forward,
    conv2d_phase_backward,
    conv2d_phase_forward,
    conv2d_planar_backward,
    conv2d_planar_forward,
    conv2d_pointwise_backward,
    conv2d_pointwise_forward,
    max_pool2d_backward,
    max_pool2d_forward,
)
from ._dense import (
    adam_update,
    bias_act_backward,
    bias_act_forward,
    dense_backward,
    dense_backward_sgd,
    dense_forward,
    log_softmax_backward,
    log_softmax_forward,
    momentum_update,
    relu_backward,
    relu_forward,
    sgd_update,
    sigmoid_backward,
    sigmoid_forward,
    softmax_backward,
    softmax_cross_entropy_dense,
    softmax_cross_entropy_sparse,
    softmax_forward,
    tanh_backward,
    tanh_forward,
)
from ._device import reset_statistics, statistics
from ._grouped_conv import (
    grouped_conv2d_backward,
    grouped_conv2d_backward_input,
    grouped_conv2d_forward,
)
from ._matmul import matmul
from ._optim import (
    adadelta_update as adadelta_update,
    adagrad_update as adagrad_update,
    adam_amsgrad_update as adam_amsgrad_update,
    adam_weight_decay_update as adam_weight_decay_update,
    asgd_update as asgd_update,
    ftrl_update as ftrl_update,
    lamb_update as lamb_update,
    proximal_adagrad_update as proximal_adagrad_update,
    rmsprop_update as rmsprop_update,
    rprop_update as rprop_update,
)
from ._recurrent import (
    embedding_backward,
    embedding_forward,
    recurrent_backward,
    recurrent_forward,
)
from ._winograd import conv2d_winograd_backward, conv2d_winograd_forward

__all__ = [
    *KERNEL_NAMES,
    "DeviceArray",
    "matmul",
    "reset_statistics",
    "statistics",
    "to_device",
    "to_host",
]

bind_operations(_operations)
