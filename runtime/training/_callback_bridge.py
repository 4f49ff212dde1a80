"""Turning a list of `Callback` objects into bus subscriptions, and their finalization."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeGuard

from .._errors import CadenceWarning
from ..bus import _events as ev
from ._callback import LEGACY_HOOKS, NEW_HOOKS, Callback
from ._cb_params import CallbackParams
from ._run_context import RunContext, loop_context

if TYPE_CHECKING:
    from contextlib import ExitStack

    from ..bus._bus import EventBus
    from ..bus._subscription import Subscription
    from ._run_control import RunControl

__all__ = [
    "CallbackSet",
    "LegacyHookWarning",
    "effective_hook",
    "normalize_callbacks",
]


class LegacyHookWarning(CadenceWarning):
    """A custom callback defines MindSpore's deprecated hook names (`step_end`, ...)."""


# Hook name -> event class: the event is the hook's name without `on_`, in PascalCase.
HOOK_EVENTS: dict[str, type[ev.Event]] = {
    hook: getattr(
        ev, "".join(part.title() for part in hook.removeprefix("on_").split("_"))
    )
    for hook in NEW_HOOKS
}
# Hook name -> the legacy name its default body calls.
LEGACY_OF: dict[str, str] = {hook: hook.split("_", 2)[-1] for hook in NEW_HOOKS}
TRAIN_HOOKS = tuple(h for h in NEW_HOOKS if h.startswith("on_train_"))
EVAL_HOOKS = tuple(h for h in NEW_HOOKS if h.startswith("on_eval_"))
_KNOWN = set(NEW_HOOKS) | set(LEGACY_HOOKS) | {"on_run_failed", "on_run_ended"}


def normalize_callbacks(callbacks: object) -> list[Callback]:
    """Return `callbacks` (None, one Callback, or an iterable of them) as a list; TypeError otherwise."""
    if callbacks is None:
        return []
    if isinstance(callbacks, Callback):
        return [callbacks]
    if _is_callback_class(callbacks) or (
        not isinstance(callbacks, Iterable) or isinstance(callbacks, str | bytes)
    ):
        # MindSpore wraps it into a list and fails on the list's element: same class and start.
        raise _not_a_callback(
            "`callbacks`", callbacks, "neither a Callback nor a list of them"
        )
    items: list[Any] = list(callbacks)
    for index, item in enumerate(items):
        if not isinstance(item, Callback):
            raise _not_a_callback(f"`callbacks[{index}]`", item, "")
    return items


def _not_a_callback(where: str, value: object, what: str) -> TypeError:
    """MindSpore's error class and first sentence, then what `value` is and what to do."""
    if _is_callback_class(value):
        detail = f"the class {value.__name__} itself, not an instance of it. Pass `{value.__name__}()`."
    else:
        detail = (
            f"{value!r} of type {type(value).__name__!r}{', ' + what if what else ''}. "
            "Subclass `cadence.Callback`, or subscribe plain functions with `model.bus.subscribe`."
        )
    return TypeError(
        "When the 'callbacks' is a list, the elements in 'callbacks' must be Callback functions: "
        f"{where} is {detail}"
    )


def _is_callback_class(value: object) -> TypeGuard[type[Callback]]:
    return isinstance(value, type) and issubclass(value, Callback)


def _overrides(cb: Callback, name: str) -> bool:
    if name in getattr(
        cb, "__dict__", {}
    ):  # set on the instance, as LambdaCallback does
        return True
    return getattr(type(cb), name, None) is not getattr(Callback, name)


def effective_hook(cb: Callback, hook: str) -> Callable[[RunContext], Any] | None:
    """Return what calling `cb.<hook>` really runs, or None when that is a no-op.

    An overridden hook runs as is; otherwise the base class's default body would
    call the legacy alias, so an overridden alias is called directly (one frame less).
    """
    if _overrides(cb, hook):
        fn: Callable[[RunContext], Any] = getattr(cb, hook)
        return fn
    legacy = LEGACY_OF[hook]
    if _overrides(cb, legacy):
        fn = getattr(cb, legacy)
        return fn
    return None


def warn_unknown_hooks(cb: Callback) -> None:
    """Warn about `on_*` methods that look like hooks but match none (`on_train_stepend`)."""
    names = {n for n in dir(type(cb)) if n.startswith("on_")} | {
        n for n in vars(cb) if n.startswith("on_")
    }
    for name in sorted(names - _KNOWN):
        if callable(getattr(cb, name, None)):
            warnings.warn(
                f"{type(cb).__name__}.{name} matches no callback hook and will never be called. "
                f"Valid hooks: {', '.join(NEW_HOOKS)}, on_run_failed, on_run_ended.",
                CadenceWarning,
                stacklevel=_USER_FRAME,
            )


_BUILT_INS = "cadence.callbacks"  # the module of the built-in callback classes


def _owner(cls: type, name: str) -> type | None:
    """The class of `cls`'s MRO whose body defines `name`, or None (Callback's own defaults excluded)."""
    for klass in cls.__mro__:
        if klass is Callback:
            return None
        if name in vars(klass):
            return klass
    return None


def warn_shadowed_legacy(cb: Callback) -> None:
    """Warn about a legacy method of a built-in's subclass that no hook reaches.

    MindSpore's built-ins did their work in legacy methods (`LossMonitor.step_end`),
    so a subclass could override one and call `super()`; cadence's built-ins
    implement the `on_*` hooks, and those never call the legacy name.
    """
    cls = type(cb)
    for legacy in LEGACY_HOOKS:
        owner = _owner(cls, legacy)
        if owner is None or owner.__module__ == _BUILT_INS:
            continue
        hooks = [hook for hook, name in LEGACY_OF.items() if name == legacy]
        owners = [_owner(cls, hook) for hook in hooks]
        if all(o is not None and o.__module__ == _BUILT_INS for o in owners):
            built_ins = sorted({o.__name__ for o in owners if o is not None})
            warnings.warn(
                f"{cls.__name__}.{legacy} is never called: {' and '.join(built_ins)} implements "
                f"{' and '.join(hooks)} itself (MindSpore's did its work in '{legacy}'). Override "
                f"those hooks instead, calling super() to keep the built-in's behavior.",
                CadenceWarning,
                stacklevel=_USER_FRAME,
            )


def legacy_methods(cb: Callback) -> set[str]:
    """Return the legacy hook names `cb`'s own class body defines (MindSpore's check)."""
    if type(cb) is Callback:
        return set()
    return set(vars(type(cb))) & set(LEGACY_HOOKS)


def warn_legacy_methods(cb: Callback, where: str) -> None:
    """Warn, as MindSpore does, that `cb`'s own class defines deprecated legacy hook names."""
    legacy = legacy_methods(cb)
    if legacy:
        warnings.warn(
            f"For {type(cb).__name__} callback, {sorted(legacy)} methods may not be supported in later "
            "version. Use methods prefixed with 'on_train' or 'on_eval' instead when using customized "
            f"callbacks (seen in {where}).",
            LegacyHookWarning,
            stacklevel=_USER_FRAME,
        )


# Warnings point at the user's `Model.train(...)` line: warning function ->
# CallbackSet.__init__ -> Run.__init__ -> Model._start -> Model.<method> -> the caller.
_USER_FRAME = 6


class CallbackSet:
    """The callbacks of one run: checked once, entered and exited, their hooks subscribed to the bus.

    Args:
        bus: The run's bus.
        callbacks: The `callbacks` argument as given (None, a Callback, or an iterable of them).
        where: The method for messages, e.g. `"Model.fit"`.

    Raises:
        TypeError: `callbacks` is not None, a Callback or an iterable of Callbacks.
    """

    def __init__(self, bus: EventBus, callbacks: object, where: str) -> None:
        self.bus = bus
        # The list `cb_params.list_callback` shows; `enter` may replace its items.
        self.callbacks = normalize_callbacks(callbacks)
        self.final_errors: list[BaseException] = []
        for cb in self.callbacks:  # every warning once per run, here
            warn_legacy_methods(cb, where)
            warn_unknown_hooks(cb)
            warn_shadowed_legacy(cb)

    def enter(self, stack: ExitStack) -> None:
        """Enter every callback in order; a `Callback` returned by `__enter__` replaces it (as MindSpore)."""
        for index, cb in enumerate(self.callbacks):
            target: Any = stack.enter_context(cb)  # user code may return anything
            if isinstance(target, Callback):
                self.callbacks[index] = target
            else:
                warnings.warn(
                    f"{type(cb).__name__}.__enter__ returned {target!r}; please return 'self' or a "
                    "Callback as the enter target. The original callback is kept.",
                    CadenceWarning,
                    stacklevel=3,
                )

    @contextmanager
    def hooks(
        self,
        names: tuple[str, ...],
        rc: RunContext,
        control: RunControl,
        *,
        depth: int | None = None,
    ) -> Iterator[None]:
        """Within the block, the hooks `names` that each callback overrides answer their events, in list order.

        Inline hooks receive `rc`; `async def` hooks a snapshot of it (see `_snapshot`).
        `depth`: answer only events of that evaluation depth (evaluation hooks, so
        that a nested `Model.eval` reaches only its own callbacks).
        """
        when = None if depth is None else _at_depth(depth)
        snapshot = _snapshot(rc, control)
        subs: list[Subscription[Any]] = []
        try:
            for cb in self.callbacks:
                for hook in names:
                    fn = effective_hook(cb, hook)
                    if fn is not None:
                        subs.append(
                            self.bus.subscribe_hook(
                                HOOK_EVENTS[hook],
                                fn,
                                context=rc,
                                snapshot=snapshot,
                                name=f"{type(cb).__name__}.{hook}",
                                when=when,
                            )
                        )
            yield
        finally:
            for sub in subs:
                sub.unsubscribe()

    def subscribe_final(self, rc: RunContext) -> list[Subscription[Any]]:
        """Subscribe `on_run_failed` and `on_run_ended`, each call isolated; failures go to `final_errors`."""
        subs: list[Subscription[Any]] = []
        for cb in self.callbacks:
            if _overrides(cb, "on_run_failed"):
                call = self._final_call(cb, "on_run_failed", rc)
                subs.append(self.bus.subscribe(ev.RunFailed, call, name=call.__name__))
            if _overrides(cb, "on_run_ended"):
                call = self._final_call(cb, "on_run_ended", rc)
                subs.append(self.bus.subscribe(ev.RunEnded, call, name=call.__name__))
        return subs

    def call_final(self, rc: RunContext, failed: bool) -> None:
        """Call `on_run_failed` (when `failed`) and `on_run_ended` directly, as the terminal event would.

        For nested evaluations, which publish no terminal event of their own.
        """
        for cb in self.callbacks:
            if failed and _overrides(cb, "on_run_failed"):
                self._final_call(cb, "on_run_failed", rc)(None)
            if _overrides(cb, "on_run_ended"):
                self._final_call(cb, "on_run_ended", rc)(None)

    def _final_call(
        self, cb: Callback, hook: str, rc: RunContext
    ) -> Callable[[Any], None]:
        method = getattr(cb, hook)
        errors = self.final_errors
        name = f"{type(cb).__name__}.{hook}"

        def call(event: Any) -> None:
            try:
                if hook == "on_run_failed":
                    method(rc, rc.original_args().get("exception"))
                else:
                    method(rc)
            except Exception as exc:
                exc.add_note(f"cadence: raised by {name} during run finalization")
                errors.append(exc)

        call.__name__ = name
        return call


def _at_depth(depth: int) -> Callable[[Any], bool]:
    def at_depth(event: Any) -> bool:
        return bool(event.depth == depth)

    return at_depth


def _snapshot(rc: RunContext, control: RunControl) -> Callable[[Any], RunContext]:
    """Build the publish-time snapshot an `async def` hook receives: a shallow copy of `cb_params`.

    The snapshot shares the loop's control: `request_stop()` on it stops the real loop.
    """
    bus = rc.bus
    assert bus is not None

    def prepare(event: Any) -> RunContext:
        return loop_context(CallbackParams(rc.original_args()), bus, control)

    return prepare
