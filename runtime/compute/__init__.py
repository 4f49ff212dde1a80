"""Compute: tensors, autograd, `grad`, dtypes, the context and the device targets (`cadence.compute`).

Internal: the public names are re-exported by `cadence` (`Tensor`,
`Parameter`, `grad`, `set_context`, `Target`, ...); import them from there.

Layer rule: imports numpy, `cadence.kernels` (through the targets only, when
a target loads its table), `cadence._errors`, `cadence._util` and
`cadence.ops` / `cadence.common` where a tensor needs an operation or an
initializer. Never the event bus, the training loop, checkpoint I/O or the
command line. See docs/architecture.md.
"""
