"""What the checkpointing callbacks share (`ModelCheckpoint`, `BackupAndRestore`, `OnRequestExit`).

`_config` (`CheckpointConfig`), `_files` (file names, directories, the
commit pointer), `_writer` (snapshots written off the training thread) and
`_warnings` (`CheckpointWarning`). Internal: the public names are exported
by `cadence.callbacks`.

Layer rule: cadence's public API only (`cadence`, `cadence.validation`), like
every module of `cadence.callbacks`, and nothing from the callbacks above it.
"""
