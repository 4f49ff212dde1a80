"""The training core (`cadence.training`): `Model`, the run spec, the loop, callbacks and run handles.

`_model` (`Model`: validates its arguments into one `_run_spec.RunSpec`),
`_loop` (`Run`: the loop, read top-down), `_run_control` and `_run_context`
(stop and resume; `RunContext`), `_cb_params` (`cb_params`), `_callback` and
`_callback_bridge` (`Callback` and how its hooks subscribe to the bus),
`_loss_value`, and `_run_handle` / `_run_events` / `_run_progress` (runs
started in the background: `start_run`, `RunHandle`). Internal: the public
names are exported by `cadence`.

Layer rule: imports the event bus (`cadence.bus`), the compute package,
checkpoint I/O (`cadence.checkpoint`), `cadence.validation`, cadence's errors
and utilities, and `cadence.nn` where `Model` builds MindSpore's wrapper cells
(`WithLossCell`, `TrainOneStepCell`) and metrics. Never the callbacks package,
the command line or the service; nothing below it (bus, compute, checkpoint,
kernels) imports it. See docs/architecture.md.
"""
