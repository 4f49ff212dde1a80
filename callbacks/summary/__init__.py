"""TensorBoard output for `SummaryCollector`: histograms and the event-file writer.

`_histogram` (bucketed statistics of a tensor) and `_writer` (records,
batches and the event-file sink that runs off the training thread).
Internal: `SummaryCollector` is exported by `cadence.callbacks`.

Layer rule: cadence's public API only (`cadence`, `cadence.validation`), like
every module of `cadence.callbacks`, and nothing from the callbacks above it.
"""
