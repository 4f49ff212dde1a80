import pytest

from cadence.compute import _context, _plugins, _targets


@pytest.fixture
def fresh_registry(monkeypatch):
    """An empty registry and plugin state, restored afterwards (context target too)."""
    saved = (
        dict(_targets._REGISTRY),
        dict(_targets._ORIGINS),
        _plugins._done.is_set(),
        list(_plugins._failures),
        _context._target,
        _context._values["device_target"],
    )
    _targets._REGISTRY.clear()
    _targets._ORIGINS.clear()
    _plugins._done.clear()
    _plugins._failures.clear()
    _context._target = None
    _context._values["device_target"] = "CPU"
    yield
    _targets._REGISTRY.clear()
    _targets._REGISTRY.update(saved[0])
    _targets._ORIGINS.clear()
    _targets._ORIGINS.update(saved[1])
    if saved[2]:
        _plugins._done.set()
    else:
        _plugins._done.clear()
    _plugins._failures[:] = saved[3]
    _context._target, _context._values["device_target"] = saved[4], saved[5]
