import numpy as np
import pytest

import cadence as ms
from cadence.compute import _context
from tests.helpers.processes import run_python


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
    code = "import cadence as ms; ms.set_context(runtime_num_threads=1); print(ms.get_context('runtime_num_threads'))"
    out = run_python(code, check=True, timeout=60)
    assert out.stdout.strip() == "1"


# Keys that older MindSpore scripts pass, with a value of the documented type.
OLD_KEYS = {
    "device_id": 0,
    "save_graphs": False,
    "save_graphs_path": "./graphs",
    "max_call_depth": 10000,
    "enable_graph_kernel": False,
    "graph_kernel_flags": "--opt_level=1",
    "enable_reduce_precision": True,
    "variable_memory_max_size": "30GB",
    "max_device_memory": "3.5GB",
    "enable_dump": False,
    "save_dump_path": ".",
    "enable_profiling": False,
    "enable_auto_mixed_precision": False,
    "grad_for_scalar": False,
    "check_bprop": False,
    "reserve_class_name_in_scope": True,
    "pynative_synchronize": False,
    "enable_compile_cache": False,
    "jit_config": {"jit_level": "O0"},
    "ascend_config": {"precision_mode": "force_fp16"},
}


def test_accepts_the_keys_mindspore_2x_documents():
    from cadence.compute._context_keys import CONTEXT_KEYS

    saved = {k: ms.get_context(k) for k in OLD_KEYS}
    try:
        ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU", **OLD_KEYS)
        for key, value in OLD_KEYS.items():
            assert ms.get_context(key) == value
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, **saved)
    assert set(OLD_KEYS) <= set(CONTEXT_KEYS)
    # Read-only, as MindSpore reports it off Ascend's graph engine.
    assert ms.get_context("enable_ge") is False
    with pytest.raises(
        ValueError, match=r"'enable_ge' is not recognized.*read with `get_context`"
    ):
        ms.set_context(enable_ge=True)


def test_context_values_are_type_checked_as_mindspore_does():
    with pytest.raises(
        TypeError, match="'device_id' must be int, but got '0' of type 'str'"
    ):
        ms.set_context(device_id="0")
    with pytest.raises(TypeError, match="'max_call_depth' must be int, but got True"):
        ms.set_context(max_call_depth=True)
    with pytest.raises(TypeError, match="'save_graphs' must be bool or int"):
        ms.set_context(save_graphs="yes")
    with pytest.raises(ValueError, match=r"'device_idd' is not recognized.*Valid keys"):
        ms.set_context(device_idd=0)
    assert ms.get_context("device_id") == 0  # nothing recorded by the failed calls


def test_jit_syntax_levels_are_mindspores_values_and_recorded():
    assert (ms.STRICT, ms.COMPATIBLE, ms.LAX) == (0, 1, 2)
    before = ms.get_context("jit_syntax_level")
    try:
        ms.set_context(jit_syntax_level=ms.STRICT)
        assert ms.get_context("jit_syntax_level") == ms.STRICT
    finally:
        _context._values["jit_syntax_level"] = before
