"""Built-in callbacks (`cadence.callbacks`), built only on the public `cadence` API.

One module per callback here; what several of them share lives in
subpackages: `checkpoint` (configuration, files, the background writer),
`upload` (object stores, the upload ledger and report, reading uploads back)
and `summary` (TensorBoard histograms and event files). `_monitored` is the
metric watcher of `EarlyStopping` and `ReduceLROnPlateau`.

Layer rule: modules here import cadence's public API only (`cadence`,
`cadence.validation`, `cadence.nn`, ...), never a private `cadence._x`
module, exactly as a third-party callback package would; the runtime never
imports them (`cadence.LossMonitor` loads this package on first use).
"""

from __future__ import annotations

from ._backup_and_restore import BackupAndRestore
from ._checkpoint_uploader import CheckpointUploader
from ._early_stopping import EarlyStopping
from ._history import History
from ._lambda_callback import LambdaCallback
from ._learning_rate_scheduler import LearningRateScheduler
from ._loss_monitor import LossMonitor
from ._model_checkpoint import ModelCheckpoint
from ._monitored import MonitorUnavailableWarning
from ._on_request_exit import OnRequestExit
from ._progress_bar import ProgressBar
from ._reduce_lr_on_plateau import ReduceLROnPlateau
from ._summary_collector import SummaryCollector
from ._time_monitor import TimeMonitor
from .checkpoint._config import CheckpointConfig
from .checkpoint._files import latest_checkpoint
from .checkpoint._warnings import CheckpointWarning
from .upload._credentials import MissingCredentialsError, missing_credentials
from .upload._ledger import default_ledger_path
from .upload._object_store import ChecksumMismatchError, ObjectStore, open_store
from .upload._remote import (
    RemoteCheckpoint,
    download_checkpoint,
    list_remote_checkpoints,
)
from .upload._report import UploadIncompleteError, UploadIncompleteWarning, UploadReport

__all__ = [
    "BackupAndRestore",
    "CheckpointConfig",
    "CheckpointUploader",
    "CheckpointWarning",
    "ChecksumMismatchError",
    "EarlyStopping",
    "History",
    "LambdaCallback",
    "LearningRateScheduler",
    "LossMonitor",
    "MissingCredentialsError",
    "ModelCheckpoint",
    "MonitorUnavailableWarning",
    "ObjectStore",
    "OnRequestExit",
    "ProgressBar",
    "ReduceLROnPlateau",
    "RemoteCheckpoint",
    "SummaryCollector",
    "TimeMonitor",
    "UploadIncompleteError",
    "UploadIncompleteWarning",
    "UploadReport",
    "default_ledger_path",
    "download_checkpoint",
    "latest_checkpoint",
    "list_remote_checkpoints",
    "missing_credentials",
    "open_store",
]


def _show_as_members_of_this_package() -> None:
    # Reprs and tracebacks then say `cadence.callbacks.LossMonitor`, not the private module.
    for name in __all__:
        obj = globals()[name]
        if getattr(obj, "__module__", "").startswith(f"{__name__}."):
            obj.__module__ = __name__
            obj.__qualname__ = name


_show_as_members_of_this_package()
del _show_as_members_of_this_package
