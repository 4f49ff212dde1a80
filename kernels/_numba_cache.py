"""Keep numba's on-disk kernel cache honest about the shared math in `_scalar` and `_rowwise`.

Why this exists: numba keys a cached kernel on the source file of the function
it compiles, and nothing else. The CPU kernels inline the functions of
`_scalar.py` and `_rowwise.py`, so after an edit to either numba would load
kernels built from the old math. numba has no public hook for this; its cache implementation
tries the locator classes of a private list (`CacheImpl._locator_classes`) in
order. We put, in front of numba's own, subclasses of its three locators that
add those files' digest to the source stamp and accept only the kernels files
registered through `install` (each with the files it compiles from).

If the private names are gone, `install` returns False and the caller compiles
without a cache (correct, only slower); `tests/kernels/test_numba_cache.py`
fails loudly in that case so the change is noticed on the next numba upgrade.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

__all__ = ["LOCATOR_BASES", "cache_api", "install"]

# numba's locators we subclass, in the order numba tries them.
LOCATOR_BASES = (
    "UserProvidedCacheLocator",
    "InTreeCacheLocator",
    "UserWideCacheLocator",
)


def cache_api() -> tuple[Any, list[Any]] | None:
    """Return numba's cache implementation class and its locator bases, or None if they moved."""
    try:
        from numba.core import caching
    except ImportError:  # pragma: no cover - numba internals moved
        return None
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    bases = [getattr(caching, name, None) for name in LOCATOR_BASES]
    if impl is None or not isinstance(getattr(impl, "_locator_classes", None), list):
        return None
    if any(b is None or not hasattr(b, "get_source_stamp") for b in bases):
        return None
    return impl, bases


# Kernels file -> digest of the files it compiles from; the locators read it, so each
# kernels module (`_cpu`, `_attention`, ...) registers its own sources.
_EXTRA_STAMPS: dict[str, str] = {}


def install(kernels_file: str, *extra_sources: str) -> bool:
    """Make cached kernels of `kernels_file` depend on `extra_sources` too; return whether caching is safe."""
    api = cache_api()
    if api is None:
        return False
    impl, bases = api
    digest = hashlib.sha256()
    for source in extra_sources:
        digest.update(Path(source).read_bytes())
    _EXTRA_STAMPS[str(Path(kernels_file).resolve())] = digest.hexdigest()
    if any(getattr(c, "_cadence_scalar_aware", False) for c in impl._locator_classes):
        return True

    def make(base: Any) -> Any:
        def get_source_stamp(self: Any) -> Any:
            return (base.get_source_stamp(self), _EXTRA_STAMPS[self._cadence_file])

        def from_function(cls: Any, py_func: Any, py_file: str) -> Any:
            # Only the registered kernels files: every other cached function keeps numba's locators.
            resolved = str(Path(py_file).resolve())
            if resolved not in _EXTRA_STAMPS:
                return None
            locator = base.from_function.__func__(cls, py_func, py_file)
            if locator is not None:
                locator._cadence_file = resolved
            return locator

        attrs = {
            "get_source_stamp": get_source_stamp,
            "from_function": classmethod(from_function),
            "_cadence_scalar_aware": True,
        }
        return type(f"ScalarAware{base.__name__}", (base,), attrs)

    impl._locator_classes[0:0] = [make(b) for b in bases]
    return True
