from __future__ import annotations

import msgspec
import pytest

import cadence
from cadence import (
    Event,
    RunFailed,
    TrainEpochEnd,
    TrainStepEnd,
    decode_event,
    encode_event,
    event_types,
)

LIFECYCLE = [
    f"{phase}{scope}{edge}"
    for phase in ("Train", "Eval")
    for scope in ("", "Epoch", "Step")
    for edge in ("Begin", "End")
]


def test_the_twelve_lifecycle_events_mirror_the_hooks():
    for name in LIFECYCLE:
        cls = getattr(cadence, name)
        assert issubclass(cls, Event)
        hook = "on_" + "".join(
            "_" + c.lower() if c.isupper() else c for c in name
        ).lstrip("_")
        assert callable(getattr(cadence.Callback, hook)), hook


def test_events_are_frozen_snapshots():
    e = TrainStepEnd(epoch=1, step=2, step_in_epoch=2, loss=0.5)
    with pytest.raises(AttributeError):
        e.loss = 1.0  # type: ignore[misc]


def sample_events() -> list[Event]:
    return [
        cadence.TrainBegin(epochs=2, initial_epoch=0, steps_per_epoch=3, time_ns=1),
        cadence.TrainEpochBegin(epoch=1, time_ns=2),
        cadence.TrainStepBegin(epoch=1, step=1, step_in_epoch=1, time_ns=3),
        TrainStepEnd(epoch=1, step=1, step_in_epoch=1, loss=2.5, time_ns=4),
        TrainEpochEnd(
            epoch=1,
            step=3,
            loss=None,
            metrics={"acc": 0.5, "per_class": [0.1, 0.9]},
            time_ns=5,
        ),
        cadence.TrainEnd(epoch=2, step=6, time_ns=6),
        cadence.EvalBegin(epoch=None, steps=2, time_ns=7),
        cadence.EvalEpochBegin(epoch=1, time_ns=8),
        cadence.EvalStepBegin(epoch=1, step=1, time_ns=9),
        cadence.EvalStepEnd(epoch=1, step=1, loss=0.25, time_ns=10),
        cadence.EvalEpochEnd(epoch=1, step=2, time_ns=11),
        cadence.EvalEnd(epoch=1, step=2, metrics={"acc": 1.0}, time_ns=12),
        cadence.StopRequested(phase="train", epoch=1, step=2, time_ns=13),
        cadence.RunCompleted(kind="train", epoch=2, step=6, time_ns=14),
        cadence.RunStopped(kind="fit", epoch=1, step=2, time_ns=15),
        RunFailed(
            kind="eval",
            epoch=None,
            step=1,
            error_type="builtins.ValueError",
            message="x",
            time_ns=16,
        ),
        cadence.RunCancelled(kind="train", epoch=1, step=1, time_ns=17),
    ]


@pytest.mark.parametrize("fmt", ["json", "msgpack"])
def test_every_event_round_trips_as_a_tagged_union(fmt):
    for event in sample_events():
        data = encode_event(event, format=fmt)
        assert decode_event(data, format=fmt) == event


def test_json_carries_the_class_name_as_type():
    data = encode_event(cadence.TrainEpochBegin(epoch=3, time_ns=7))
    assert msgspec.json.decode(data) == {
        "type": "TrainEpochBegin",
        "time_ns": 7,
        "rank": 0,
        "epoch": 3,
    }


def test_events_carry_the_process_rank():
    from cadence.bus._events import set_process_rank

    assert cadence.TrainEpochBegin(epoch=1).rank == 0
    set_process_rank(3)
    try:
        event = cadence.TrainEpochBegin(epoch=1)
        assert event.rank == 3
        assert decode_event(encode_event(event)) == event
    finally:
        set_process_rank(0)
    assert cadence.TrainEpochBegin(epoch=1, rank=5).rank == 5


def test_user_defined_events_join_the_union():
    class LrChanged(Event, frozen=True, kw_only=True):
        lr: float

    assert LrChanged in event_types()
    event = LrChanged(lr=0.125, time_ns=1)
    assert decode_event(encode_event(event)) == event


def test_decoding_validates_fields():
    with pytest.raises(msgspec.ValidationError, match="epoch"):
        decode_event(b'{"type":"TrainEpochBegin","time_ns":1,"epoch":"one"}')


def test_decode_can_restrict_the_accepted_types():
    data = encode_event(cadence.TrainEpochBegin(epoch=1))
    with pytest.raises(msgspec.ValidationError):
        decode_event(data, types=[TrainStepEnd])


def test_bad_format_names_the_argument():
    with pytest.raises(
        ValueError, match="`format` must be 'json' or 'msgpack', got 'xml'"
    ):
        encode_event(cadence.TrainEpochBegin(epoch=1), format="xml")  # type: ignore[arg-type]


def test_numpy_snapshots_encode():
    import numpy as np

    class WithArray(Event, frozen=True, kw_only=True):
        values: object

    data = encode_event(WithArray(values=np.arange(3), time_ns=0))
    assert msgspec.json.decode(data)["values"] == [0, 1, 2]


def test_terminal_events_share_a_base():
    for name in ("RunCompleted", "RunStopped", "RunFailed", "RunCancelled"):
        assert issubclass(getattr(cadence, name), cadence.RunEnded)


def test_eval_event_is_the_base_of_the_six_evaluation_events_and_they_round_trip():
    evals = [getattr(cadence, n) for n in LIFECYCLE if n.startswith("Eval")]
    assert all(issubclass(cls, cadence.EvalEvent) for cls in evals)
    assert not any(
        issubclass(getattr(cadence, n), cadence.EvalEvent)
        for n in LIFECYCLE
        if n.startswith("Train")
    )
    event = cadence.EvalEnd(epoch=None, step=3, metrics={"acc": 0.5}, depth=1)
    for fmt in ("json", "msgpack"):
        assert decode_event(encode_event(event, format=fmt), format=fmt) == event
