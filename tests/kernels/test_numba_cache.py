"""The numba cache patch (`cadence.kernels._numba_cache`) against the numba installed here.

These fail loudly when numba's private cache API moves: the patch would then
turn caching off silently, and a stale kernel could survive an edit to a file
the kernels inline (`_scalar.py`, `_rowwise.py`, the recurrent steps, the
grouped-convolution and depthwise bodies of the split loops, the optimizer elements).
"""

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cadence.kernels import (
    _attention,
    _attention_math,
    _gate_math,
    _numba_cache,
    _optim_cpu,
    _optim_elements,
    _recurrent,
    _recurrent_steps,
    _rowwise,
    _scalar,
    cpu_kernels,
)

# Each cached kernels module, with the files its kernels inline (the stamp's extra digest).
CACHED_MODULES = {
    "_cpu": (cpu_kernels, (_scalar, _rowwise)),
    "_attention": (lambda: _attention, (_attention_math,)),
    "_recurrent": (lambda: _recurrent, (_recurrent_steps, _gate_math)),
    "_optim_cpu": (lambda: _optim_cpu, (_optim_elements,)),
}


def test_numbas_private_cache_api_is_where_the_patch_expects_it():
    api = _numba_cache.cache_api()
    assert api is not None, (
        "numba.core.caching no longer has CacheImpl._locator_classes or one of "
        f"{_numba_cache.LOCATOR_BASES}: update kernels/_numba_cache.py for this numba"
    )
    impl, bases = api
    for base in bases:
        assert callable(base.from_function) and callable(base.get_source_stamp), base
        assert any(issubclass(c, base) for c in impl._locator_classes), base


def test_the_cpu_table_installs_the_patch_first_and_caches():
    cpu = cpu_kernels()
    assert cpu._CACHE is True
    impl, bases = _numba_cache.cache_api()  # type: ignore[misc]
    ours = impl._locator_classes[: len(bases)]
    assert [getattr(c, "_cadence_scalar_aware", False) for c in ours] == [True] * len(
        bases
    )
    assert [c.__mro__[1] for c in ours] == bases


@pytest.mark.parametrize("name", sorted(CACHED_MODULES))
def test_the_source_stamp_covers_the_inlined_files(name):
    module, sources = CACHED_MODULES[name][0](), CACHED_MODULES[name][1]
    assert module._CACHE is True
    impl, bases = _numba_cache.cache_api()  # type: ignore[misc]
    locator = None
    for cls in impl._locator_classes[: len(bases)]:
        locator = cls.from_function(check_float_array_like, module.__file__)
        if locator is not None:
            break
    assert locator is not None
    digest = hashlib.sha256()
    for source in sources:
        digest.update(Path(str(source.__file__)).read_bytes())
    assert locator.get_source_stamp()[1] == digest.hexdigest()


def check_float_array_like():
    """Any function: a locator reads only the kernels file it is given."""


# One small call of each newly cached module's kernels; with "edited", every registered
# digest differs from the cached one, as after an edit of the files the kernels inline.
_CALLS = """
import sys
from pathlib import Path
import numpy as np
from cadence.kernels import _numba_cache

if sys.argv[1] == "edited":  # before the kernels modules register (and numba reads the stamps)
    register = _numba_cache.install

    def install(kernels_file, *sources):
        safe = register(kernels_file, *sources)
        _numba_cache._EXTRA_STAMPS[str(Path(kernels_file).resolve())] += "-edited"
        return safe

    _numba_cache.install = install
from cadence.kernels import cpu_kernels
k = cpu_kernels()
a = np.ones((2, 3, 4), np.float32)
y, hs, cs, act = k.recurrent_forward(0, a, a[0], a[0], np.ones((4, 4), np.float32), None,
                                     np.full(3, 2, np.int64), False)
k.recurrent_backward(0, y, a[0], a[0], np.ones((4, 4), np.float32), hs, cs, act,
                     np.full(3, 2, np.int64), False)
k.adagrad_update(np.ones(3, np.float32), np.ones(3, np.float32), np.ones(3, np.float32), 0.1, 0.0, 1.0)
# The split loops (`_parallel.split_loop`): grouped and depthwise convolution, batch norm.
x, w = np.ones((1, 2, 3, 3), np.float32), np.ones((2, 1, 1, 1), np.float32)
for filters in (w, np.ones((4, 1, 1, 1), np.float32)):  # depthwise, then grouped
    y = k.grouped_conv2d_forward(x, filters, (1, 1), (0, 0, 0, 0), (1, 1), 2)
    k.grouped_conv2d_backward(y, x, filters, (1, 1), (0, 0, 0, 0), (1, 1), 2, True)
y, mean, var = k.batch_norm_forward(a, np.ones(3, np.float32), np.ones(3, np.float32), 1e-5)
k.batch_norm_backward(y, a, np.ones(3, np.float32), mean, var, 1e-5)
"""
_NEW_MODULES = ("_recurrent", "_optim_cpu", "_parallel")


def _cache_events(cache_dir, variant):
    """Run `_CALLS` in a fresh process; return {module: set of "loaded"/"saved"} from numba's cache log."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir), "NUMBA_DEBUG_CACHE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _CALLS, variant],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    events: dict[str, set[str]] = {m: set() for m in _NEW_MODULES}
    for what, module in re.findall(
        r"\[cache\] data (loaded|saved) .*/(_\w+)\.", done.stdout
    ):
        if module in events:
            events[module].add(what)
    return events


@pytest.mark.slow
def test_new_processes_load_the_cached_kernels_until_an_inlined_file_changes(tmp_path):
    assert _cache_events(tmp_path, "first") == {m: {"saved"} for m in _NEW_MODULES}
    assert _cache_events(tmp_path, "again") == {m: {"loaded"} for m in _NEW_MODULES}
    assert _cache_events(tmp_path, "edited") == {m: {"saved"} for m in _NEW_MODULES}


def test_other_files_keep_numbas_own_locators():
    impl, _ = _numba_cache.cache_api()  # type: ignore[misc]
    cpu_kernels()
    ours = impl._locator_classes[0]

    def elsewhere():
        return 1

    assert ours.from_function(elsewhere, __file__) is None
