"""ONNX export (`cadence.onnx`): `export(net, *inputs, file_name=, file_format="ONNX")` and the tracer behind it.

`_export` (the public `export`, MindSpore's signature) and `_trace` (records a
Cell's forward pass through the functional ops into an ONNX graph). Internal:
`export` is exported by `cadence` and `cadence.train`.

Layer rule: imports the compute package, the operators (`cadence.ops`, whose
functions the tracer wraps), `cadence.nn` (to check for a `Cell`), the atomic
file writer of `cadence.checkpoint` and cadence's errors and utilities. Never
the event bus, the training core, the callbacks or the command line.
"""
