"""The event bus (`cadence.bus`): events, their codec, the bus, subscriptions, workers and statistics.

`_events` (the typed lifecycle events), `_codec` (events to and from JSON /
msgpack), `_bus` (`EventBus`), `_subscription` (`Subscription`), `_workers`
and `_worker_pool` (worker subscribers: queues, hosts, the pool that drains
them), `_statistics` (`BusStatistics`, `SubscriberStatistics`). Internal:
the public names are exported by `cadence`.

Layer rule: this package imports nothing of cadence but its errors
(`cadence._errors`): no tensors, no training loop, no callbacks. Anything
can publish on a bus; the bus knows only events and subscribers.
"""
