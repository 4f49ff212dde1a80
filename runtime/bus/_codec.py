"""Encoding events to JSON or MessagePack and decoding them back as a tagged union."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import msgspec
import numpy as np

from ._events import Event

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["decode_event", "encode_event", "event_types"]

Format = Literal["json", "msgpack"]


def event_types() -> tuple[type[Event], ...]:
    """Return every `Event` class defined so far, user-defined ones included, in definition order.

    Tags (class names) must be unique in a union; when two classes share a name (a
    class redefined in a notebook, say), the one defined last is used.
    """
    by_tag: dict[str, type[Event]] = {}
    pending: list[type[Event]] = [Event]
    while pending:
        cls = pending.pop(0)
        by_tag[str(cls.__struct_config__.tag)] = cls
        pending.extend(cls.__subclasses__())
    return tuple(by_tag.values())


def _enc_hook(obj: Any) -> Any:
    # Events may carry read-only numpy arrays or numpy scalars as snapshots.
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    raise NotImplementedError(f"cannot encode objects of type {type(obj).__name__!r}")


_json_encoder = msgspec.json.Encoder(enc_hook=_enc_hook)
_msgpack_encoder = msgspec.msgpack.Encoder(enc_hook=_enc_hook)
_decoders: dict[tuple[Format, tuple[type[Event], ...]], Any] = {}


def encode_event(event: Event, *, format: Format = "json") -> bytes:
    """Encode an event as JSON or MessagePack, with its class name in the `"type"` field.

    Example:
        >>> from cadence import TrainEpochBegin
        >>> encode_event(TrainEpochBegin(epoch=1, time_ns=5))
        b'{"type":"TrainEpochBegin","time_ns":5,"rank":0,"epoch":1}'
    """
    if not isinstance(event, Event):
        raise TypeError(
            f"`event` must be a cadence Event, got {event!r} of type {type(event).__name__!r}."
        )
    if format == "json":
        return _json_encoder.encode(event)
    if format == "msgpack":
        return _msgpack_encoder.encode(event)
    raise ValueError(f"`format` must be 'json' or 'msgpack', got {format!r}.")


def decode_event(
    data: bytes | str,
    *,
    format: Format = "json",
    types: Iterable[type[Event]] | None = None,
) -> Event:
    """Decode one event encoded by `encode_event`, validating every field.

    Args:
        data: The encoded bytes.
        format: `"json"` or `"msgpack"`.
        types: The event classes to accept; by default every `Event` subclass defined so far.

    Raises:
        msgspec.ValidationError: The data is not a valid event of one of `types`.
    """
    union = tuple(types) if types is not None else event_types()
    key = (format, union)
    decoder = _decoders.get(key)
    if decoder is None:
        target: Any = union[0] if len(union) == 1 else _union_of(union)
        if format == "json":
            decoder = msgspec.json.Decoder(target)
        elif format == "msgpack":
            decoder = msgspec.msgpack.Decoder(target)
        else:
            raise ValueError(f"`format` must be 'json' or 'msgpack', got {format!r}.")
        _decoders[key] = decoder
    result: Event = decoder.decode(data.encode() if isinstance(data, str) else data)
    return result


def _union_of(types: tuple[type[Event], ...]) -> Any:
    union: Any = types[0]
    for cls in types[1:]:
        union = union | cls
    return union
