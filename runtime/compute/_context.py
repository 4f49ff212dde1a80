"""Global execution context: `set_context`, `get_context`, `set_seed` and the random streams.

Both MindSpore modes run eagerly here; `mode` is recorded so scripts that set
and read it behave as they do under MindSpore.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any, Final

import numpy as np

from ._context_keys import CONTEXT_KEYS, READ_ONLY_KEYS, check_context_value
from ._targets import Target, get_target

__all__ = [
    "COMPATIBLE",
    "GRAPH_MODE",
    "LAX",
    "PYNATIVE_MODE",
    "STRICT",
    "current_target",
    "get_context",
    "get_seed",
    "rng",
    "seeded_rng",
    "set_context",
    "set_device",
    "set_seed",
]

GRAPH_MODE: Final = 0
PYNATIVE_MODE: Final = 1
# `set_context(jit_syntax_level=...)`'s values: recorded only, cadence has no graph syntax to restrict.
STRICT: Final = 0
COMPATIBLE: Final = 1
LAX: Final = 2

# Every key MindSpore 2.x documents, with its default (see `_context_keys`); the
# read-only keys are only for `get_context`.
_DEFAULTS: Final[dict[str, Any]] = {
    **{key: default for key, (default, _) in CONTEXT_KEYS.items()},
    **READ_ONLY_KEYS,
}

_lock = threading.RLock()
_values: dict[str, Any] = dict(_DEFAULTS)
_target: Target | None = None
_seed: int | None = None
_streams: dict[str, np.random.Generator] = {}


def set_context(**kwargs: Any) -> None:
    """Set context attributes, as `mindspore.set_context`.

    Args:
        **kwargs: `mode` (`GRAPH_MODE` or `PYNATIVE_MODE`; both run eagerly),
            `device_target` (`"CPU"`, `"GPU"`, `"Ascend"` or a plugin's target,
            case-insensitive; fails at once if the target cannot run here),
            `runtime_num_threads` (threads BLAS and kernels may use together),
            and the other keys MindSpore 2.x documents (`device_id`, `save_graphs`,
            `max_call_depth`, `enable_graph_kernel`, ...), which are type-checked,
            recorded for `get_context` and otherwise ignored.

    Raises:
        ValueError: For an unknown key or a bad mode.
        TypeError: For a value of the wrong type (`device_id="0"`).
        TargetUnavailableError: (a ValueError) For an unknown or unavailable target.

    Example:
        >>> import cadence as ms
        >>> ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    """
    global _target
    for key, value in kwargs.items():
        check_context_value(key, value)
        if key == "mode" and (
            isinstance(value, bool) or value not in (GRAPH_MODE, PYNATIVE_MODE)
        ):
            raise ValueError(
                f"For 'set_context', `mode` must be GRAPH_MODE (0) or PYNATIVE_MODE (1), but got {value!r}."
            )
        if key == "runtime_num_threads" and (
            not isinstance(value, int) or isinstance(value, bool) or value < 1
        ):
            raise ValueError(
                f"For 'set_context', `runtime_num_threads` must be a positive int, but got {value!r}."
            )
    with _lock:
        if "device_target" in kwargs:
            target = get_target(kwargs["device_target"])
            _target = target
            kwargs = {**kwargs, "device_target": target.name}
        _values.update(kwargs)
        if kwargs.get("runtime_num_threads") is not None:
            current_target().configure_threads(kwargs["runtime_num_threads"])


def set_device(device_target: str, device_id: int | None = None) -> None:
    """Choose the device to compute on, as MindSpore 2.5+'s `mindspore.set_device`.

    The same as `set_context(device_target=..., device_id=...)` (`device_id` left as it
    is when None). `device_target` is "CPU", "GPU", "Ascend" or a plugin's target;
    unlike MindSpore, cadence also accepts it in lower case, as `set_context` does.

    Raises:
        TypeError: If `device_target` is not a str or `device_id` not an int or None.
        ValueError: If `device_id` is negative.
        TargetUnavailableError: (a ValueError) For an unknown target or one that cannot
            run here (the message says what is missing).

    Example:
        >>> import cadence as ms
        >>> ms.set_device("CPU")
        >>> ms.get_context("device_target")
        'CPU'
    """
    if not isinstance(device_target, str):
        raise TypeError(
            f"For 'set_device', the argument 'device_target' must be a str such as 'CPU', "
            f"but got {device_target!r} of type {type(device_target).__name__!r}."
        )
    if device_id is None:
        set_context(device_target=device_target)
        return
    given: Any = device_id  # checked at run time: callers may pass anything
    if not isinstance(given, int) or isinstance(given, bool):
        raise TypeError(
            f"For 'set_device', the argument 'device_id' must be an int >= 0 or None, "
            f"but got {device_id!r} of type {type(device_id).__name__!r}."
        )
    if device_id < 0:
        raise ValueError(
            f"For 'set_device', the argument 'device_id' must be an int >= 0 or None, but got {device_id!r}."
        )
    set_context(device_target=device_target, device_id=device_id)


def get_context(attr_key: str) -> Any:
    """Return the value of one context attribute, as `mindspore.get_context`.

    Raises:
        ValueError: If `attr_key` is not a context attribute.
    """
    if attr_key not in _values:
        raise ValueError(
            f"For 'get_context', the attribute {attr_key!r} is not supported; valid keys: {sorted(_values)}."
        )
    return _values[attr_key]


def current_target() -> Target:
    """Return the target compute runs on (resolved from `device_target`)."""
    global _target
    target = _target
    if target is None:
        with _lock:
            if _target is None:
                _target = get_target(_values["device_target"])
            target = _target
    return target


def set_seed(seed: int) -> None:
    """Seed every random source cadence uses: parameter init, shuffling and dropout.

    Each consumer draws from its own stream (see `rng`), derived from `seed` and
    the stream's name, so adding dropout does not change the shuffle order.

    Raises:
        TypeError: If `seed` is not an int.
        ValueError: If `seed` is negative.
    """
    global _seed
    if not isinstance(seed, int) or isinstance(seed, bool):  # type: ignore[redundant-expr]
        raise TypeError(f"For 'set_seed', `seed` must be an int, but got {seed!r}.")
    if seed < 0:
        raise ValueError(
            f"For 'set_seed', `seed` must be non-negative, but got {seed!r}."
        )
    with _lock:
        _seed = seed
        _streams.clear()


def get_seed() -> int | None:
    """Return the seed given to `set_seed`, or None if none was set."""
    return _seed


def rng(stream: str = "global") -> np.random.Generator:
    """Return the random generator of a named stream (`"init"`, `"dropout"`, `"shuffle"`, ...).

    The generator is created on first use: from the `set_seed` seed and the
    stream's name when a seed was set, from OS entropy otherwise. `set_seed`
    resets every stream.
    """
    gen = _streams.get(stream)
    if gen is None:
        with _lock:
            gen = _streams.get(stream)
            if gen is None:
                if _seed is None:
                    gen = np.random.default_rng()
                else:
                    gen = np.random.default_rng(_seed_words(stream, _seed))
                _streams[stream] = gen
    return gen


def seeded_rng(stream: str, seed: int, seed2: int = 0) -> np.random.Generator:
    """Return the generator of an op given its own `seed` (and `seed2`), as MindSpore's ops take them.

    It depends only on the op's seeds and the stream's name, not on the `set_seed`
    seed (MindSpore's explicit op seed decides alone too); `set_seed` restarts it.
    """
    key = f"{stream} seed={seed},{seed2}"
    gen = _streams.get(key)
    if gen is None:
        with _lock:
            gen = _streams.setdefault(
                key, np.random.default_rng(_seed_words(stream, seed, seed2))
            )
    return gen


def _seed_words(stream: str, *seeds: int) -> list[int]:
    return [
        *seeds,
        int.from_bytes(hashlib.sha256(stream.encode()).digest()[:8], "little"),
    ]
