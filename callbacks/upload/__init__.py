"""Object storage for `CheckpointUploader`: stores, the upload ledger and report, reading checkpoints back.

`_object_store` (`ObjectStore`, `open_store`: S3, GCS, Azure, local
directories), `_ledger` (what was uploaded, kept next to the checkpoints),
`_report` (`UploadReport` and its error and warning), `_remote` (listing and
downloading uploaded checkpoints). Internal: the public names are exported by
`cadence.callbacks`.

Layer rule: cadence's public API only (`cadence`, `cadence.validation`), like
every module of `cadence.callbacks`, and nothing from the callbacks above it.
"""
