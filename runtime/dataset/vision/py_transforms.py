"""MindSpore's `mindspore.dataset.vision.py_transforms` path (the Python transforms of MindSpore 1.x): the same operations as `cadence.dataset.vision`.

MindSpore 2.x merged its C++ and Python transforms into `mindspore.dataset.vision`;
code written for 1.x still imports them from here. This module is that package
under the old name: one implementation, two import paths.
"""

from __future__ import annotations

from . import *  # noqa: F403 (re-export the package's public names, whatever they are)
from . import __all__ as __all__
