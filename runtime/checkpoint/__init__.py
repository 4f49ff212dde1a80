"""Checkpoint I/O: the `.ckpt` format, save/load, checkpoint snapshots and atomic writes (`cadence.checkpoint`).

Internal: the public names are re-exported by `cadence` (`save_checkpoint`,
`load_checkpoint`, `load_param_into_net`, `CheckpointSnapshot`,
`atomic_write`); import them from there.

Layer rule: imports the compute package (tensors, parameters), `cadence.kernels`
(the host-memory copy kernel) and cadence's errors and utilities. Never the
event bus, the training loop, the callbacks or the command line. See
docs/architecture.md.
"""
