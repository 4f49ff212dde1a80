"""Small helpers shared by the package `__init__` modules."""

from __future__ import annotations

from typing import Any

__all__ = ["fixup_module_metadata", "type_name"]


def fixup_module_metadata(module_name: str, namespace: dict[str, Any]) -> None:
    """Set `__module__` of every public class and function in `namespace` to `module_name`.

    Tracebacks and reprs then show `cadence.EventBus`, not `cadence.bus._bus.EventBus`.
    """
    seen: set[int] = set()

    def fix(qualname: str, obj: Any) -> None:
        if id(obj) in seen:
            return
        seen.add(id(obj))
        mod = getattr(obj, "__module__", None)
        if mod is None or not mod.startswith("cadence."):
            return
        obj.__module__ = module_name
        if isinstance(obj, type):
            obj.__qualname__ = qualname
            for attr, value in obj.__dict__.items():
                if isinstance(value, type) and value.__qualname__.endswith("." + attr):
                    fix(f"{qualname}.{attr}", value)

    for name in namespace.get("__all__", ()):
        obj = namespace[name]
        if isinstance(obj, type) or callable(obj):
            fix(name, obj)


def type_name(value: object) -> str:
    """Return the type name used in error messages: `'int'`, `'numpy.ndarray'`."""
    cls = type(value)
    return (
        cls.__qualname__
        if cls.__module__ == "builtins"
        else f"{cls.__module__}.{cls.__qualname__}"
    )
