import numpy as np
import pytest

import cadence as ms
from cadence.compute import _context


def test_defaults_and_set_get():
    assert ms.get_context("device_target") == "CPU"
    ms.set_context(mode=ms.GRAPH_MODE)
    assert ms.get_context("mode") == ms.GRAPH_MODE
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="cpu")
    assert ms.get_context("device_target") == "CPU"


def test_rejects_bad_arguments():
    with pytest.raises(ValueError, match="not recognized"):
        ms.set_context(foo=1)
    with pytest.raises(ValueError, match="mode"):
        ms.set_context(mode=5)
    with pytest.raises(ValueError, match="No device target named 'NPU3'"):
        ms.set_context(device_target="NPU3")
    with pytest.raises(ValueError, match="attribute"):
        ms.get_context("nope")
    with pytest.raises(ValueError, match="runtime_num_threads"):
        ms.set_context(runtime_num_threads=0)


def test_set_seed_makes_streams_reproducible_and_independent():
    ms.set_seed(7)
    a = _context.rng("shuffle").random(3)
    _context.rng("dropout").random(100)
    b = _context.rng("shuffle").random(3)
    ms.set_seed(7)
    assert np.array_equal(_context.rng("shuffle").random(3), a)
    assert np.array_equal(_context.rng("shuffle").random(3), b)
    assert not np.array_equal(_context.rng("init").random(3), a)
    assert ms.get_seed() == 7


def test_set_seed_validates():
    with pytest.raises(TypeError, match="seed"):
        ms.set_seed(1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non-negative"):
        ms.set_seed(-1)


def test_thread_limit_is_accepted():
    ms.set_context(runtime_num_threads=2)
    assert ms.get_context("runtime_num_threads") == 2


def test_thread_limit_in_a_fresh_process_does_not_deadlock():
    import subprocess
    import sys

    code = "import cadence as ms; ms.set_context(runtime_num_threads=1); print(ms.get_context('runtime_num_threads'))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert out.stdout.strip() == "1"
