"""Built-in callbacks (`cadence.callbacks`), built only on the public `cadence` API."""

from __future__ import annotations

from cadence._util import fixup_module_metadata

from ._backup_and_restore import BackupAndRestore
from ._checkpoint_config import CheckpointConfig
from ._checkpoint_uploader import CheckpointUploader
from ._checkpoint_warnings import CheckpointWarning
from ._early_stopping import EarlyStopping
from ._history import History
from ._lambda_callback import LambdaCallback
from ._learning_rate_scheduler import LearningRateScheduler
from ._loss_monitor import LossMonitor
from ._model_checkpoint import ModelCheckpoint
from ._monitored import MonitorUnavailableWarning
from ._object_store import ChecksumMismatchError, ObjectStore, open_store
from ._on_request_exit import OnRequestExit
from ._progress_bar import ProgressBar
from ._reduce_lr_on_plateau import ReduceLROnPlateau
from ._remote_checkpoints import (
    RemoteCheckpoint,
    download_checkpoint,
    list_remote_checkpoints,
)
from ._store_credentials import MissingCredentialsError, missing_credentials
from ._summary_collector import SummaryCollector
from ._time_monitor import TimeMonitor
from ._upload_report import UploadIncompleteError, UploadIncompleteWarning, UploadReport

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
    "download_checkpoint",
    "list_remote_checkpoints",
    "missing_credentials",
    "open_store",
]

fixup_module_metadata("cadence.callbacks", globals())
del fixup_module_metadata
