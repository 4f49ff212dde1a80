"""`cb_params`: the attribute dict callbacks read through `RunContext.original_args()`."""

from __future__ import annotations

from typing import Any, final

from ._errors import MissingKeyError

__all__ = ["CallbackParams"]


@final
class CallbackParams(dict[str, Any]):
    """A dict whose keys are also attributes, as MindSpore's `cb_params`.

    Callbacks may add their own keys (`cb_params.my_value = 1`); they persist for
    the whole run. Reading a key that is not set raises `MissingKeyError`, which is
    both a `KeyError` (as in MindSpore) and an `AttributeError` (so `hasattr` works).

    Example:
        >>> p = CallbackParams(cur_step_num=3)
        >>> p.cur_step_num, hasattr(p, "net_outputs")
        (3, False)
    """

    __slots__ = ()

    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError:
            raise MissingKeyError(
                f"`cb_params` has no key {key!r} at this point of the run; "
                f"keys set now: {sorted(self)}. Use `cb_params.get({key!r}, default)` "
                "for keys that exist only in some phases."
            ) from None

    def __setattr__(self, key: str, value: Any) -> None:
        self[key] = value

    def __delattr__(self, key: str) -> None:
        try:
            del self[key]
        except KeyError:
            raise MissingKeyError(
                f"`cb_params` has no key {key!r} to delete."
            ) from None
