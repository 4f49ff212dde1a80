"""The examples in cadence.dataset's docstrings run and print what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import cadence.dataset

# The public packages hold the examples of the classes they re-export (their `__module__`
# points there); the private modules keep those of helpers they do not export.
MODULES = [
    "cadence.dataset",
    "cadence.dataset.vision",
    "cadence.dataset.transforms",
    "cadence.dataset.text",
    *sorted(
        info.name
        for info in pkgutil.walk_packages(
            cadence.dataset.__path__, prefix="cadence.dataset."
        )
    ),
]


def test_every_public_name_has_a_docstring():
    for package in (
        cadence.dataset,
        cadence.dataset.vision,
        cadence.dataset.transforms,
        cadence.dataset.text,
    ):
        for name in package.__all__:
            assert getattr(package, name).__doc__, (
                f"{package.__name__}.{name} has no docstring"
            )


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_the_public_classes_have_examples():
    found = sum(
        doctest.testmod(importlib.import_module(name)).attempted for name in MODULES[:3]
    )
    assert found >= 40
