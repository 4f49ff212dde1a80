"""Cells, losses, optimizers, learning-rate schedules and metrics with MindSpore's names (`cadence.nn`)."""

from __future__ import annotations

from .._util import fixup_module_metadata
from ._cell import Cell, CellList, SequentialCell
from ._conv import AvgPool2d, Conv2d, MaxPool2d
from ._distributed import DistributedGradReducer
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
from ._lr import (
    CosineDecayLR,
    ExponentialDecayLR,
    LearningRateSchedule,
    cosine_decay_lr,
    exponential_decay_lr,
    piecewise_constant_lr,
    warmup_lr,
)
from ._metrics import (
    F1,
    Accuracy,
    Fbeta,
    Loss,
    Metric,
    Precision,
    Recall,
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
    get_metric_fn,
)
from ._norm import BatchNorm1d, BatchNorm2d
from ._optim import SGD, Adam, Momentum, Optimizer
from ._wrap import TrainOneStepCell, WithEvalCell, WithLossCell

__all__ = [
    "F1",
    "SGD",
    "Accuracy",
    "Adam",
    "AvgPool2d",
    "BatchNorm1d",
    "BatchNorm2d",
    "Cell",
    "CellList",
    "Conv2d",
    "CosineDecayLR",
    "CrossEntropyLoss",
    "Dense",
    "DistributedGradReducer",
    "Dropout",
    "ExponentialDecayLR",
    "Fbeta",
    "Flatten",
    "L1Loss",
    "LearningRateSchedule",
    "LogSoftmax",
    "Loss",
    "LossBase",
    "MSELoss",
    "MaxPool2d",
    "Metric",
    "Momentum",
    "Optimizer",
    "Precision",
    "ReLU",
    "Recall",
    "SequentialCell",
    "Sigmoid",
    "Softmax",
    "SoftmaxCrossEntropyWithLogits",
    "Tanh",
    "Top1CategoricalAccuracy",
    "Top5CategoricalAccuracy",
    "TopKCategoricalAccuracy",
    "TrainOneStepCell",
    "WithEvalCell",
    "WithLossCell",
    "cosine_decay_lr",
    "exponential_decay_lr",
    "get_activation",
    "get_metric_fn",
    "piecewise_constant_lr",
    "warmup_lr",
]

fixup_module_metadata(__name__, globals())
del fixup_module_metadata
