"""The Ascend plugin: discovery, probing for CANN and every error path, with a fake `acl` module."""

import sys
import types
from typing import Any

import pytest

import cadence as ms
from cadence.cli._targets import collect
from cadence.compute import _targets
from cadence.compute._ascend import ENV_VARS, AscendTarget


def why(target):
    reason = target.probe()
    assert reason is not None
    return reason


def lookup(name):
    target = _targets.lookup(name)
    assert target is not None
    return target


@pytest.fixture
def no_cann(monkeypatch):
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delitem(sys.modules, "acl", raising=False)


@pytest.fixture
def cann_env(no_cann, monkeypatch, tmp_path):
    monkeypatch.setenv("ASCEND_HOME_PATH", str(tmp_path))


def fake_acl(
    monkeypatch, *, pyacl=True, init=0, count=(8, 0), soc="Ascend910B", raises=None
):
    acl: Any = types.ModuleType("acl")
    acl.__spec__ = None
    if pyacl:

        def get_device_count():
            if raises:
                raise raises
            return count

        acl.init = lambda: init
        acl.rt = types.SimpleNamespace(get_device_count=get_device_count)
        acl.get_soc_name = lambda: soc
    else:  # PyPI's unrelated `acl` (a network access-control-list parser)
        acl.parse = lambda text: text
    monkeypatch.setitem(sys.modules, "acl", acl)
    return acl


def test_discovered_through_the_entry_point_group(fresh_registry, no_cann):
    target = _targets.lookup("ascend")
    assert isinstance(target, AscendTarget) and _targets.lookup("NPU") is target
    assert (
        "entry point 'ascend = cadence.compute._ascend:AscendTarget'"
        in {t.name: o for t, o in _targets.registered_targets()}["Ascend"]
    )
    assert "acl" not in sys.modules


def test_without_cann_selection_fails_at_once_naming_the_variables(
    fresh_registry, no_cann
):
    with pytest.raises(
        ms.TargetUnavailableError,
        match=r"'Ascend' is not available on this machine: the CANN environment is not set up \(ASCEND_HOME_PATH and ASCEND_TOOLKIT_HOME are unset\)\. To use it: install Huawei's CANN toolkit and driver, then source .*set_env\.sh",
    ):
        ms.set_context(device_target="Ascend")
    assert "acl" not in sys.modules  # nothing imported


def test_env_set_but_no_acl_module(cann_env, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "acl" else real(name, *a),
    )
    assert "CANN's Python module 'acl' (pyACL) is not importable" in why(AscendTarget())


def test_the_unrelated_pypi_acl_is_recognized(cann_env, monkeypatch):
    fake_acl(monkeypatch, pyacl=False)
    reason = why(AscendTarget())
    assert "is not CANN's pyACL" in reason and "pip uninstall acl" in reason


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"init": 507008}, "`acl.init()` failed with error code 507008"),
        (
            {"count": (0, 107001)},
            "`acl.rt.get_device_count()` failed with error code 107001",
        ),
        ({"count": (0, 0)}, "found no Ascend device"),
        (
            {"raises": RuntimeError("driver gone")},
            "pyACL raised while counting devices (RuntimeError: driver gone)",
        ),
    ],
)
def test_pyacl_failures_are_reported(cann_env, monkeypatch, kwargs, message):
    fake_acl(monkeypatch, **kwargs)
    target = AscendTarget()
    assert message in why(target)
    assert target.devices() == ()


def test_with_cann_the_probe_reports_devices(cann_env, monkeypatch):
    fake_acl(
        monkeypatch, count=(2, 0), init=100002
    )  # a second acl.init() in one process is fine
    target = AscendTarget()
    assert target.probe() is None
    assert target.devices() == ("Ascend910B #0", "Ascend910B #1")


def test_with_cann_selection_still_fails_because_there_are_no_kernels(
    fresh_registry, cann_env, monkeypatch
):
    fake_acl(monkeypatch, count=(8, 0))
    with pytest.raises(
        ms.TargetUnavailableError,
        match=r"'Ascend' found Ascend910B #0, .*Ascend910B #7, but it has no kernel table yet",
    ):
        ms.set_context(device_target="npu")
    with pytest.raises(ms.TargetUnavailableError, match="no Ascend kernel table"):
        _ = lookup("Ascend").kernels
    info = next(t for t in collect()["targets"] if t["name"] == "Ascend")
    assert (
        info["available"] is False
        and len(info["devices"]) == 8
        and "no kernel table" in info["reason"]
    )


def test_probe_result_is_cached(cann_env, monkeypatch):
    acl = fake_acl(monkeypatch)
    target = AscendTarget()
    assert target.probe() is None
    acl.rt.get_device_count = lambda: (0, 1)
    assert target.probe() is None
