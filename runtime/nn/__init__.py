"""Cells, losses, optimizers, learning-rate schedules and metrics with MindSpore's names (`cadence.nn`).

Layer rule: builds on the compute package and `cadence.ops` (plus
`cadence.common`, `cadence._errors`, `cadence._util`, `cadence.validation`);
never the bus, the training core, checkpoint I/O or the callbacks.
"""

from __future__ import annotations

from .._util import fixup_module_metadata

# MindSpore's submodule paths (`nn.loss.MSELoss`, `from mindspore.nn.optim import Momentum`).
from . import (
    dynamic_lr as dynamic_lr,
    learning_rate_schedule as learning_rate_schedule,
    loss as loss,
    metrics as metrics,
    optim as optim,
)
from ._activation_cells import GELU, Identity, LeakyReLU, PReLU, SiLU
from ._cell import Cell, CellList, SequentialCell
from ._conv import AvgPool2d, Conv2d, MaxPool2d

# --- issue 23, convolutional networks (zoo-conv) ---
from ._conv_variants import Conv1d, Conv2dTranspose
from ._distributed import DistributedGradReducer
from ._embedding import Embedding
from ._lars import LARS
from ._layer_norm import GroupNorm, InstanceNorm2d, LayerNorm
from ._layers import (
    Dense,
    Dropout,
    Flatten,
    LogSoftmax,
    ReLU,
    Sigmoid,
    Softmax,
    Tanh,
    get_activation,
)
from ._loss import (
    CrossEntropyLoss,
    L1Loss,
    LossBase,
    MSELoss,
    SoftmaxCrossEntropyWithLogits,
)
from ._loss_functional import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    FocalLoss,
    HuberLoss,
    KLDivLoss,
    NLLLoss,
    SmoothL1Loss,
)
from ._loss_scale import (
    DynamicLossScaleUpdateCell,
    FixedLossScaleUpdateCell,
    TrainOneStepWithLossScaleCell,
)
from ._metrics import (
    F1,
    MAE,
    MSE,
    ROC,
    Accuracy,
    BleuScore,
    ConfusionMatrix,
    ConfusionMatrixMetric,
    CosineSimilarity,
    Dice,
    Fbeta,
    HausdorffDistance,
    Loss,
    MeanSurfaceDistance,
    Metric,
    OcclusionSensitivity,
    Perplexity,
    Precision,
    Recall,
    RootMeanSquareDistance,
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
    auc,
    get_metric_fn,
    get_metrics,
    names,
    rearrange_inputs,
)
from ._mobile_activations import HSwish, ReLU6
from ._norm import BatchNorm1d, BatchNorm2d
from ._optim import SGD, Adam, Momentum, Optimizer
from ._optim_adaptive import (
    FTRL,
    Adadelta,
    Adagrad,
    AdamWeightDecay,
    Lamb,
    ProximalAdagrad,
    RMSProp,
)
from ._optim_step_size import ASGD, Rprop
from ._pool1d import AvgPool1d, MaxPool1d
from ._porting_cells import AdaptiveMaxPool2d, ClipByNorm
from ._recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNCell
from ._spatial import AdaptiveAvgPool2d, Dropout2d, Pad, PixelShuffle, Upsample
from ._transformer import (
    MultiheadAttention,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from ._wrap import TrainOneStepCell, WithEvalCell, WithLossCell
from .dynamic_lr import (
    cosine_decay_lr,
    exponential_decay_lr,
    inverse_decay_lr,
    natural_exp_decay_lr,
    piecewise_constant_lr,
    polynomial_decay_lr,
    warmup_lr,
)
from .learning_rate_schedule import (
    CosineDecayLR,
    ExponentialDecayLR,
    InverseDecayLR,
    LearningRateSchedule,
    NaturalExpDecayLR,
    PolynomialDecayLR,
    WarmUpLR,
)

__all__ = [
    "F1",
    "GELU",
    "GRU",
    "LSTM",
    "MAE",
    "MSE",
    "RNN",
    "ROC",
    "SGD",
    "Accuracy",
    "Adagrad",
    "Adam",
    "AdamWeightDecay",
    "AvgPool2d",
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "BleuScore",
    "Cell",
    "CellList",
    "ConfusionMatrix",
    "ConfusionMatrixMetric",
    "Conv2d",
    "CosineDecayLR",
    "CosineEmbeddingLoss",
    "CosineSimilarity",
    "CrossEntropyLoss",
    "Dense",
    "Dice",
    "DistributedGradReducer",
    "Dropout",
    "DynamicLossScaleUpdateCell",
    "Embedding",
    "ExponentialDecayLR",
    "Fbeta",
    "FixedLossScaleUpdateCell",
    "Flatten",
    "FocalLoss",
    "GRUCell",
    "GroupNorm",
    "HausdorffDistance",
    "HuberLoss",
    "Identity",
    "KLDivLoss",
    "L1Loss",
    "LSTMCell",
    "Lamb",
    "LayerNorm",
    "LeakyReLU",
    "LearningRateSchedule",
    "LogSoftmax",
    "Loss",
    "LossBase",
    "MSELoss",
    "MaxPool2d",
    "MeanSurfaceDistance",
    "Metric",
    "Momentum",
    "MultiheadAttention",
    "NLLLoss",
    "OcclusionSensitivity",
    "Optimizer",
    "PReLU",
    "Perplexity",
    "Precision",
    "RMSProp",
    "RNNCell",
    "ReLU",
    "Recall",
    "RootMeanSquareDistance",
    "SequentialCell",
    "SiLU",
    "Sigmoid",
    "SmoothL1Loss",
    "Softmax",
    "SoftmaxCrossEntropyWithLogits",
    "Tanh",
    "Top1CategoricalAccuracy",
    "Top5CategoricalAccuracy",
    "TopKCategoricalAccuracy",
    "TrainOneStepCell",
    "TrainOneStepWithLossScaleCell",
    "TransformerEncoder",
    "TransformerEncoderLayer",
    "WithEvalCell",
    "WithLossCell",
    "auc",
    "cosine_decay_lr",
    "exponential_decay_lr",
    "get_activation",
    "get_metric_fn",
    "get_metrics",
    "names",
    "piecewise_constant_lr",
    "rearrange_inputs",
    "warmup_lr",
]

# issue 23, what porting users still met (gaps)
__all__ += ["AdaptiveMaxPool2d", "ClipByNorm"]
# issue 23, convolutional networks (zoo-conv)
__all__ += [
    "AdaptiveAvgPool2d",
    "Conv1d",
    "Conv2dTranspose",
    "Dropout2d",
    "HSwish",
    "Pad",
    "ReLU6",
]

# issue 23, model-zoo scripts (ports): the rest of MindSpore's learning-rate schedules
__all__ += [
    "InverseDecayLR",
    "NaturalExpDecayLR",
    "PolynomialDecayLR",
    "WarmUpLR",
    "inverse_decay_lr",
    "natural_exp_decay_lr",
    "polynomial_decay_lr",
]
# what public scripts stopped at: 1-D pooling, sub-pixel and interpolating upsampling
__all__ += ["AvgPool1d", "InstanceNorm2d", "MaxPool1d", "PixelShuffle", "Upsample"]
# ... and the optimizers they train with
__all__ += ["ASGD", "FTRL", "LARS", "Adadelta", "ProximalAdagrad", "Rprop"]

fixup_module_metadata(__name__, globals())
del fixup_module_metadata
