"""The public surface: `__all__` complete, public `__module__`, docstrings, finality."""

from __future__ import annotations

import importlib
import inspect

import pytest

from tests.helpers.processes import run_python

PACKAGES = [
    "cadence",
    "cadence.amp",
    "cadence.callbacks",
    "cadence.nn",
    "cadence.dataset",
    "cadence.mindrecord",
    "cadence.train",
    "cadence.train.callback",
    "cadence.train.metrics",
    "cadence.service",
]
# Modules whose exports keep their own module names (they are public modules themselves).
PUBLIC_MODULES = ["cadence.testing", "cadence.validation"]
FINAL = {
    "EventBus",
    "RunContext",
    "Subscription",
    "CallbackParams",
    "RunHandle",
    "RunEvents",
}


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_sorted_and_resolvable(name):
    module = importlib.import_module(name)
    exported = list(module.__all__)
    assert len(set(exported)) == len(exported), "duplicates in __all__"
    for attr in exported:
        assert hasattr(module, attr), f"{name}.{attr} in __all__ but missing"
    # Sorted order (constants, classes, functions, as isort does) is ruff's RUF022,
    # enforced by tests/test_static_checks.py.


def test_core_exports_report_the_public_module():
    import cadence

    core = [
        "Callback", "CallbackParams", "EventBus", "Model", "RunContext", "Subscription", "BusStatistics",
        "SubscriberStatistics", "Event", "TrainStepEnd", "RunEnded", "SubscriberError", "MissingKeyError",
        "encode_event", "decode_event", "event_types", "LegacyHookWarning",
    ]  # fmt: skip
    for name in core:
        obj = getattr(cadence, name)
        assert obj.__module__ == "cadence", (
            f"cadence.{name}.__module__ is {obj.__module__!r}"
        )
        assert repr(obj).startswith(("<class 'cadence.", "<function ")), repr(obj)


def test_every_core_export_has_a_docstring():
    import cadence

    missing = [
        n
        for n in cadence.__all__
        if not inspect.getdoc(getattr(cadence, n))
        and not isinstance(getattr(cadence, n), int | float | str)
    ]
    assert missing == []


def test_public_methods_of_core_classes_have_docstrings():
    import cadence

    missing = []
    for cls_name in ("EventBus", "Model", "RunContext", "Subscription", "Callback"):
        cls = getattr(cadence, cls_name)
        for attr, value in vars(cls).items():
            if attr.startswith("_") or (
                not callable(value) and not isinstance(value, property)
            ):
                continue
            if not inspect.getdoc(value):
                missing.append(f"{cls_name}.{attr}")
    assert missing == []


def test_concrete_classes_are_final():
    import cadence

    for name in FINAL:
        assert getattr(getattr(cadence, name), "__final__", False), (
            f"cadence.{name} should be @typing.final"
        )
    for name in ("Callback", "Event"):
        assert not getattr(getattr(cadence, name), "__final__", False), (
            f"{name} is meant for subclassing"
        )


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_public_modules_document_every_export(name):
    module = importlib.import_module(name)
    for attr in module.__all__:
        assert inspect.getdoc(getattr(module, attr)), f"{name}.{attr} has no docstring"


def test_importing_cadence_loads_neither_numba_nor_callbacks():
    code = "import sys, cadence; print(sorted(m for m in sys.modules if m.startswith(('numba', 'cadence.callbacks', 'llvmlite'))))"
    out = run_python(code, check=True).stdout
    assert out.strip() == "[]"


def test_callbacks_are_reachable_from_the_top_level_lazily():
    import cadence
    import cadence.callbacks

    for name in cadence.callbacks.__all__:
        assert getattr(cadence, name) is getattr(cadence.callbacks, name)
        for path in (
            "cadence.train",
            "cadence.train.callback",
        ):  # as mindspore.train(.callback)
            assert getattr(importlib.import_module(path), name) is getattr(
                cadence.callbacks, name
            )
    with pytest.raises(
        AttributeError, match="module 'cadence' has no attribute 'NoSuchThing'"
    ):
        _ = cadence.NoSuchThing


def test_mindspore_train_paths_port_by_changing_the_import():
    import cadence.nn
    import cadence.train
    import cadence.train.callback
    import cadence.train.metrics

    for name in ("Accuracy", "Loss", "Metric", "Precision", "Recall", "F1"):
        assert getattr(cadence.train, name) is getattr(cadence.nn, name)
        assert getattr(cadence.train.metrics, name) is getattr(cadence.nn, name)
    assert cadence.train.callback.Callback is cadence.Callback
    assert cadence.train.callback.RunContext is cadence.RunContext
    with pytest.raises(
        AttributeError,
        match=r"module 'cadence\.train\.callback' has no attribute 'NoSuchThing'",
    ):
        _ = cadence.train.callback.NoSuchThing
