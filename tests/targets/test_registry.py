"""The target registry: entry points, lazy loading, lookups, errors, broken plugins, autoload switch."""

import importlib.metadata
import json
import subprocess
import sys
from typing import Any

import pytest

import cadence as ms
from cadence.cli._targets import collect
from cadence.compute import _plugins, _targets
from cadence.kernels import reference_kernels
from tests.helpers.processes import run_python


class FakeTarget(ms.Target):
    name = "Fake"
    aliases = ("fk",)
    install_hint = "plug in the fake device"

    def __init__(self, reason=None):
        super().__init__()
        self.reason = reason

    def probe(self):
        return self.reason

    def load_kernels(self):
        return reference_kernels()


def lookup(name):
    target = _targets.lookup(name)
    assert target is not None
    return target


def broken_import():
    raise ImportError("libfake.so: cannot open shared object file")


def with_entry_points(monkeypatch, *extra):
    real = importlib.metadata.entry_points

    def fake(**kw):
        eps: list[Any] = list(real(**kw))
        if kw.get("group") == _plugins.GROUP:
            eps += [
                importlib.metadata.EntryPoint(n, v, _plugins.GROUP) for n, v in extra
            ]
        return eps

    monkeypatch.setattr(importlib.metadata, "entry_points", fake)


def test_import_cadence_loads_no_plugin_numba_or_vendor_runtime():
    code = (
        "import sys, cadence, cadence.kernels; from cadence.compute import _plugins;"
        "print(_plugins._done.is_set(), sorted(m for m in ('numba', 'numba.cuda', 'acl', 'numba_cuda') if m in sys.modules))"
    )
    out = run_python(code, check=True)
    assert out.stdout.split() == ["False", "[]"]


def test_builtin_targets_come_from_cadence_entry_points(fresh_registry):
    assert _targets._REGISTRY == {}
    assert ms.get_target("cPu").name == "CPU"  # the miss loads the group
    origins = {t.name: o for t, o in _targets.registered_targets()}
    assert set(origins) >= {"CPU", "GPU", "Ascend"}
    for name, value in [
        ("CPU", "cpu = cadence.compute._targets:CPUTarget"),
        ("GPU", "gpu = cadence.compute._targets:CUDATarget"),
    ]:
        assert origins[name].startswith("cadence ") and value in origins[name]
    assert isinstance(lookup("cuda"), ms.CUDATarget)
    assert isinstance(lookup("NPU"), ms.Target) and lookup("npu").name == "Ascend"


def test_plugins_load_once_and_only_on_a_miss(fresh_registry, monkeypatch):
    calls = []
    real = _plugins._load_all

    def counting():
        calls.append(1)
        real()

    monkeypatch.setattr(_plugins, "_load_all", counting)
    ms.register_target(FakeTarget())
    assert ms.get_target("FK").name == "Fake"
    assert calls == []
    ms.get_target("cpu")
    ms.get_target("GPU") if lookup("GPU").probe() is None else None
    with pytest.raises(ms.TargetUnavailableError):
        ms.get_target("nope")
    assert calls == [1]


def test_unknown_name_lists_known_targets_and_the_group(fresh_registry):
    with pytest.raises(
        ms.TargetUnavailableError,
        match=r"No device target named 'npu3'\. Known targets: 'Ascend', 'CPU', 'GPU'\. Device plugins register through the 'cadence\.devices' entry point group",
    ):
        ms.get_target("npu3")
    with pytest.raises(ValueError, match="npu3"):  # MindSpore's exception class
        ms.set_context(device_target="npu3")
    with pytest.raises(TypeError, match="`device_target` must be a str"):
        ms.get_target(3)  # type: ignore[arg-type]


def test_unavailable_target_says_what_is_missing_and_how_to_get_it(fresh_registry):
    ms.register_target(FakeTarget(reason="no fake device is plugged in."))
    with pytest.raises(
        ms.TargetUnavailableError,
        match=r"The device target 'Fake' is not available on this machine: no fake device is plugged in\. To use it: plug in the fake device\.",
    ):
        ms.set_context(device_target="fake")
    assert ms.get_context("device_target") == "CPU"


def test_gpu_without_a_gpu_names_the_extra_and_the_driver(fresh_registry):
    gpu = lookup("GPU")
    if gpu.probe() is None:
        pytest.skip("a GPU (or the CUDA simulator) is available in this process")
    with pytest.raises(
        ms.TargetUnavailableError,
        match=r"install cadence\[cuda\] \(numba-cuda\) and an NVIDIA driver",
    ):
        ms.set_context(device_target="GPU")


def test_a_broken_plugin_is_recorded_and_shown_never_raised(
    fresh_registry, monkeypatch
):
    with_entry_points(
        monkeypatch,
        ("broken", f"{__name__}:broken_import"),
        ("missing", "no_such_module_for_cadence:Target"),
        ("wrong", "math:pi"),
        ("fake", f"{__name__}:FakeTarget"),
    )
    assert ms.get_target("fake").name == "Fake"
    failures = {f.entry_point.split(" =")[0]: f for f in _plugins.plugin_failures()}
    assert set(failures) == {"broken", "missing", "wrong"}
    assert "ImportError: libfake.so" in failures["broken"].error
    assert "ModuleNotFoundError" in failures["missing"].error
    assert "must name a cadence Target" in failures["wrong"].error
    with pytest.raises(
        ms.TargetUnavailableError,
        match=r"Plugins that failed to load: 'broken = .*libfake\.so",
    ):
        ms.get_target("npu3")
    info = collect()
    assert {f["entry_point"].split(" =")[0] for f in info["failed_plugins"]} == {
        "broken",
        "missing",
        "wrong",
    }
    fake = next(t for t in info["targets"] if t["name"] == "Fake")
    assert fake["available"] and fake["origin"].startswith("an unknown distribution")


def test_autoload_switch_keeps_only_cadence_own_targets(fresh_registry, monkeypatch):
    with_entry_points(monkeypatch, ("fake", f"{__name__}:FakeTarget"))
    monkeypatch.setenv(_plugins.AUTOLOAD_ENV, "0")
    with pytest.raises(
        ms.TargetUnavailableError, match="No device target named 'fake'"
    ):
        ms.get_target("fake")
    assert ms.get_target("CPU").name == "CPU"
    ms.register_target(FakeTarget())  # by hand still works
    assert ms.get_target("fake").name == "Fake"
    assert collect()["autoload"] is False


def test_cpu_stays_usable_without_entry_point_metadata(fresh_registry, monkeypatch):
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **kw: [])
    assert ms.get_target("CPU").name == "CPU"
    assert (
        "cadence's entry points were not found"
        in {t.name: o for t, o in _targets.registered_targets()}["CPU"]
    )


def test_register_target_validates():
    with pytest.raises(
        TypeError, match="must be a cadence Target instance, but got 'CPU'"
    ):
        ms.register_target("CPU")  # type: ignore[arg-type]

    class Nameless(FakeTarget):
        name = ""

    with pytest.raises(ValueError, match="non-empty str `name`"):
        ms.register_target(Nameless())


def test_a_plugin_target_computes_through_the_reference_kernels(fresh_registry):
    import numpy as np

    import cadence.nn as nn

    ms.register_target(FakeTarget())
    ms.set_context(device_target="Fake")
    try:
        net = nn.Dense(3, 2)
        step = nn.TrainOneStepCell(
            nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1)
        )
        x, y = (
            ms.Tensor(np.ones((4, 3), np.float32)),
            ms.Tensor(np.zeros((4, 2), np.float32)),
        )
        first = float(step(x, y).asnumpy())
        assert float(step(x, y).asnumpy()) < first
    finally:
        ms.set_context(device_target="CPU")


def test_cli_lists_targets_origins_and_availability():
    done = subprocess.run(
        [sys.executable, "-m", "cadence", "targets", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**__import__("os").environ, "NUMBA_ENABLE_CUDASIM": "0"},
    )
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    by_name = {t["name"]: t for t in info["targets"]}
    assert by_name["CPU"]["available"] and by_name["CPU"]["reason"] is None
    assert (
        "entry point 'cpu = cadence.compute._targets:CPUTarget'"
        in by_name["CPU"]["origin"]
    )
    assert (
        by_name["Ascend"]["available"] is False
        and "CANN" in by_name["Ascend"]["reason"]
    )
    assert by_name["GPU"]["aliases"] == ["cuda"]
    text = subprocess.run(
        [sys.executable, "-m", "cadence", "targets"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert (
        "CPU: available" in text
        and "Ascend (also 'npu'): not available" in text
        and "to get it:" in text
    )
